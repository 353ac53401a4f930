// Engine commands over the test-vector TSV form (stdin) and single records:
//   replay       per line: winner<TAB>reason<TAB>kicks | ongoing<TAB>mover | error<TAB>message
//   turns        per line: distinct_turns<TAB>chains for the position after the record
//   perft [D]    per line: perft count (depth from the argument or the 6th column)
//   show         ASCII board (and optional SVG) of a record or PGN file
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "apps/commands.h"
#include "engine/record.h"
#include "engine/render.h"
#include "engine/tsv.h"
#include "engine/turns.h"

namespace ps::cmd {

namespace {

constexpr int kMaxPerftDepth = 12;

// Runs fn(row, game) for each data line of stdin; prints "error<TAB>message" for a bad line and
// goes on. fn prints its own output line.
template <class Fn>
void for_each_tsv_line(std::istream& in, Fn&& fn) {
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || is_tsv_header(line)) continue;
    try {
      TsvRow row = parse_tsv_row(line);
      const Pitch& pitch = Pitch::get(row.width, row.length, row.goal);
      Game game = parse_record(pitch, row.variant, row.record);
      fn(row, game);
    } catch (const std::exception& e) {
      std::cout << "error\tline " << lineno << ": " << e.what() << "\n";
    }
    std::cout.flush();
  }
}

struct PositionArgs {
  std::string pitch = "8x10";
  int goal = 2;
  std::string variant = "standard";
  std::string record;
  std::string kicks;
  std::string pgn;
  int pgn_index = 1;
};

const Pitch& pitch_from(const std::string& spec, int goal) {
  int w = 0, l = 0;
  char x = 0;
  std::istringstream ss(spec);
  if (!(ss >> w >> x >> l) || (x != 'x' && x != 'X') || !ss.eof())
    throw std::invalid_argument("--pitch '" + spec + "': expected WxL, e.g. 8x10");
  return Pitch::get(w, l, goal);
}

Game game_from(const PositionArgs& a) {
  const Pitch& pitch = pitch_from(a.pitch, a.goal);
  Variant v = parse_variant(a.variant);
  if (!a.pgn.empty()) {
    std::ifstream f(a.pgn);
    if (!f) throw std::runtime_error("cannot open PGN file '" + a.pgn + "'");
    auto games = read_pgn(f, a.pgn, pitch, v);
    if (a.pgn_index < 1 || a.pgn_index > int(games.size()))
      throw std::runtime_error(a.pgn + ": has " + std::to_string(games.size()) +
                               " game(s), asked for game " + std::to_string(a.pgn_index));
    return games[size_t(a.pgn_index - 1)].game;
  }
  if (!a.kicks.empty()) return parse_kicks(pitch, v, a.kicks);
  return parse_record(pitch, v, a.record);
}

}  // namespace

void add_position_options(CLI::App* c, PositionArgs& a) {
  c->add_option("--pitch", a.pitch, "pitch size WxL (8x10, 8x12, ...)")->capture_default_str();
  c->add_option("--goal", a.goal, "goal width G")->capture_default_str();
  c->add_option("--variant", a.variant, "standard | single-bounce | no-bounce")
      ->capture_default_str();
  c->add_option("--record", a.record, "game record: turns of digits separated by spaces");
  c->add_option("--kicks", a.kicks, "flat list of kick digits, split into turns by the rules");
  c->add_option("--pgn", a.pgn, "PGN-like file with tags and numbered turns");
  c->add_option("--game", a.pgn_index, "which game of the PGN file (1-based)");
}

void register_engine_commands(CLI::App& app) {
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

  auto* turns = app.add_subcommand(
      "turns", "For each TSV record on stdin print distinct_turns\\tchains after it");
  static bool list_turns = false;
  turns->add_flag("--list", list_turns, "also print each turn's representative kick string");
  turns->callback([] {
    TurnGenerator gen;
    for_each_tsv_line(std::cin, [&](const TsvRow&, const Game& g) {
      if (!list_turns) {
        auto st = gen.count(g.position());
        std::cout << st.distinct << '\t' << st.chains << '\n';
        return;
      }
      TurnGenerator::Stats st;
      auto list = gen.generate(g.position(), &st);
      std::cout << st.distinct << '\t' << st.chains;
      for (auto& t : list) std::cout << '\t' << t.kicks;
      std::cout << '\n';
    });
  });

  auto* perft_cmd =
      app.add_subcommand("perft", "For each TSV record on stdin print perft(DEPTH) after it");
  static int depth = -1;
  perft_cmd->add_option("depth", depth, "depth in turns (default: the 6th column of each line)")
      ->check(CLI::Range(0, kMaxPerftDepth));
  perft_cmd->callback([] {
    for_each_tsv_line(std::cin, [&](const TsvRow& row, const Game& g) {
      int d = depth;
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
          throw std::invalid_argument("depth column: '" + row.extra[0] +
                                      "' is not a depth (an integer >= 0)");
      }
      // Each level keeps its children in memory and the count grows exponentially: a depth
      // beyond this would exhaust memory long before it finished.
      if (d > kMaxPerftDepth)
        throw std::invalid_argument("depth " + std::to_string(d) + " is above the maximum " +
                                    std::to_string(kMaxPerftDepth));
      std::cout << perft(g.position(), d) << '\n';
    });
  });

  static PositionArgs show_args;
  static std::string svg_out;
  static bool coords = false;
  auto* show = app.add_subcommand("show", "Print the ASCII board of a position; optionally SVG");
  add_position_options(show, show_args);
  show->add_option("--svg", svg_out, "write an SVG picture to this file");
  show->add_flag("--coords", coords, "label coordinates in the SVG");
  show->callback([] {
    Game g = game_from(show_args);
    std::cout << render_ascii(g.position());
    if (!svg_out.empty()) {
      SvgOptions o;
      o.show_coordinates = coords;
      std::ofstream f(svg_out);
      if (!f) throw std::runtime_error("cannot write '" + svg_out + "'");
      f << render_svg(g, o);
      std::cout << "wrote " << svg_out << "\n";
    }
  });
}

}  // namespace ps::cmd
