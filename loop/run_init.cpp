#include "loop/run_init.h"

#include <algorithm>
#include <cmath>

#include "loop/run_dir.h"
#include "train/trainer.h"

namespace ps {

namespace {

// "8x10, 8x12"; "any" for an empty list (a net for every pitch or variant).
std::string list_text(const std::vector<std::string>& v) {
  if (v.empty()) return "any";
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The first of `wanted` that `listed` leaves out (an empty list allows all), or "".
std::string first_missing(const std::vector<std::string>& listed, const std::vector<std::string>& wanted) {
  if (listed.empty()) return "";
  for (const std::string& w : wanted)
    if (std::find(listed.begin(), listed.end(), w) == listed.end()) return w;
  return "";
}

}  // namespace

std::optional<nn::LoadedCheckpoint> load_run_init(const RunConfig& cfg) {
  if (cfg.init.empty()) return std::nullopt;
  const std::string where = cfg.init_where.empty() ? "run.init" : cfg.init_where;
  std::optional<nn::LoadedCheckpoint> ck;
  try {
    ck = nn::load_checkpoint(cfg.init, "cpu");
  } catch (const nn::CheckpointError& e) {
    throw ConfigError(where + ": cannot start generation 0 from it: " + e.what());
  }
  const nn::CheckpointMeta& m = ck->meta;
  if (m.net != cfg.train.net)
    throw ConfigError(where + ": " + cfg.init + " holds a net of shape " + m.net.summary() +
                      ", but train.net is " + cfg.train.net.summary() +
                      ": set train.net to the model's shape, or start from a model of this one");
  std::vector<std::string> pitches{Pitch::get(cfg.width, cfg.length, cfg.goal).name()};
  for (const PitchChoice& p : cfg.selfplay.pitches)
    pitches.push_back(Pitch::get(p.width, p.length, p.goal).name());
  std::vector<std::string> variants{variant_name(cfg.variant)};
  for (Variant v : cfg.selfplay.variants) variants.push_back(variant_name(v));
  const std::string pitch = first_missing(m.pitches, pitches), variant = first_missing(m.variants, variants);
  if (!pitch.empty() || !variant.empty())
    throw ConfigError(where + ": " + cfg.init + " is a net for pitch " + list_text(m.pitches) +
                      " and variant " + list_text(m.variants) + ", but the run plays " +
                      (pitch.empty() ? "variant " + variant : "pitch " + pitch) +
                      " (run.pitch, run.variant, selfplay.pitches, selfplay.variants)");
  return ck;
}

void write_generation0(const RunConfig& cfg, const std::string& path,
                       const std::optional<nn::LoadedCheckpoint>& init) {
  const std::string note = cfg.name + " " + gen_name(0);
  if (!init) {
    write_initial_checkpoint(cfg.train, path, note);
    return;
  }
  nn::CheckpointMeta meta = init->meta;
  meta.note = note + " from " + cfg.init + (init->meta.note.empty() ? "" : " (" + init->meta.note + ")");
  meta.train_call_start = -1;
  meta.rating_elo = meta.rating_ci95 = std::nan("");
  nn::PolicyValueNet net = init->net;
  nn::save_checkpoint(path, net, meta);
}

}  // namespace ps
