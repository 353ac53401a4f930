// Generation 0 of a run: random weights, or with run.init (loop/run_config.h) the net of a model
// or checkpoint file, so a new run directory continues from a committed model (a run
// carried to another machine, a shipped model trained further). The one place every process of
// a run (`run`, and each role of loop/roles.h) makes checkpoints/gen-0000.ckpt from, through
// open_run_directory.
//
// What gen-0000 keeps of the init file: the net's weights and batch-norm statistics, its
// training step (so a step-based learning-rate schedule goes on where it was) and the pitches
// and variants it lists; not its optimizer state (a model file holds none; the trainer starts
// the optimizer afresh) nor its rating (generation 0 is rated anew in this run). Its note says
// where it came from.
#pragma once

#include <optional>
#include <string>

#include "loop/run_config.h"
#include "nn/checkpoint.h"

namespace ps {

/// run.init's file loaded (on the CPU) and checked against cfg, or nullopt without run.init.
/// Throws ConfigError "<config>: run.init (line N): ..." when the file is missing or damaged
/// (with the checkpoint reader's message, which names the file), when its net's shape differs
/// from train.net (both shapes named), or when it lists pitches or variants that leave out one
/// the run plays (run.pitch, run.variant, selfplay.pitches, selfplay.variants). Writes nothing.
std::optional<nn::LoadedCheckpoint> load_run_init(const RunConfig& cfg);

/// Writes generation 0's checkpoint to `path` atomically: `init`'s net (from load_run_init) or,
/// without one, a new net of train.net seeded by train.seed (write_initial_checkpoint).
void write_generation0(const RunConfig& cfg, const std::string& path,
                       const std::optional<nn::LoadedCheckpoint>& init);

}  // namespace ps
