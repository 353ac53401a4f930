// papersoccer: self-play training toolkit for Paper Soccer. See README.md.
#include <iostream>

#include "apps/commands.h"
#include "loop/players.h"

int main(int argc, char** argv) {
  CLI::App app{"papersoccer: Paper Soccer engine, search and self-play training toolkit"};
  // At most one command; an unknown word is then named ("not expected: nosuch") instead of the
  // misleading "A subcommand is required". No command at all prints the help.
  app.require_subcommand(0, 1);
  ps::register_builtin_players();  // random, greedy, uct, alphabeta, mcts (loop/players.h)
  ps::cmd::register_engine_commands(app);
  ps::cmd::register_analyse_commands(app);
  ps::cmd::register_bench_command(app);
  ps::cmd::register_tournament_command(app);
  ps::cmd::register_play_command(app);
  ps::cmd::register_bench_nn_command(app);
  ps::cmd::register_bench_search_command(app);
  ps::cmd::register_bench_selfplay_command(app);
  ps::cmd::register_report_command(app);
  ps::cmd::register_run_commands(app);
  ps::cmd::register_bot_command(app);
  ps::cmd::register_ladder_command(app);
#ifdef PS_WITH_SERVE
  ps::cmd::register_serve_command(app);
#endif
  ps::cmd::register_value_net_commands(app);
  ps::cmd::register_teacher_command(app);
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) {
      std::cerr << app.help() << "\nerror: a command is required\n";
      return 2;
    }
  } catch (const CLI::ParseError& e) {
    return ps::cmd::usage_exit_status(app, e);
  } catch (const ps::cmd::StoppedOnRequest& s) {
    return s.code;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
