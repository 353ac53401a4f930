// The main job: a closed self-play -> train -> evaluate loop from one YAML file (`papersoccer
// run CONFIG`; without CONFIG the built-in quickstart, configs/quickstart.yaml).
//
// Each generation g = 1..generations:
//   1. self-play: the best network so far plays selfplay.games games (selfplay/selfplay.h)
//      into RUNDIR/data/gen<g-1>-NNNNNN.psd (+ .tsv records);
//   2. train: the latest network is trained train.steps steps on the replay window of all data
//      (train/trainer.h) -> RUNDIR/checkpoints/gen-<g>.ckpt;
//   3. evaluate: a gauntlet of the new network against the previous one, generation 0 and the
//      random and greedy baselines (tournament/tournament.h) -> RUNDIR/eval/gen-<g>/; the
//      ratings of every network and baseline are recomputed over all evaluation games so far
//      (Bradley-Terry Elo, random = 0) -> RUNDIR/ratings.json; optional gating (KataGo's
//      gatekeeper): the new network becomes the best only if it scores at least
//      gating.threshold against the best network so far, which it then always plays (also
//      when vs_previous is false; with gating off, vs_previous alone decides);
//   4. export: the best network with its rating -> RUNDIR/best.model (for `bot`).
// Self-play and training alternate rather than overlap: on a 2-core machine each phase already
// uses both cores (game threads + the inference service; two intra-op training threads), and
// alternation keeps every generation's data from exactly one network, which makes a killed run
// resume to the same state.
//
// Config on resuming: RUNDIR/config.yaml holds the config the run was started with (updated on
// each accepted change). A changed pitch, variant or net shape is refused; other changes are
// applied, printed, and logged to RUNDIR/logs/config.jsonl (the report lists them); see
// compare_run_configs.
//
// Resuming: every phase checks what RUNDIR already holds (stored self-play games, finished or
// partial checkpoints, finished evaluations), so killing the process at any moment and running
// the same command again continues where it stopped, losing at most the games or training
// steps in progress. RUNDIR/state.json says how far the run got.
//
// Config: see configs/quickstart.yaml (every key commented). Top-level maps: run, service,
// selfplay (selfplay/selfplay.h), train (train/trainer.h), evaluate.
#pragma once

#include <atomic>
#include <cstdint>
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
  int final_games = 40;     ///< games against each opponent in the last generation (even)
  int64_t visits = 32;      ///< search visits per turn of network players
  int openings = 10;        ///< balanced random openings, each played with both colours
  int opening_turns = 2;    ///< random turns per opening
  int concurrency = 4;      ///< games in parallel
  bool vs_previous = true, vs_generation0 = true, vs_random = true, vs_greedy = true;
  bool gating = false;      ///< promote only a network that beats the best so far (played
                            ///< whatever vs_previous says)
  double gating_threshold = 0.55;
  SearchParams search;      ///< search of network players (no noise, temperature 0)
  EvaluateConfig();
};

struct RunConfig {
  std::string name = "run";
  std::string dir;              ///< run directory; default runs/<name>
  int generations = 10;
  int width = 8, length = 10, goal = 2;  ///< pitch of evaluation games and the exported bot
  Variant variant = Variant::kStandard;
  int torch_threads = 0;        ///< at::set_num_threads for the whole process (0 = default)
  nn::ServiceOptions service;   ///< inference service for self-play and evaluation
  SelfplayConfig selfplay;
  TrainConfig train;
  EvaluateConfig evaluate;
  std::string source;           ///< the YAML text the config came from (copied into RUNDIR)
};

/// Parses a run config. Throws ConfigError naming the file, key and line.
RunConfig parse_run_config(const std::string& yaml_text, const std::string& source);
RunConfig load_run_config(const std::string& path);
/// The built-in quickstart config (the text of configs/quickstart.yaml, compiled in).
const std::string& quickstart_config_text();

/// Runs (or resumes) the loop in config.dir. Prints progress to stderr and a summary line per
/// generation to stdout. Stops between games/steps when *cancel becomes true (state is saved;
/// running again resumes). Throws on errors (config, I/O, data), naming what and where.
void run_training_loop(const RunConfig& config, const std::atomic<bool>* cancel = nullptr);

/// One key whose value differs between a run directory's config.yaml and the config given on
/// resuming (old or new_value "absent" when the key is not written).
struct ConfigChange {
  std::string key, old_value, new_value;
};
/// Compares the config a run was started (or last resumed) with and the one given now. Keys that
/// would make the run incoherent (the pitch and variant of evaluation and self-play, the net's
/// shape: run.pitch, run.variant, selfplay.pitches, selfplay.variants, train.net) must keep their
/// values: ConfigError naming every changed one. Every other key may change (evaluation games
/// and opponents, generations, games, steps, threads, devices, ...): returns them, keys as
/// written (a key set to its default counts as changed).
std::vector<ConfigChange> compare_run_configs(const std::string& old_text, const std::string& new_text,
                                              const std::string& old_source);

/// Opponents of generation `generation`'s network in its evaluation gauntlet, in order, given
/// the best network so far: "gen-NNNN" networks, "random", "greedy". With gating the best is
/// always among them (the gate compares with it); each name appears once.
std::vector<std::string> evaluation_opponents(const EvaluateConfig& e, int generation,
                                              const std::string& best);

}  // namespace ps
