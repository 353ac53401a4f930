// The value-net learner of `run` (`run.learner: value-net`): the loop that makes the small value
// net of the alpha-beta bot (valuenet/value_net.h), from one YAML file, resumable after any kill.
// configs/ship-8x10-value-net.yaml is the recipe of the shipped net; every key is commented there.
//
// Generation 0 is the random evaluation (alpha-beta over uniform noise: its search still sees
// wins and losses) unless run.init names a .vnet. Each generation g = 1..generations:
//   1. teacher games: the best bot so far (alpha-beta with the best net; selfplay/teacher.h) plays
//      itself, selfplay.games games (selfplay.first_games while the best is the random
//      evaluation) into data/teacher-<best>/g<g>-NNNNNN.psd. A teacher that is not replaced
//      keeps its folder, so a rejected candidate's successor trains on more games of it;
//   2. optional relabelling (`relabel.enabled`, selfplay/relabel.h): those games' positions
//      scored by a deeper alpha-beta with the best net -> relabel/teacher-<best>/; training then
//      reads these targets instead of the teacher's own;
//   3. training (train/value_trainer.h): the candidate nets/gen-<g>.vnet from the best net
//      (`train:`; from random weights with the `train_first:` overrides while the best is the
//      random evaluation) on the teacher's folder;
//   4. gating by play: the candidate against the best, both alpha-beta with their own net at
//      gating.time_ms per turn, colour-swapped openings, into gating/gen-<g>/. With rule sprt
//      the match stops as soon as the sequential probability ratio test (Wald 1945; the
//      fishtest / OpenBench test, on the logistic Elo model) accepts H0 (elo <= elo0: rejected)
//      or H1 (elo >= elo1: promoted); after gating.games without a decision, and with rule
//      score, the candidate is promoted when its score is at least gating.threshold;
//   5. for a promoted generation: best.vnet, its single-file bot export/gen-<g>.cpp (compiled
//      with g++ -O2 -std=c++17 when export.compile_check), and its ladder against the fixed
//      yardsticks (ladder.opponents at ladder.time_ms) in ladder/gen-<g>/;
//   6. the generation's line on stdout and in logs/generations.jsonl, state.json, report.html.
// Each step first looks at what the run directory holds (stored games, relabelled chunks, a
// written net, the games of a gating match or ladder and their decision), so a killed run loses
// at most the games or the training in progress: a match goes on with the games it played
// (tour::TournamentSpec::resume). Elo per generation: chained from the gating matches (generation 0 = 0),
// with the 95% interval of each match's score, summed in quadrature along the chain.
// A run directory of this learner holds state.json with "learner": "value-net". Teacher workers
// (run_value_net_teacher_worker, `selfplay --follow RUNDIR`) may play step 1's games beside it.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "core/config.h"
#include "loop/roles.h"
#include "selfplay/relabel.h"
#include "selfplay/selfplay.h"
#include "selfplay/teacher.h"
#include "train/value_trainer.h"

namespace ps {

struct VnetGatingConfig {
  int games = 200;        ///< most games of a gating match (even)
  int64_t time_ms = 100;  ///< per turn, both players (ms)
  int openings = 100;     ///< random openings, each played with both colours
  int opening_turns = 3;
  int concurrency = 2;         ///< games in parallel
  std::string rule = "sprt";   ///< sprt | score
  double elo0 = 0, elo1 = 40;  ///< SPRT hypotheses (Elo of the candidate over the best)
  double alpha = 0.05, beta = 0.05;
  double threshold = 0.5;  ///< the score that promotes (rule score; sprt undecided)
  void validate() const;
};

struct VnetLadderConfig {
  /// Yardsticks (player types of the registry: alphabeta, greedy, uct, random) and
  /// alphabeta-nnue, alpha-beta with the fixed net `value_net`. Empty: no ladder.
  std::vector<std::string> opponents = {"alphabeta", "greedy"};
  std::string value_net;  ///< alphabeta-nnue's .vnet
  int games = 20;         ///< per opponent (even)
  int64_t time_ms = 200;
  int openings = 10, opening_turns = 3, concurrency = 2;
  void validate() const;
};

struct VnetRunConfig {
  std::string name = "value-net", dir;
  int generations = 4;
  int width = 8, length = 10, goal = 2;
  Variant variant = Variant::kStandard;
  std::string init;          ///< generation 0's .vnet; empty: the random evaluation
  SelfplayConfig selfplay;   ///< games per generation, concurrent_games, max_turns, chunks, seed
  int64_t first_games = -1;  ///< games of the random evaluation's teacher (-1: selfplay.games)
  TeacherOptions teacher;    ///< eval and value_net are the loop's (the best bot)
  bool relabel = false;
  RelabelOptions relabel_options;  ///< value_net is the loop's (the best net)
  ValueTrainConfig train, train_first;
  VnetGatingConfig gating;
  VnetLadderConfig ladder;
  bool export_single_file = true, compile_check = true;
  std::string source;  ///< the YAML text
};

/// Whether a run config's YAML says `run.learner: value-net` (a malformed text: false; the
/// ResNet parser then names its error).
bool is_value_net_run_config(const std::string& yaml_text);

/// Parses a value-net run config. Throws ConfigError naming file, key and line.
VnetRunConfig parse_vnet_run_config(const std::string& yaml_text, const std::string& source);

/// SPRT of a match's wins and losses (draws count half each) on the logistic Elo model:
/// the log-likelihood ratio of H1 (elo1) over H0 (elo0).
double sprt_llr(double wins, double losses, double elo0, double elo1);
/// -1: H0 accepted, +1: H1 accepted, 0: go on. Bounds log(beta / (1 - alpha)) and
/// log((1 - beta) / alpha).
int sprt_decision(double llr, double alpha, double beta);

/// Runs (or resumes) the value-net learner in cfg.dir. Progress on stderr, a line per
/// generation on stdout. Stops between games and steps when *cancel becomes true (running it
/// again resumes). Throws on errors, naming what and where.
void run_value_net_loop(const VnetRunConfig& cfg, const std::atomic<bool>* cancel = nullptr);

/// A teacher worker of a value-net run directory (`selfplay --follow RUNDIR` on a run with
/// run.learner value-net; loop/roles.h for the resnet learner's roles): plays the teacher games
/// of the generation state.json says is next (the best bot, the same config, seeds and game
/// count as `run`'s step 1) into the teacher's folder as chunks w-<worker>-gNNNN-SSSSSS.psd,
/// until the folder holds the generation's games from every process; then waits for the next
/// generation. `run` itself plays only the games still missing, and trains on every process's.
/// Ends when the run is finished, after options.max_games games (exact), or on *cancel (after
/// the games in flight). Claims worker-<worker> in RUNDIR/claims/ (ClaimTaken when a live
/// process holds it); std::invalid_argument for a bad worker id. Progress: a line per stored
/// game on stdout.
void run_value_net_teacher_worker(const VnetRunConfig& cfg, const std::string& worker,
                                  const std::atomic<bool>* cancel, const RoleOptions& options);

}  // namespace ps
