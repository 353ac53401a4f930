// `papersoccer report RUNDIR`: writes RUNDIR/report.html, one self-contained HTML page about a
// training run (plots, ratings, cross-table, evaluation scores, games drawn as boards). Works on
// a finished run, a running one and one stopped early; see report/report.h.
#include <iostream>
#include <memory>

#include "apps/commands.h"
#include "report/report.h"

namespace ps::cmd {

void register_report_command(CLI::App& app) {
  struct Args {
    std::string run_dir, out;
  };
  auto args = std::make_shared<Args>();
  auto* c = app.add_subcommand("report",
                               "Write RUNDIR/report.html: plots of training and self-play, Elo ratings, the "
                               "cross-table and example games of a training run");
  c->add_option("RUNDIR", args->run_dir, "the run directory (the training loop's output)")->required();
  c->add_option("-o,--out", args->out, "where to write the page (default RUNDIR/report.html)");
  c->callback([args] {
    const std::string path = report::write_report(args->run_dir, args->out);
    std::cout << "Wrote " << path << "\n";
  });
}

}  // namespace ps::cmd
