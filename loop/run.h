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
//      (Bradley-Terry Elo, random = 0, else greedy = 0) -> RUNDIR/ratings.json; optional gating (KataGo's
//      gatekeeper): the new network becomes the best only if it scores at least
//      gating.threshold against the best network so far, which it then always plays (also
//      when vs_previous is false; with gating off, vs_previous alone decides); with
//      evaluate.reference, the network's value MSE and policy top-1 on fixed games of a
//      stronger player (selfplay/reference.h) -> RUNDIR/logs/reference.jsonl;
//   4. export: the best network with its rating -> RUNDIR/best.model (for `bot`).
// After the last generation, the run's verdict: the best network against generation 0 over
// evaluate.final_games games -> RUNDIR/eval/verdict-gen-<g>/, RUNDIR/logs/verdict.jsonl.
// A config naming a device the machine lacks (cuda without CUDA) is refused first.
// Self-play and training alternate rather than overlap: on a 2-core machine each phase already
// uses both cores (game threads + the inference service; two intra-op training threads), and
// alternation keeps every generation's data from exactly one network, which makes a killed run
// resume to the same state. (The roles of loop/roles.h overlap them, for many machines;
// docs/SCALING.md compares the two on a small CPU.)
//
// Resuming: every phase checks what RUNDIR already holds (stored self-play games, finished or
// partial checkpoints, finished evaluations), so killing the process at any moment and running
// the same command again continues where it stopped, losing at most the games or training
// steps in progress. RUNDIR/state.json says how far the run got.
//
// The phases are in loop/phases.h, the config in loop/run_config.h, the directory layout in
// loop/run_dir.h. The same phases run as separate processes over a shared run directory in
// loop/roles.h (self-play workers, trainer, gatekeeper: docs/SCALING.md).
#pragma once

#include <atomic>

#include "loop/run_config.h"

namespace ps {

/// Runs (or resumes) the loop in config.dir. Prints progress to stderr and a summary line per
/// generation to stdout. Stops between games/steps when *cancel becomes true (state is saved;
/// running again resumes). Throws on errors (config, I/O, data), naming what and where.
void run_training_loop(const RunConfig& config, const std::atomic<bool>* cancel = nullptr);

}  // namespace ps
