// The phases of a generation, shared by `run` (loop/run.h: all four in turn, one process) and
// the roles of a shared run directory (loop/roles.h: each role runs some of them):
//   self-play            play_generation        (`run`; the self-play role plays continuously)
//   train                train_generation       (`run`, trainer role)
//   evaluate             evaluate_generation    (`run`, gatekeeper role)
//   promote and export   promote_and_export     (`run`, gatekeeper role)
// and after the last generation the run's verdict, play_verdict (`run`, gatekeeper role).
// Each phase first checks what the run directory already holds, so a killed process resumes
// losing at most the games or training steps in progress.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loop/role_claim.h"
#include "loop/run_config.h"
#include "loop/run_dir.h"

namespace ps {

/// One process's view of a run: its config, paths, and (for `run` and the gatekeeper, which own
/// state.json) the state. Not thread-safe: one per process.
struct RunContext {
  const RunConfig& cfg;
  RunPaths paths;
  RunState state;
  const std::atomic<bool>* cancel = nullptr;
  bool owns_state = false;  ///< `run` and the gatekeeper write state.json; the others read it
  /// The process's claims (loop/role_claim.h), checked before each file a phase writes (and
  /// after each game and training log line, inside the library loops); null: none held.
  const RoleClaims* claims = nullptr;
  /// evaluate.reference's games of the run's rules (read_reference_set); empty: none.
  std::vector<GameData> reference_games;
  /// Their identity in logs/reference.jsonl: FNV-1a 64 of their records, in hex. A line of
  /// other games (a changed evaluate.reference) does not count as scored, wherever the
  /// folder was found from.
  std::string reference_checksum;

  RunContext(const RunConfig& config, const std::atomic<bool>* cancel_flag, bool writes_state);
  /// Wall time of the run so far: state.seconds at the start of this process plus this call's.
  double elapsed() const;
  bool stopped() const { return cancel && cancel->load(); }
  /// Throws ClaimLost when another process took one of `claims` over.
  void verify_claims() const {
    if (claims) claims->verify();
  }
  /// verify_claims(), ending the process at once on ClaimLost (for callbacks of library loops).
  void verify_claims_or_exit() const {
    if (claims) claims->verify_or_exit();
  }
  /// state.json with `phase` (a no-op when the process does not own it), after verify_claims().
  void save_state(const std::string& phase);

 private:
  std::chrono::steady_clock::time_point t_start_;
  double base_seconds_ = 0;
};

/// One line of logs/selfplay*.jsonl: a self-play session's totals so far.
nlohmann::json selfplay_log_line(int generation, const std::string& network,
                                 const std::string& session, bool final, const SelfplayStats& st);

/// `run`'s self-play of generation g: selfplay.games games with the best network into
/// data/gen<g-1>-*.psd (those already stored count). False when stopped.
bool play_generation(RunContext& ctx, int g);

/// Samples in the chunks data_dir/<prefix>-*.psd.
int64_t samples_with_prefix(const std::string& data_dir, const std::string& prefix);
/// Steps of a generation's training: train.steps, capped by train.rows_per_sample training rows
/// per new sample (deterministic from the stored data, so a resumed generation trains the same).
int64_t generation_steps(const TrainConfig& t, int64_t new_samples);

/// Trains generation g's network from generation g-1's for `steps` steps on the replay window
/// of data/ -> checkpoints/gen-g.ckpt (resuming a partial checkpoint). True when it exists.
bool train_generation(RunContext& ctx, int g, int64_t steps);

/// The gauntlet of generation g's network against its opponents (evaluation_opponents) ->
/// eval/gen-g/outcomes.json with the gating decision against ctx.state.best. Games an earlier,
/// stopped call left in eval/gen-g/games.tsv are kept, not played again. True when the outcomes
/// exist (false when stopped with games left). Throws ConfigError when every opponent is
/// switched off.
bool evaluate_generation(RunContext& ctx, int g);

/// evaluate.reference's games of the run's pitch and variant, and their checksum (the fields
/// of RunContext of the same names).
struct ReferenceSet {
  std::vector<GameData> games;
  std::string checksum;
};
/// Reads cfg.evaluate.reference's games (an empty set without the key). `run` and the gatekeeper
/// call it first, before they claim or write anything in the run directory. Throws
/// std::runtime_error "<config file>: evaluate.reference (line N): ..." naming the path when it
/// is missing, unreadable, or holds no game of the run's rules.
ReferenceSet read_reference_set(const RunConfig& cfg);

/// After generation g's evaluation: promotes it (by the stored gating decision), rewrites
/// ratings.json over every evaluation game, scores generations 0..g not scored yet on the
/// reference games (evaluate.reference) into logs/reference.jsonl, prints the generation's
/// line, appends it to
/// logs/generations.jsonl, exports the best network to best.model, marks the generation
/// finished in state.json and writes the report.
void promote_and_export(RunContext& ctx, int g);

/// The run's verdict, after its last finished generation N (ctx.state.generation): the best
/// network (ctx.state.best, the one best.model holds) against generation 0 at the evaluation
/// search, evaluate.final_games games (each opening once per colour) -> eval/verdict-gen-N/
/// (games.tsv, outcomes.json) and a line of logs/verdict.jsonl; ratings.json and best.model's
/// rating then count its games too. In a gated run the best may be an earlier generation than
/// N. Nothing is played when the best is generation 0. Games a stopped call left are kept,
/// not played again. True when the outcomes exist (false when stopped with games left).
bool play_verdict(RunContext& ctx);

/// The end of `run` and of the gatekeeper: the verdict once the last generation is done
/// (play_verdict; also for a run that finished before it was played), then state.json's phase:
/// finished, stopped (games left) or interrupted. True when the run is finished.
bool finish_run(RunContext& ctx);

/// report.html written again (report/report.h); a failure is a warning on stderr, not an error:
/// the run's files stand without it. Its path, or empty when it was not written.
std::string write_report_or_warn(const std::string& run_dir);

/// best.model written again from the best network's checkpoint (ctx.state.best), rated over
/// every evaluation game of the run (a finished run's best.model that does not load).
void rewrite_best_model(const RunContext& ctx);

}  // namespace ps
