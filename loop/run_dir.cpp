#include "loop/run_dir.h"

#include <algorithm>
#include <cmath>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "core/fileutil.h"
#include "core/plural.h"
#include "loop/role_claim.h"
#include "loop/roles.h"
#include "loop/run_init.h"

namespace ps {

namespace fs = std::filesystem;
using json = nlohmann::json;

bool is_run_directory_name(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos && name != "." && name != ".." &&
         name.find_first_not_of(" \t") != std::string::npos;
}

std::string gen_name(int g) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "gen-%04d", g);
  return buf;
}

int generation_of(const std::string& name) {
  if (name.size() < 8 || name.size() > 10 || name.rfind("gen-", 0) != 0 ||
      !std::all_of(name.begin() + 4, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  const int g = std::stoi(name.substr(4));
  return g <= kMaxGenerations && gen_name(g) == name ? g : -1;
}

std::string now_iso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

json read_json_file(const std::string& path) {
  try {
    return json::parse(read_file(path));
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": malformed JSON: " + e.what());
  }
}

RunPaths::RunPaths(const std::string& dir) : root(dir) {
  const fs::path r(dir);
  data = (r / "data").string();
  checkpoints = (r / "checkpoints").string();
  models = (r / "models").string();
  eval = (r / "eval").string();
  logs = (r / "logs").string();
  state = (r / "state.json").string();
  config = (r / "config.yaml").string();
  ratings = (r / "ratings.json").string();
  best_model = (r / "best.model").string();
}

std::string RunPaths::checkpoint(int g) const { return checkpoint_of(gen_name(g)); }
std::string RunPaths::checkpoint_of(const std::string& network) const {
  return checkpoints + "/" + network + ".ckpt";
}
std::string RunPaths::outcomes(int g) const { return eval + "/" + gen_name(g) + "/outcomes.json"; }
std::string RunPaths::verdict(int g) const { return eval + "/verdict-" + gen_name(g); }
std::string RunPaths::model(int g) const { return models + "/" + gen_name(g) + ".model"; }

RunState read_run_state(const std::string& path) {
  RunState s;
  if (!fs::exists(path)) return s;
  json j = read_json_file(path);
  // A number that is not a whole one in int's range (1e20, 2.5) is named as written: read as an
  // int it was garbage ("generation" -2147483648 for 1e20).
  if (j.is_object() && j.contains("generation") && j["generation"].is_number() &&
      (!j["generation"].is_number_integer() || j["generation"].get<double>() > kMaxGenerations ||
       j["generation"].get<double>() < 0))
    throw std::runtime_error(path + ": \"generation\" " + j["generation"].dump() + " is not in [0, " +
                             std::to_string(kMaxGenerations) + "]");
  try {
    s.generation = j.value("generation", 0);
    s.best = j.value("best", s.best);
    s.started = j.value("started", std::string());
    s.seconds = j.value("seconds", 0.0);
    s.phase = j.value("phase", std::string());
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": a field of the wrong type (" + e.what() + ")");
  }
  // The state names files inside the run directory: only the names this loop writes.
  if (s.generation < 0 || s.generation > kMaxGenerations)
    throw std::runtime_error(path + ": \"generation\" " + std::to_string(s.generation) + " is not in [0, " +
                             std::to_string(kMaxGenerations) + "]");
  const int best = generation_of(s.best);
  if (best < 0 || best > s.generation)
    throw std::runtime_error(path + ": \"best\" '" + s.best.substr(0, 80) +
                             "' is not a network of this run (gen-0000 to " + gen_name(s.generation) + ")");
  if (!std::isfinite(s.seconds) || s.seconds < 0) s.seconds = 0;
  return s;
}

void write_run_state(const RunState& s, const std::string& path, const std::string& phase) {
  json j = {{"generation", s.generation},
            {"best", s.best},
            {"started", s.started},
            {"seconds", s.seconds},
            {"phase", phase},
            {"updated", now_iso()}};
  write_file_atomic(path, j.dump(2) + "\n");
}

namespace {

// config.yaml of a run that belongs to this process: refuses incoherent changes (before anything
// else is written), records and applies the others.
void update_config_copy(const RunConfig& cfg, const RunPaths& paths, int resumed_generation) {
  if (!fs::exists(paths.config)) {
    write_file_atomic(paths.config, cfg.source);
    return;
  }
  const std::string old_text = read_file(paths.config);
  if (old_text == cfg.source) return;
  const std::vector<ConfigChange> changes = compare_run_configs(old_text, cfg.source, paths.config);
  if (!changes.empty()) {
    json list = json::array();
    std::cerr << "config changed since " << paths.config << " (resuming after generation "
              << resumed_generation << "):\n";
    for (const ConfigChange& c : changes) {
      std::cerr << "  " << c.key << ": " << c.old_value << " -> " << c.new_value << "\n";
      list.push_back({{"key", c.key}, {"old", c.old_value}, {"new", c.new_value}});
    }
    append_line(paths.logs + "/config.jsonl",
                json({{"time", now_iso()}, {"after_generation", resumed_generation}, {"changes", list}}).dump());
  }
  write_file_atomic(paths.config, cfg.source);  // the next resume compares with this one
}

}  // namespace

