#include "loop/export_model.h"

#include <filesystem>

#include "nn/checkpoint.h"

namespace ps {

void export_run_model(const std::string& checkpoint, const std::string& out, const RunConfig& cfg,
                      double elo, double ci95) {
  nn::LoadedCheckpoint ck = nn::load_checkpoint(checkpoint, "cpu");
  nn::CheckpointMeta meta = ck.meta;
  if (meta.pitches.empty()) meta.pitches = {Pitch::get(cfg.width, cfg.length, cfg.goal).name()};
  if (meta.variants.empty()) meta.variants = {variant_name(cfg.variant)};
  meta.rating_elo = elo;
  meta.rating_ci95 = ci95;
  meta.note = cfg.name + " " + std::filesystem::path(checkpoint).stem().string();
  nn::save_checkpoint(out, ck.net, meta);
}

}  // namespace ps
