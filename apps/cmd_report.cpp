// `papersoccer report RUNDIR`: writes RUNDIR/report.html, one self-contained HTML page about a
// training run (plots, ratings, cross-table, evaluation scores, games drawn as boards). Works on
// a finished run, a running one and one stopped early; see report/report.h.
#include <iostream>
#include <memory>

#include "apps/commands.h"
#include "core/plural.h"
#include "report/report.h"
#include "report/value_net_report.h"

namespace ps::cmd {

namespace {

struct ReportArgs {
  std::string run_dir, out;
};

// Writes the page; what could not be read goes to stderr, as `train` reports a chunk it skips
// (one warning line each, then the count of data left out of the self-play figures).
void run_report(const ReportArgs& a) {
  if (report::is_value_net_run(a.run_dir)) {  // the value-net learner's run (loop/value_net_run.h)
    std::cout << "Wrote " << report::write_value_net_report(a.run_dir, a.out) << "\n";
    return;
  }
  report::RunData run;
  const std::string path = report::write_report(a.run_dir, a.out, &run);
  for (const std::string& note : run.notes) std::cerr << "warning: " << note << "\n";
  if (run.chunks_skipped || run.games_skipped)
    std::cerr << "warning: the self-play counts leave out "
              << counted(run.chunks_skipped, "unreadable data chunk") << " and "
              << counted(run.games_skipped, "game that is not a legal game", "games that are not legal games")
              << " (the page's notes list them)\n";
  std::cout << "Wrote " << path << "\n";
}

}  // namespace

void register_report_command(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  auto* c = app.add_subcommand("report",
                               "Write RUNDIR/report.html: plots of training and self-play, Elo ratings, the "
                               "cross-table and example games of a training run");
  c->add_option("RUNDIR", args->run_dir, "the run directory (the training loop's output)")->required();
  c->add_option("-o,--out", args->out, "where to write the page (default RUNDIR/report.html)");
  c->callback([args] { run_report(*args); });
}

}  // namespace ps::cmd
