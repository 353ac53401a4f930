// The training-run report: one self-contained HTML page (inline CSS and SVG, no scripts, no
// external resources) with the run's header figures, plots of training and self-play, ratings,
// the cross-table, per-generation evaluation scores and a few games drawn as boards.
#pragma once

#include <string>

#include "report/run_data.h"

namespace ps::report {

/// The page for an already loaded run.
std::string render_report_html(const RunData& run);

/// Reads run_dir and writes the page atomically to out_path (default: run_dir/report.html).
/// Returns the path written. Throws ReportError when run_dir is missing or not a run directory,
/// std::runtime_error naming the path when the page cannot be written. Partial runs and
/// unreadable files give a page with what exists and notes about the rest.
/// `loaded`, when given, receives the run as read (its notes and skipped chunks and games).
std::string write_report(const std::string& run_dir, const std::string& out_path = "",
                         RunData* loaded = nullptr);

}  // namespace ps::report
