// Engine commands over the test-vector TSV form (stdin), one output line per input line:
//   replay       winner<TAB>reason<TAB>kicks | ongoing<TAB>mover
//   turns        distinct_turns<TAB>chains for the position after the record
//   perft [D]    perft count (depth from the argument or the 6th column)
// A bad line (a blank one included) prints error<TAB>line N: message and the command goes on;
// only the exact header line is skipped. It then exits with
// status 1 (after the last line) when any line was an error. (show, analyse: cmd_analyse.cpp.)
#include <iostream>
#include <memory>
#include <stdexcept>

#include "apps/commands.h"
#include "core/plural.h"
#include "core/text.h"
#include "engine/record.h"
#include "engine/tsv.h"
#include "engine/turns.h"

namespace ps::cmd {

namespace {

constexpr int kMaxPerftDepth = 12;

// Runs fn(row, game) for each data line of stdin; prints "error<TAB>line N: message" for a bad
// line and goes on. fn prints its own output line. After the last line, throws
// std::runtime_error (exit status 1) when any line was an error.
template <class Fn>
void for_each_tsv_line(std::istream& in, Fn&& fn) {
  std::string line;
  int lineno = 0, lines = 0, errors = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (is_tsv_header(line)) continue;
    ++lines;
    try {
      // A blank line gets its error line too, so that output line k answers input line k.
      if (line.find_first_not_of(" \t") == std::string::npos)
        throw std::invalid_argument("blank line (expected W<TAB>L<TAB>G<TAB>variant<TAB>record)");
      TsvRow row = parse_tsv_row(line);
      fn(row, tsv_row_game(row));
    } catch (const std::exception& e) {
      ++errors;
      std::cout << "error\tline " << lineno << ": " << e.what() << "\n";
    }
    std::cout.flush();
  }
  if (errors > 0)
    throw std::runtime_error(std::to_string(errors) + " of " + counted(lines, "input line") +
                             (errors == 1 ? " was an error" : " were errors") + " (the error lines above)");
}

void register_replay_command(CLI::App& app) {
  auto* replay = app.add_subcommand(
      "replay", "Replay TSV records from stdin: winner\\treason\\tkicks, ongoing\\tmover or error");
  replay->callback([] {
    for_each_tsv_line(std::cin, [](const TsvRow&, const Game& g) {
      const Position& p = g.position();
      if (p.game_over())
        std::cout << p.winner() << '\t' << reason_name(p.reason()) << '\t' << p.num_kicks() << '\n';
      else
        std::cout << "ongoing\t" << p.side_to_move() << '\n';
    });
  });
}

void register_turns_command(CLI::App& app) {
  struct Args {
    bool list_turns = false;
    int64_t max_states = kDefaultPerftStates;
  };
  auto a = std::make_shared<Args>();
  auto* turns = app.add_subcommand(
      "turns", "For each TSV record on stdin print distinct_turns\tchains after it");
  turns->add_flag("--list", a->list_turns, "also print each turn's representative kick string");
  turns
      ->add_option("--max-states", a->max_states,
                   "state limit: mid-turn positions + turn ends held at once (up to about 80 "
                   "bytes each; the default stays under 0.7 GB); a line over it is an error")
      ->check(in_range(int64_t(1), int64_t(1) << 40));
  turns->callback([a] {
    const int64_t max_states = a->max_states;
    TurnGenerator gen;
    gen.set_enumeration_limit(max_states);
    std::string listed;
    for_each_tsv_line(std::cin, [&](const TsvRow&, const Game& g) {
      listed.clear();
      // The kick strings of --list count against the limit too (32 bytes per state).
      const size_t max_listed = size_t(max_states) * 32;
      bool too_long = false;
      auto st = gen.for_each_turn(g.position(), [&](const Position&, const uint8_t* k, int n) {
        if (!a->list_turns || too_long) return;
        if (listed.size() + size_t(n) + 1 > max_listed) {
          too_long = true;
          return;
        }
        listed.push_back('\t');
        for (int i = 0; i < n; ++i) listed.push_back(char('0' + k[i]));
      });
      if (!st.complete || too_long)
        throw StateLimitError("more than " + std::to_string(max_states) +
                              " mid-turn positions and turn ends (--max-states " +
                              std::to_string(max_states) + ", up to about 80 bytes each); no answer");
      std::cout << st.distinct << '\t' << st.chains << listed << '\n';
    });
  });
}

void register_perft_command(CLI::App& app) {
  struct Args {
    int depth = -1;
    int64_t max_states = kDefaultPerftStates;
    double max_seconds = 60;
  };
  auto a = std::make_shared<Args>();
  auto* perft_cmd =
      app.add_subcommand("perft", "For each TSV record on stdin print perft(DEPTH) after it");
  perft_cmd->add_option("depth", a->depth, "depth in turns (default: the 6th column of each line)")
      ->check(in_range(0, kMaxPerftDepth));
  perft_cmd
      ->add_option("--max-states", a->max_states,
                   "state limit: mid-turn positions + turn ends held at once over all "
                   "levels (up to about 80 bytes each; the default stays under 0.7 GB); a line "
                   "over it is an error")
      ->check(in_range(int64_t(1), int64_t(1) << 40));
  perft_cmd
      ->add_option("--max-seconds", a->max_seconds,
                   "time limit of one line, s (a line over it is an error and the next is read; 0: none)")
      ->capture_default_str()
      ->check(in_range(0.0, 1e9));
  perft_cmd->callback([a] {
    for_each_tsv_line(std::cin, [&](const TsvRow& row, const Game& g) {
      int d = a->depth;
      if (d < 0) {
        if (row.extra.empty())
          throw std::invalid_argument("no DEPTH argument and no depth column");
        size_t used = 0;
        try {
          d = std::stoi(row.extra[0], &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != row.extra[0].size() || d < 0)
          throw std::invalid_argument("depth column: " + quoted_text(row.extra[0], 60) +
                                      " is not a depth (an integer >= 0)");
      }
      // Memory is bounded by --max-states; time grows exponentially with the depth, so a depth
      // beyond this would not finish.
      if (d > kMaxPerftDepth)
        throw std::invalid_argument("depth " + std::to_string(d) + " is above the maximum " +
                                    std::to_string(kMaxPerftDepth));
      std::cout << perft(g.position(), d, nullptr, a->max_states, a->max_seconds) << '\n';
    });
  });
}

}  // namespace

void register_engine_commands(CLI::App& app) {
  register_replay_command(app);
  register_turns_command(app);
  register_perft_command(app);
}

}  // namespace ps::cmd