void open_run_directory(const RunConfig& cfg, bool single_process, int resumed_generation) {
  const RunPaths paths(cfg.dir);
  // A new run's run.init is checked before anything is written: a refused one leaves no
  // config.yaml behind that the corrected config would then differ from.
  const bool new_generation0 = !fs::exists(paths.checkpoint(0));
  const std::optional<nn::LoadedCheckpoint> init = new_generation0 ? load_run_init(cfg) : std::nullopt;
  ensure_directory(paths.root, "the run directory");
  for (const std::string* d : {&paths.data, &paths.checkpoints, &paths.models, &paths.eval, &paths.logs})
    ensure_directory(*d, "a folder of the run directory,");
  if (single_process) {
    // A run killed while writing a file leaves its temporary (the file itself is intact: writes
    // are atomic): `run` clears its own. Self-play workers may run beside it (docs/SCALING.md):
    // their chunks' temporaries and the claims' are theirs (a worker clears its own chunks').
    if (const uint64_t stale = remove_stale_temp_files(paths.root, [](const std::string& name) {
          return !is_claim_file_name(name) && !is_worker_chunk_name(name);
        }))
      std::printf("removed %s left by an interrupted run\n",
                  counted(int64_t(stale), "temporary file").c_str());
    update_config_copy(cfg, paths, resumed_generation);
  }
  if (new_generation0) write_generation0(cfg, paths.checkpoint(0), init);
}

namespace {

// How a role is given the run config (the hints of load_shared_run_config's messages).
const char* const kHowToGiveConfig =
    "the first role started in a run directory brings the run config: `selfplay CONFIG --follow "
    "RUNDIR`, `train CONFIG --follow RUNDIR` or `gatekeeper RUNDIR --config CONFIG`";

}  // namespace

bool is_worker_chunk_name(const std::string& name) {
  // genNNNN-<worker>-SSSSSS.psd / .tsv, where `run` writes genNNNN-SSSSSS.
  return name.rfind("gen", 0) == 0 && std::count(name.begin(), name.end(), '-') >= 2;
}

std::optional<RunConfig> load_shared_run_config(const std::string& run_dir, const std::string& config_path,
                                                int generations, double poll_seconds,
                                                const std::atomic<bool>* cancel) {
  const RunPaths paths(run_dir);
  if (!config_path.empty()) {
    RunConfig given = load_run_config(config_path);
    // A new run's run.init checked before its config.yaml is written (open_run_directory
    // checks it again and makes generation 0 from it).
    if (!fs::exists(paths.checkpoint(0))) load_run_init(given);
    ensure_directory(run_dir, "the run directory");
    if (!create_file_exclusive(paths.config, given.source)) {
      const std::string shared = read_file(paths.config);
      std::vector<ConfigChange> changes;
      try {
        if (shared != given.source) changes = compare_run_configs(shared, given.source, paths.config);
      } catch (const ConfigError& e) {
        throw ConfigError(config_path + " differs from " + paths.config + ": " + e.what());
      }
      if (!changes.empty()) {
        const ConfigChange& c = changes.front();
        throw ConfigError(
            config_path + " differs from " + paths.config + ", the config the run's roles share, at " +
            c.key + " (" + c.old_value + " there, " + c.new_value + " here)" +
            (changes.size() > 1 ? " and " + counted(int64_t(changes.size() - 1), "more key") : "") +
            ": start the role without a config (selfplay and train: no CONFIG argument; "
            "gatekeeper: no --config) to use the run directory's, or put one of the two right");
      }
    }
  } else if (!fs::exists(paths.config)) {
    if (fs::exists(run_dir) && !fs::is_directory(run_dir))  // it would wait forever
      throw ConfigError(run_dir + ": not a directory (a run directory holds config.yaml)");
    if (poll_seconds <= 0) throw ConfigError(paths.config + ": no such file; " + kHowToGiveConfig);
    std::printf("waiting for %s (%s)\n", paths.config.c_str(), kHowToGiveConfig);
    std::fflush(stdout);
    if (!wait_until_ready([&] { return fs::exists(paths.config); }, poll_seconds, cancel))
      return std::nullopt;
  }
  RunConfig cfg = load_run_config(paths.config);
  cfg.dir = run_dir;
  if (generations > 0) cfg.generations = generations;
  return cfg;
}

}  // namespace ps
