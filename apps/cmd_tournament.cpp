// `papersoccer tournament CONFIG`: runs a tournament from a YAML config (see
// configs/tournament.yaml and tournament/tournament.h), printing one line per finished game and
// then the ratings table and cross-table. Ctrl-C stops after the running games and still
// reports the games played.
#include <atomic>
#include <csignal>
#include <iomanip>
#include <iostream>

#include "apps/commands.h"
#include "core/plural.h"
#include "tournament/results.h"
#include "tournament/tournament.h"
#include "tournament/tournament_config.h"

namespace ps::cmd {

namespace {

std::atomic<bool> g_cancel{false};

extern "C" void on_interrupt(int) {
  g_cancel = true;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the program at once
}

}  // namespace

void register_tournament_command(CLI::App& app) {
  struct Args {
    std::string config;
    int concurrency = 0;
    std::string out_dir;
    bool quiet = false;
    bool list_types = false;
  };
  auto args = std::make_shared<Args>();
  auto* c = app.add_subcommand("tournament",
                               "Play a tournament (round robin or gauntlet) from a YAML config; "
                               "print Elo ratings and a cross-table");
  c->add_option("config", args->config, "tournament config file (YAML)");
  c->add_option("--concurrency", args->concurrency, "games at the same time (>= 1; overrides the config)")
      ->check(integer_at_least(1));
  c->add_option("--out", args->out_dir, "output directory (overrides out_dir of the config)");
  c->add_flag("--quiet", args->quiet, "no line per game");
  c->add_flag("--list-types", args->list_types, "list the registered player types and exit");
  c->callback([args] {
    using namespace ps::tour;
    if (args->list_types) {
      for (auto& [type, desc] : player_types()) std::cout << std::left << std::setw(12) << type << " " << desc << "\n";
      return;
    }
    if (args->config.empty()) throw CLI::RequiredError("config");
    TournamentConfig cfg = load_tournament_config(args->config);
    if (args->concurrency > 0) cfg.spec.concurrency = args->concurrency;
    if (!args->out_dir.empty()) cfg.spec.out_dir = args->out_dir;
    std::signal(SIGINT, on_interrupt);
    std::vector<std::string> names;
    for (const PlayerSpec& p : cfg.players) names.push_back(p.name.empty() ? p.type : p.name);
    TournamentResult r = run_tournament(cfg.spec, cfg.players, [&](const GameResult& g, int done, int total) {
      if (args->quiet) return;
      std::cout << "[" << done << "/" << total << "] game " << g.index + 1 << ": " << names[size_t(g.seat[0])]
                << " vs " << names[size_t(g.seat[1])] << ": " << names[size_t(g.winner)] << " wins by "
                << g.termination << (g.detail.empty() ? "" : " (" + g.detail + ")") << ", "
                << counted(g.turns, "turn") << "\n"
                << std::flush;
    }, &g_cancel);
    std::signal(SIGINT, SIG_DFL);
    std::cout << "\n" << format_results(r);
    if (!cfg.spec.out_dir.empty())
      std::cout << "Wrote games.pgn, games.tsv, games.csv, ratings.csv, crosstable.csv, results.json to "
                << cfg.spec.out_dir << "\n";
  });
}

}  // namespace ps::cmd
