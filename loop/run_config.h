// The run config: one YAML file (`papersoccer run CONFIG`, and the roles of a shared run
// directory, loop/roles.h), its parsing and the rules for changing it within a run.
//
// Config: see configs/quickstart.yaml (every key commented). Top-level maps: run, service,
// selfplay (selfplay/selfplay.h), train (train/trainer.h), evaluate.
//
// Config on resuming: RUNDIR/config.yaml holds the config the run was started with (updated on
// each accepted change). A changed pitch, variant or net shape is refused; other changes are
// applied, printed, and logged to RUNDIR/logs/config.jsonl (the report lists them); see
// compare_run_configs. run.init (generation 0's weights from a model file) cannot change either:
// every later generation descends from the generation 0 the run started with.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/config.h"
#include "nn/service.h"
#include "search/params.h"
#include "selfplay/selfplay.h"
#include "train/trainer.h"

namespace ps {

struct EvaluateConfig {
  int games = 20;           ///< games against each opponent per generation (even)
  /// Games of the run's verdict (even): after the last generation, the best network against
  /// generation 0 (loop/phases.h play_verdict), more games than the per-generation check.
  int final_games = 40;
  int64_t visits = 32;  ///< search visits per turn of network players, 1..kMaxTurnVisits
  /// Random turns per opening. Each pair of games against an opponent has its own opening,
  /// played once with each colour (games / 2 distinct openings): a network player searching a
  /// visit budget is deterministic, so an opening played twice with the same colours repeats
  /// its game and the score would count it twice.
  int opening_turns = 2;
  int concurrency = 4;      ///< games in parallel
  bool vs_previous = true, vs_generation0 = true, vs_random = true, vs_greedy = true;
  bool gating = false;      ///< promote only a network that beats the best so far (played
                            ///< whatever vs_previous says)
  double gating_threshold = 0.55;
  SearchParams search;      ///< search of network players (no noise, temperature 0)
  /// Reference games (selfplay/reference.h): a .psd chunk or a folder of them, on which each
  /// generation's network (and generation 0) is scored: value MSE against the result, early
  /// value MSE, policy top-1 -> logs/reference.jsonl, the generation's line and the report.
  /// A relative path is looked for as repository_file_candidates (core/fileutil.h) says, the
  /// source tree last; parsing stores the path found (else the path as given), and `run` and
  /// the gatekeeper read the games when they start (read_reference_set). Empty: none.
  std::string reference;
  /// Where the key was read: "<config file>: evaluate.reference (line N)", for the errors of
  /// read_reference_set (empty for a config made in code).
  std::string reference_where;
  EvaluateConfig();
};

struct RunConfig {
  std::string name = "run";
  std::string dir;              ///< run directory; default runs/<name>
  /// run.init: a model or checkpoint file (e.g. models/8x10-standard.model, another run's
  /// checkpoints/gen-0012.ckpt) whose net becomes generation 0 of a new run directory instead
  /// of random weights; a path relative to the working directory, as run.dir. Empty: random
  /// weights (train.net seeded by train.seed). Read only while checkpoints/gen-0000.ckpt does
  /// not exist (loop/run_init.h); it cannot change within a run (compare_run_configs).
  std::string init;
  std::string init_where;  ///< "<config>: run.init (line N)", the prefix of init's errors
  int generations = 10;
  int width = 8, length = 10, goal = 2;  ///< pitch of evaluation games and the exported bot
  Variant variant = Variant::kStandard;
  nn::ServiceOptions service;   ///< inference service for self-play and evaluation
  SelfplayConfig selfplay;
  TrainConfig train;
  EvaluateConfig evaluate;
  std::string source;           ///< the YAML text the config came from (copied into RUNDIR)
  /// "<config>: service.device (line N)", "<config>: train.device (line N)" (without the line
  /// when the key is absent): the prefixes of `run`'s refusal of a device the machine lacks.
  std::string service_device_where = "service.device", train_device_where = "train.device";
};

/// Parses a run config. Throws ConfigError naming the file, key and line.
RunConfig parse_run_config(const std::string& yaml_text, const std::string& source);
RunConfig load_run_config(const std::string& path);
/// The built-in quickstart config (the text of configs/quickstart.yaml, compiled in).
const std::string& quickstart_config_text();

/// One key whose value differs between a run directory's config.yaml and the config given on
/// resuming (old or new_value "absent" when the key is not written).
struct ConfigChange {
  std::string key, old_value, new_value;
};
/// Compares the config a run was started (or last resumed) with and the one given now. Keys that
/// would make the run incoherent (the pitch and variant of evaluation and self-play, the net's
/// shape and generation 0's weights: run.pitch, run.variant, selfplay.pitches, selfplay.variants,
/// train.net, run.init, its path compared as written) must keep their values: ConfigError naming
/// every changed one. Every other key may change (evaluation games
/// and opponents, generations, games, steps, threads, devices, ...): returns them, keys as
/// written (a key set to its default counts as changed).
std::vector<ConfigChange> compare_run_configs(const std::string& old_text, const std::string& new_text,
                                              const std::string& old_source);

/// key.path -> value (YAML flow text) for every scalar or sequence of a config: the keys that
/// compare_run_configs reports.
void flatten_config(const YAML::Node& n, const std::string& prefix, std::map<std::string, std::string>& out);
/// Every key whose value differs between two config texts (flatten_config), sorted by key; no
/// rule applied (compare_run_configs adds the resnet learner's, loop/value_net_run.h its own).
std::vector<ConfigChange> changed_config_keys(const std::string& old_text, const std::string& new_text);

/// Opponents of generation `generation`'s network in its evaluation gauntlet, in order, given
/// the best network so far: "gen-NNNN" networks, "random", "greedy". With gating the best is
/// always among them (the gate compares with it); each name appears once.
std::vector<std::string> evaluation_opponents(const EvaluateConfig& e, int generation,
                                              const std::string& best);

}  // namespace ps
