// The report of a value-net run (loop/value_net_run.h): one self-contained HTML page from the
// run directory's logs/generations.jsonl and state.json (without it, the best net and the wall
// time come from the last generation's line): Elo per generation with its interval, each gating
// match (score, Wilson interval, LLR, decision), each promoted net's ladder against the fixed
// yardsticks, its single-file bot, and the teacher games to replay.
#pragma once

#include <string>

namespace ps::report {

/// Whether run_dir/state.json says the run is a value-net learner's; without state.json (a run
/// record kept as config, logs and report), whether config.yaml's run.learner is value-net.
bool is_value_net_run(const std::string& run_dir);

/// Reads run_dir and writes the page atomically to out_path (default: run_dir/report.html).
/// Returns the path written. Throws std::runtime_error naming the file that cannot be read
/// (a generations.jsonl line that is not JSON is named by its line number).
std::string write_value_net_report(const std::string& run_dir, const std::string& out_path = "");

}  // namespace ps::report
