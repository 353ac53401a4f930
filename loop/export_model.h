// A run's network as a model file for `bot`: the checkpoint's net without optimizer state, with
// the run's pitch and variant (when the checkpoint records none), its rating and a note
// "<run name> gen-NNNN". Written atomically (nn/checkpoint.h).
#pragma once

#include <string>

#include "loop/run_config.h"

namespace ps {

/// Throws CheckpointError naming the file when `checkpoint` does not load.
void export_run_model(const std::string& checkpoint, const std::string& out, const RunConfig& cfg,
                      double elo, double ci95);

}  // namespace ps
