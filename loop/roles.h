// The loop's roles as separate long-running processes over one shared run directory
// (loop/run_dir.h), after KataGo's self-play engines, trainer and gatekeeper: any number of
// self-play workers on any machines that mount the directory, one trainer, one gatekeeper,
// started by a scheduler (tools/slurm/, docs/SCALING.md). Only whole files renamed into place
// pass between them (no locks, no file times), and each resumes from the directory alone:
//
//   self-play worker (`selfplay --follow RUNDIR --worker ID`): plays with the best network of
//     state.json into data/genNNNN-ID-SSSSSS.psd (NNNN: finished generations), rewriting the open
//     chunk after every game, so a killed worker loses only its games in flight; when state.json
//     moves to a new generation it finishes its games in flight and starts new ones with the
//     then best network. Ends when state.json says the run is finished (or after max_games).
//     Waits while its own stored self-play is far ahead of the trainer (max_ahead).
//   trainer (`train --follow RUNDIR`): trains generation g from g-1 (train.steps steps,
//     loop/phases.h) -> checkpoints/gen-g.ckpt and models/gen-g.model as soon as the data holds
//     enough new self-play (trainer_ready), else waits. Ends after run.generations candidates.
//   gatekeeper (`gatekeeper RUNDIR`): evaluates each candidate in order against the best so far
//     and the baselines, promotes by the gating rule, rewrites ratings.json, exports best.model
//     and writes state.json; after the last generation it plays the run's verdict (the best
//     network against generation 0, loop/phases.h play_verdict). Ends then ("finished").
// Every role stops between games or steps when *cancel becomes true (the commands set it on
// SIGINT and SIGTERM, as Slurm's scancel sends); starting it again resumes.
// One process per identity: each role first claims `worker-ID`, `trainer` or `gatekeeper` in
// RUNDIR/claims/ (loop/role_claim.h; `run` claims trainer, gatekeeper and selfplay) and throws
// ClaimTaken when a live process holds it; it releases the claim when it ends.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "loop/role_claim.h"
#include "loop/run_config.h"

namespace ps {

/// The rule of worker ids, as check_worker_id's message and `selfplay --worker`'s help state it.
inline constexpr const char* kWorkerIdRule = "1-64 letters, digits, '_' or '.', not starting with '.'";
/// A worker id for chunk names: kWorkerIdRule (so not "." or ".."; no '-': it separates the
/// parts of a chunk name). Throws std::invalid_argument naming the id and the rule otherwise.
void check_worker_id(const std::string& id);
/// "<host>_<pid>" with other characters replaced by '_': unique, but a restarted worker with
/// it starts new chunks rather than continuing its sequence (give --worker for that).
std::string default_worker_id();

/// Options of the role commands.
struct RoleOptions {
  double poll_seconds = 1.0;  ///< seconds between looks at the run directory while waiting
  ClaimOptions claim;         ///< the role's claim: heartbeat interval, stale period
  /// Self-play worker: games this process stores, then it ends (0: no cap). Exact: no new game
  /// starts once max_games are stored or in flight.
  int64_t max_games = 0;
  /// Self-play worker: it waits while its own stored games and samples alone would let the
  /// trainer train max_ahead x (G + 1) generations (trainer_ready), G the newest checkpoint: a
  /// worker without a trainer stores at most max_ahead generations' worth, and one whose
  /// trainer has trained G generations at most max_ahead x (G + 1). 0: never waits.
  int max_ahead = 20;
};

/// Runs a self-play worker until the run is finished, options.max_games games were stored by
/// this process, or *cancel. Prints one line per stored game to stdout ("worker ID: game N
/// stored ...") and its session totals to logs/selfplay-ID.jsonl. Throws ClaimTaken when
/// another live process is worker ID of this run directory.
void run_selfplay_worker(const RunConfig& cfg, const std::string& worker_id, const std::atomic<bool>* cancel,
                         const RoleOptions& options = {});

/// Whether generation g may be trained with `games` games and `samples` samples stored: with
/// train.rows_per_sample r > 0, when r * samples >= g * train.steps * train.batch_size (at most r
/// training rows per self-play row over the run, KataGo's ratio of train rows to new data);
/// with r = 0, when games >= g * selfplay.games (the cadence of `run`).
bool trainer_ready(const RunConfig& cfg, int g, int64_t games, int64_t samples);

/// Runs the trainer until checkpoints/gen-<run.generations>.ckpt exists or *cancel. Throws
/// ClaimTaken when another live process is the run directory's trainer.
void run_trainer(const RunConfig& cfg, const std::atomic<bool>* cancel, const RoleOptions& options = {});

/// Runs the gatekeeper until generation run.generations and the verdict are finished, or
/// *cancel. Throws
/// ClaimTaken when another live process is the run directory's gatekeeper.
void run_gatekeeper(const RunConfig& cfg, const std::atomic<bool>* cancel, const RoleOptions& options = {});

/// Sleeps in slices of at most 100 ms until ready() (checked every poll_seconds) or *cancel;
/// returns ready().
bool wait_until_ready(const std::function<bool()>& ready, double poll_seconds,
                      const std::atomic<bool>* cancel);

}  // namespace ps
