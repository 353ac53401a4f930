#include "loop/run_config.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/fileutil.h"
#include "loop/run_dir.h"
#include "tournament/openings.h"

namespace ps {

EvaluateConfig::EvaluateConfig() {
  search.root_noise = false;
  search.temperature = 0.0;
  search.temperature_turns = 0;
  search.temperature_final = 0.0;
}

std::vector<std::string> evaluation_opponents(const EvaluateConfig& e, int generation,
                                              const std::string& best) {
  std::vector<std::string> out;
  const std::string me = gen_name(generation);
  auto add = [&](const std::string& name) {
    if (name != me && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  if (e.vs_previous) add(gen_name(generation - 1));
  if (e.gating) add(best);
  if (e.vs_generation0) add(gen_name(0));
  if (e.vs_random) add("random");
  if (e.vs_greedy) add("greedy");
  return out;
}

namespace {

EvaluateConfig parse_evaluate(ConfigReader& r) {
  EvaluateConfig e;
  r.read(field("games", e.games), field("final_games", e.final_games), field("visits", e.visits),
         field("opening_turns", e.opening_turns), field("concurrency", e.concurrency),
         field("vs_previous", e.vs_previous), field("vs_generation0", e.vs_generation0),
         field("vs_random", e.vs_random), field("vs_greedy", e.vs_greedy), field("reference", e.reference));
  {
    ConfigReader g = r.child("gating");
    g.read(field("enabled", e.gating), field("threshold", e.gating_threshold));
    g.finish();
  }
  {
    ConfigReader sr = r.child("search");
    e.search = parse_search_params(sr, e.search);  // no noise, temperature 0 unless given
  }
  // A key of older configs: said as such, not as an unknown key.
  if (r.has("openings"))
    r.fail_key("openings",
               "is no longer read: each pair of games against an opponent has its own opening "
               "(games / 2 openings of opening_turns turns); remove the key");
  r.finish();
  // "<file>: evaluate.<key> (line N): must ..."
  if (e.games < 2 || e.games % 2) r.fail_key("games", "must be even and >= 2");
  if (e.final_games < 2 || e.final_games % 2) r.fail_key("final_games", "must be even and >= 2");
  if (e.visits < 1 || e.visits > kMaxTurnVisits)
    r.fail_key("visits", "must be in [1, " + std::to_string(kMaxTurnVisits) + "]");
  if (e.opening_turns < 0) r.fail_key("opening_turns", "must be >= 0");
  if (e.concurrency < 1) r.fail_key("concurrency", "must be >= 1");
  // The proof step (search/mcts_player.h) runs on timed turns only; evaluation's are visits.
  if (e.search.proof_fraction != 0)
    r.fail_key("search.proof_fraction",
               "must be 0: the proof step runs on timed turns only, and evaluation turns have a visit "
               "budget (evaluate.visits), so it would never run");
  if (!(e.gating_threshold > 0 && e.gating_threshold < 1))
    r.child("gating").fail_key("threshold", "must be in (0, 1)");
  // Resolved where it exists; checked when a run or gatekeeper starts (read_reference_set),
  // not here: the roles that never score a network parse the same config.
  if (!e.reference.empty()) {
    e.reference_where = r.where("reference");
    try {
      e.reference = find_repository_file(e.reference, PS_SOURCE_DIR);
    } catch (const std::invalid_argument&) {}
  }
  return e;
}

// The run: map (name, dir, learner, init, generations, pitch, variant) into c.
void read_run_section(ConfigReader& r, RunConfig& c, const std::string& source) {
  std::string pitch = "8x10";
  c.name = r.get<std::string>("name", c.name);
  c.dir = r.get<std::string>("dir", "");
  // The value-net learner has its own parser (loop/value_net_run.h), chosen before this one.
  const std::string learner = r.get<std::string>("learner", "resnet");
  if (learner != "resnet")
    r.fail_key("learner",
               "must be resnet (the AlphaZero loop) or value-net (`run CONFIG`, with teacher "
               "workers `selfplay --follow RUNDIR`; the trainer and gatekeeper roles are resnet's)");
  c.init = r.get<std::string>("init", "");
  if (r.has("init")) c.init_where = r.where("init");
  c.generations = r.get<int>("generations", c.generations);
  pitch = r.get<std::string>("pitch", pitch);
  const std::string variant = r.get<std::string>("variant", "standard");
  r.finish();
  try {
    PitchChoice p = parse_pitch_spec(pitch);
    c.width = p.width;
    c.length = p.length;
    c.goal = p.goal;
  } catch (const std::invalid_argument& e) {
    r.fail_key("pitch", e.what());
  }
  try {
    c.variant = parse_variant(variant);
  } catch (const std::invalid_argument& e) {
    r.fail_key("variant", e.what());
  }
  if (c.generations < 1 || c.generations > kMaxGenerations)
    r.fail_key("generations", "must be in [1, " + std::to_string(kMaxGenerations) + "]");
  if (r.has("init") && c.init.empty()) r.fail_key("init", "must be a file name (or leave the key out)");
  // "." and ".." put the run's files into runs/ or the working directory; " " made "runs/ ".
  if (!is_run_directory_name(c.name))
    r.fail_key("name", "must be a non-empty name without '/', not '.' or '..' or blank");
  // state.json and the report carry the name as JSON text, which must be UTF-8: a name that is
  // not made the run directory and then failed every resume.
  try {
    (void)nlohmann::json(c.name).dump();
  } catch (const nlohmann::json::exception&) {
    r.fail_key("name", "must be UTF-8 text");
  }
  if (std::any_of(c.name.begin(), c.name.end(), [](char ch) { return (unsigned char)ch < 32; }))
    r.fail_key("name", "must not hold control characters");
}

// Values that are valid for the single commands but leave the loop nothing to do, caught
// before the run directory is made.
void check_run_config_for_the_loop(const RunConfig& c, const std::string& source) {
  // Each pair of evaluation games has its own opening (phases.cpp): there must be that many
  // distinct ones of opening_turns turns, checked here rather than at the last generation.
  if (c.evaluate.opening_turns > 0) {
    tour::OpeningOptions oo;
    oo.count = std::max(c.evaluate.games, c.evaluate.final_games) / 2;
    oo.turns = c.evaluate.opening_turns;
    try {
      (void)tour::generate_openings(Pitch::get(c.width, c.length, c.goal), c.variant, oo);
    } catch (const std::runtime_error& e) {
      throw ConfigError(source + ": evaluate: " + std::to_string(oo.count * 2) +
                        " games against an opponent need " + std::to_string(oo.count) +
                        " distinct openings (one per pair of games), and " + e.what() +
                        ": raise evaluate.opening_turns or play fewer games");
    }
  }
}

}  // namespace

RunConfig parse_run_config(const std::string& text, const std::string& source) {
  ConfigReader top = ConfigReader::from_string(text, source);
  RunConfig c;
  c.source = text;
  {
    ConfigReader r = top.child("run");
    read_run_section(r, c, source);
  }
  {
    ConfigReader r = top.child("service");
    c.service = nn::parse_service_options(r);  // ConfigError naming the file and key
    r.finish();
    c.service_device_where = r.where("device");
  }
  {
    ConfigReader r = top.child("selfplay");
    const bool has_pitches = r.has("pitches"), has_variants = r.has("variants");
    // The loop's bound before the selfplay command's own (>= 0), so that 0 and -5 read alike.
    if (r.has("games") && r.require<int64_t>("games") < 1)
      r.fail_key("games", "must be >= 1 in a run (every generation trains on new games)");
    c.selfplay = parse_selfplay_config(r);
    if (!has_pitches) c.selfplay.pitches = {PitchChoice{c.width, c.length, c.goal}};
    if (!has_variants) c.selfplay.variants = {c.variant};
  }
  {
    ConfigReader r = top.child("train");
    if (r.has("steps") && r.require<int64_t>("steps") < 1) r.fail_key("steps", "must be >= 1 in a run");
    c.train = parse_train_config(r);
    c.train_device_where = r.where("device");
  }
  {
    ConfigReader r = top.child("evaluate");
    c.evaluate = parse_evaluate(r);
  }
  top.finish();
  check_run_config_for_the_loop(c, source);
  if (c.dir.empty()) c.dir = "runs/" + c.name;
  return c;
}

void flatten_config(const YAML::Node& n, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (n.IsMap()) {
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      flatten_config(it->second, prefix.empty() ? key : prefix + "." + key, out);
    }
    return;
  }
  YAML::Emitter e;
  e.SetSeqFormat(YAML::Flow);
  e.SetMapFormat(YAML::Flow);
  e << n;
  out[prefix] = e.c_str();
}

namespace {

std::string pitch_list_text(const std::vector<PitchChoice>& v) {
  std::string s;
  for (const auto& p : v) s += (s.empty() ? "" : ",") + Pitch::get(p.width, p.length, p.goal).name();
  return s;
}

std::string variant_list_text(const std::vector<Variant>& v) {
  std::string s;
  for (Variant x : v) s += (s.empty() ? "" : ",") + std::string(variant_name(x));
  return s;
}

}  // namespace

std::vector<ConfigChange> compare_run_configs(const std::string& old_text, const std::string& new_text,
                                              const std::string& old_source) {
  const RunConfig a = parse_run_config(old_text, old_source);
  const RunConfig b = parse_run_config(new_text, "the config given");
  std::vector<std::string> refused;
  auto check = [&](const char* key, const std::string& x, const std::string& y) {
    if (x != y) refused.push_back(std::string(key) + " (" + x + " -> " + y + ")");
  };
  check("run.pitch", Pitch::get(a.width, a.length, a.goal).name(), Pitch::get(b.width, b.length, b.goal).name());
  check("run.variant", variant_name(a.variant), variant_name(b.variant));
  check("selfplay.pitches", pitch_list_text(a.selfplay.pitches), pitch_list_text(b.selfplay.pitches));
  check("selfplay.variants", variant_list_text(a.selfplay.variants), variant_list_text(b.selfplay.variants));
  if (a.train.net != b.train.net)
    refused.push_back("train.net (" + a.train.net.summary() + " -> " + b.train.net.summary() + ")");
  auto init_text = [](const RunConfig& c) {
    return c.init.empty() ? std::string("absent: random weights") : c.init;
  };
  check("run.init", init_text(a), init_text(b));
  if (!refused.empty()) {
    std::string list;
    for (const auto& r : refused) list += (list.empty() ? "" : ", ") + r;
    throw ConfigError(old_source + ": the run was started with another " + list +
                      "; these cannot change within a run (its data, checkpoints and ratings are "
                      "for the old ones). Put them back, or start a new run (another run.name or --dir)");
  }
  return changed_config_keys(old_text, new_text);
}

std::vector<ConfigChange> changed_config_keys(const std::string& old_text, const std::string& new_text) {
  std::map<std::string, std::string> x, y;
  flatten_config(YAML::Load(old_text), "", x);
  flatten_config(YAML::Load(new_text), "", y);
  std::vector<ConfigChange> changes;
  for (const auto& [k, v] : x) {
    auto it = y.find(k);
    if (it == y.end()) changes.push_back({k, v, "absent"});
    else if (it->second != v) changes.push_back({k, v, it->second});
  }
  for (const auto& [k, v] : y)
    if (!x.count(k)) changes.push_back({k, "absent", v});
  std::sort(changes.begin(), changes.end(), [](const ConfigChange& p, const ConfigChange& q) { return p.key < q.key; });
  return changes;
}

RunConfig load_run_config(const std::string& path) {
  std::string text;
  try {
    text = read_file(path);
  } catch (const std::exception&) {
    throw ConfigError(path + ": cannot open config file");
  }
  // An empty file would be a run of every default, started without a word.
  bool empty = false;
  try {
    empty = YAML::Load(text).IsNull();
  } catch (const std::exception&) {}
  if (empty)
    throw ConfigError(path +
                      ": the config is empty (configs/quickstart.yaml shows every key; `run` without a "
                      "config runs the built-in quickstart)");
  return parse_run_config(text, path);
}

}  // namespace ps
