// Looking at one position of a game record:
//   show      ASCII board (and optional SVG) of a position of a record, kick list, TSV row or PGN
//   analyse   the same, plus with --model the network's raw value and turn priors and a PUCT
//             search (value, visits, priors, Q of the top turns); --raw prints the network's
//             numbers only, with 9 significant digits, so two models can be compared exactly
// Both take the same inputs and pick any position of the game with --turn N (after N complete
// turns) or --kick K (after K kicks); the default is the final position.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "apps/commands.h"
#include "core/plural.h"
#include "core/text.h"
#include "engine/record.h"
#include "engine/render.h"
#include "engine/tsv.h"
#include "nn/checkpoint.h"
#include "nn/turn_priors.h"
#include "search/alphabeta.h"
#include "search/analysis.h"
#include "search/leaf_evals.h"
#include "search/mcts.h"

namespace ps::cmd {

namespace {

// Where the game comes from: exactly one of record, kicks, tsv, pgn (none: the start position).
struct PositionArgs {
  std::string pitch = "8x10";
  int goal = 2;
  std::string variant = "standard";
  std::string record;
  std::string kicks;
  std::string tsv;  // one test-vector line, or "-": the first data line of stdin
  std::string pgn;
  int pgn_index = 1;
  int turn = -1;  // after this many complete turns (-1: not given)
  int kick = -1;  // after this many kicks (-1: not given)
  // Set when the options are registered; count() > 0 when given on the command line.
  const CLI::Option* pitch_opt = nullptr;
  const CLI::Option* goal_opt = nullptr;
  const CLI::Option* variant_opt = nullptr;
};

void add_position_options(CLI::App* c, PositionArgs& a) {
  // A --tsv row and PGN tags carry their own rules: given explicitly, these must agree.
  a.pitch_opt = c->add_option("--pitch", a.pitch,
                              "pitch size WxL (8x10, 8x12, ...); with --tsv "
                              "or --pgn it must agree with the input's")
                    ->capture_default_str()
                    ->check(pitch_check());
  a.goal_opt = c->add_option("--goal", a.goal, "goal width G")->capture_default_str();
  a.variant_opt = c->add_option("--variant", a.variant, "standard | single-bounce | no-bounce")
                      ->capture_default_str()
                      ->check(variant_check());
  auto* record = c->add_option("--record", a.record, "game record: turns of digits separated by spaces");
  auto* kicks = c->add_option("--kicks", a.kicks, "flat list of kick digits, split into turns by the rules");
  auto* tsv = c->add_option("--tsv", a.tsv,
                            "one test-vector line W<TAB>L<TAB>G<TAB>variant<TAB>record (as `replay` "
                            "reads), or - for the first data line of stdin");
  auto* pgn = c->add_option("--pgn", a.pgn, "PGN-like file with tags and numbered turns");
  c->add_option("--game", a.pgn_index, "which game of the PGN file (1-based)")
      ->capture_default_str()
      ->check(integer_at_least(1))
      ->needs(pgn);
  record->excludes(kicks)->excludes(tsv)->excludes(pgn);
  kicks->excludes(tsv)->excludes(pgn);
  tsv->excludes(pgn);
  auto* turn = c->add_option("--turn", a.turn, "the position after this many complete turns "
                                               "(default: the final position)")
                   ->check(integer_at_least(0));
  c->add_option("--kick", a.kick, "the position after this many kicks (default: the final position)")
      ->check(integer_at_least(0))
      ->excludes(turn);
}

// The first data line of `in` (blank lines and the header skipped).
std::string first_tsv_line(std::istream& in) {
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && !is_tsv_header(line)) return line;
  }
  throw std::runtime_error("--tsv -: no data line on stdin");
}

// A game read from a TSV row or a PGN file carries its own rules. Pitch, goal or variant given
// explicitly on the command line must agree with them: a silent override would show another
// game than the user asked for.
void check_explicit_rules(const PositionArgs& a, const Game& g, const std::string& source,
                          const std::string& whose) {
  const Pitch& p = g.start().pitch();
  const auto given = [](const CLI::Option* o) { return o && o->count() > 0; };
  const auto fail = [&](const std::string& what, const std::string& option, const std::string& value) {
    throw std::invalid_argument(source + " is " + what + ", but " + option + " " + value +
                                " was given; leave " + option + " out to use " + whose);
  };
  if (given(a.pitch_opt)) {
    const PitchChoice want =
        pitch_option_spec(a.pitch);  // the size, and a goal only where the spec names one
    if (want.width != p.width() || want.length != p.length() ||
        (pitch_spec_has_goal(a.pitch) && want.goal != p.goal()))
      fail("on pitch " + p.name(), "--pitch", a.pitch);
  }
  if (given(a.goal_opt) && a.goal != p.goal())
    fail("played with goal width " + std::to_string(p.goal()), "--goal", std::to_string(a.goal));
  if (given(a.variant_opt) && parse_variant(a.variant) != g.start().variant())
    fail(std::string("variant ") + variant_name(g.start().variant()), "--variant", a.variant);
}

Game game_from(const PositionArgs& a) {
  if (!a.tsv.empty()) {
    const std::string line = a.tsv == "-" ? first_tsv_line(std::cin) : a.tsv;
    Game g = tsv_row_game(parse_tsv_row(line));
    check_explicit_rules(a, g, "the --tsv row", "the row's columns");
    return g;
  }
  const Pitch& pitch = pitch_option(a.pitch, a.goal);
  const Variant v = parse_variant(a.variant);
  if (!a.pgn.empty()) {
    std::ifstream f(a.pgn);
    if (!f) throw std::runtime_error("cannot open PGN file " + quoted_text(a.pgn));
    auto games = read_pgn(f, a.pgn, pitch, v);
    if (a.pgn_index > int(games.size()))
      throw std::runtime_error(a.pgn + ": has " + counted(int64_t(games.size()), "game") +
                               ", asked for game " + std::to_string(a.pgn_index));
    const PgnGame& pg = games[size_t(a.pgn_index - 1)];
    check_explicit_rules(a, pg.game, a.pgn + ":" + std::to_string(pg.line) + ": game " +
                                         std::to_string(a.pgn_index), "the file's tags");
    return pg.game;
  }
  if (!a.kicks.empty()) return parse_kicks(pitch, v, a.kicks);
  return parse_record(pitch, v, a.record);
}

// The game cut after --turn complete turns or --kick kicks (the whole game when neither is
// given). Throws std::out_of_range naming the index and the record's length.
Game select_position(const Game& full, const PositionArgs& a) {
  if (a.turn < 0 && a.kick < 0) return full;
  Game g(full.start().pitch(), full.start().variant());
  if (a.turn >= 0) {
    const int n = full.num_complete_turns();
    if (a.turn > n)
      throw std::out_of_range("--turn " + std::to_string(a.turn) + " is out of range: the record has " +
                              counted(n, "complete turn") + ", so 0.." + std::to_string(n));
    for (int i = 0; i < a.turn; ++i) g.play_turn(full.turns()[size_t(i)]);
    return g;
  }
  const int n = int(full.kicks().size());
  if (a.kick > n)
    throw std::out_of_range("--kick " + std::to_string(a.kick) + " is out of range: the record has " +
                            counted(n, "kick") + ", so 0.." + std::to_string(n));
  for (int i = 0; i < a.kick; ++i) g.kick(full.kicks()[size_t(i)].dir);
  return g;
}

// Options of show and analyse.
struct ViewArgs {
  PositionArgs pos;
  std::string svg;
  bool coords = false;
};

// Options of analyse only.
struct ModelArgs {
  std::string model;
  std::string device = "cpu";
  int64_t visits = 400;
  int top = 10;
  bool raw = false;
  bool no_model = false;
  int64_t alphabeta_ms = 0;     // > 0: also an alpha-beta search of this many ms
  int64_t alphabeta_nodes = 0;  // > 0: ... of this many nodes (deterministic)
  std::string
      value_net;  // its evaluation: a .vnet, "hand", "none" (random), or "" (the shipped .vnet, else hand)
};

void add_view_options(CLI::App* c, ViewArgs& a) {
  add_position_options(c, a.pos);
  c->add_option("--svg", a.svg, "write an SVG picture of the position to this file");
  c->add_flag("--coords", a.coords, "label coordinates in the SVG");
}

// Writes the SVG of g's position to a.svg; says so on stdout when `announce`.
void write_svg(const Game& g, const ViewArgs& a, bool announce = true) {
  SvgOptions o;
  o.show_coordinates = a.coords;
  std::ofstream f(a.svg);
  if (f) f << render_svg(g, o);
  if (!f) throw std::runtime_error("cannot write SVG file " + quoted_text(a.svg));
  if (announce) std::cout << "wrote " << a.svg << "\n";
}

std::string list_or_any(const std::vector<std::string>& v) {
  if (v.empty()) return "any";
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// "after 5 of 24 turns (12 of 47 kicks)".
std::string where_text(const Game& g, const Game& full) {
  return "after " + std::to_string(g.num_complete_turns()) + " of " +
         counted(full.num_complete_turns(), "turn") + " (" + std::to_string(g.kicks().size()) + " of " +
         counted(int64_t(full.kicks().size()), "kick") + ")";
}

std::string signed_text(double v, int decimals = 4) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.*f", decimals, v);
  return buf;
}

// The model's description, checked against the position's rules: a missing, corrupt or other
// rules' model is an error.
nn::CheckpointMeta analysis_model_meta(const Position& pos, const ModelArgs& a) {
  const nn::CheckpointMeta meta = nn::read_checkpoint_meta(a.model);
  if (!meta.supports(pos.pitch(), pos.variant()))
    throw std::invalid_argument("model " + a.model + " is for pitches " + list_or_any(meta.pitches) +
                                " and variants " + list_or_any(meta.variants) +
                                "; the position is on " + pos.pitch().name() + " " +
                                variant_name(pos.variant()));
  return meta;
}

// The network's value and turn priors (raw), then the search, for pos (a turn start); meta:
// the model's, from analysis_model_meta.
void analyse_with_model(const Position& pos, const ModelArgs& a, const nn::CheckpointMeta& meta) {
  nn::ServiceOptions so;
  so.device = a.device;
  so.max_batch = 1;  // one search thread: a request never waits for a batch to fill
  auto eval = nn::make_net_evaluator(a.model, so);

  // The search's defaults (one thread, no root noise); the turns are generated (and their priors
  // computed) as the search does at its root: same options, priors not renormalised.
  const SearchParams sp;
  const NetworkView priors = network_view(*eval, pos, sp);

  if (a.raw) {
    std::printf("value\t%.9g\n", double(priors.value));
    for (const Turn& t : priors.turns) std::printf("turn\t%s\t%.9g\n", t.kicks.c_str(), double(t.prior));
    return;
  }
  const int mover = pos.side_to_move();
  std::printf("model: %s (net %s, step %lld, pitches %s, variants %s) on %s\n", a.model.c_str(),
              meta.net.summary().c_str(), (long long)meta.training_step,
              list_or_any(meta.pitches).c_str(), list_or_any(meta.variants).c_str(),
              a.device.c_str());
  std::printf("network: value %s for player %d (the side to move; +1 = a win), %zu turns generated%s\n",
              signed_text(priors.value).c_str(), mover, priors.turns.size(),
              priors.complete ? " (all)" : "");
  const size_t top = size_t(a.top);
  if (a.visits == 0) {
    std::vector<Turn> by_prior = priors.turns;
    std::stable_sort(by_prior.begin(), by_prior.end(),
                     [](const Turn& x, const Turn& y) { return x.prior > y.prior; });
    std::printf("%4s  %-16s %8s\n", "#", "turn", "prior");
    for (size_t i = 0; i < std::min(top, by_prior.size()); ++i)
      std::printf("%4zu  %-16s %8.4f\n", i + 1, by_prior[i].kicks.c_str(), double(by_prior[i].prior));
    return;
  }

  Search search(*eval, sp, 1);
  SearchLimits lim;
  lim.visits = a.visits;
  const SearchResult r = search.run(pos, lim);
  std::string pv;
  for (const std::string& t : r.principal_variation) pv += (pv.empty() ? "" : " ") + t;
  std::printf("search: %lld visits in %.2f s, value %s for player %d%s, best turn %s, "
              "principal variation: %s\n",
              (long long)r.new_visits, r.elapsed_ms / 1000.0, signed_text(r.root_value).c_str(),
              mover, r.root_proven > 0 ? " (proven win)" : r.root_proven < 0 ? " (proven loss)" : "",
              r.best_turn.c_str(), pv.c_str());
  const std::vector<AnalysedTurn> kids = ranked_turns(r, search, top, 0);
  std::printf("%4s  %-16s %8s %8s %8s  %s\n", "#", "turn", "visits", "prior", "Q", "proven");
  for (size_t i = 0; i < kids.size(); ++i) {
    const RootChild& c = kids[i].stats;
    std::printf("%4zu  %-16s %8lld %8.4f %8s%s\n", i + 1, c.kicks.c_str(), (long long)c.visits,
                double(c.prior), c.visits > 0 ? signed_text(c.q).c_str() : "-",
                c.proven > 0 ? "  win" : c.proven < 0 ? "  loss" : "");
  }
  if (r.children.size() > top)
    std::printf("(%zu more turns; --top to see them)\n", r.children.size() - top);
  std::printf("(values and Q for player %d, the side to move, in [-1, 1])\n", mover);
}

// An alpha-beta search of a turn start: the yardstick's search, or the bot's with the
// value net. Built before any output, so that a value net that cannot be read or plays other
// rules is the command's only output (it printed the board first).
struct AnalysisAlphaBeta {
  std::unique_ptr<AlphaBetaPlayer> player;
  std::string what;  // "value net FILE" or "hand evaluation"
};

AnalysisAlphaBeta make_analysis_alphabeta(const Position& pos, const ModelArgs& a) {
  std::string net = a.value_net;
  if (net.empty()) net = default_model_path(pos.pitch(), pos.variant(), ".vnet");
  // The names of `bot --value-net`; no shipped net: the hand evaluation.
  const LeafEvalSpec spec = net.empty() ? LeafEvalSpec{} : leaf_eval_from_name(net);
  // Where the net was named: the flag, or (without it) the shipped file (a damaged shipped net
  // was reported as "analyse --value-net:" to a user who gave no such flag).
  const std::string where = a.value_net.empty() ? "analyse: the shipped value net" : "analyse --value-net";
  std::unique_ptr<LeafEvaluator> ev;
  try {
    ev = make_leaf_evaluator(spec, 1);
  } catch (const std::exception& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
  AnalysisAlphaBeta out;
  out.player = std::make_unique<AlphaBetaPlayer>(AlphaBetaPlayer::Options{}, std::move(ev), 1);
  try {
    out.player->new_game(pos.pitch(), pos.variant());  // refuses a value net of other rules
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
  out.what = spec.eval == "nnue"    ? "value net " + net
             : spec.eval == "noise" ? "random evaluation"
                                    : "hand evaluation";
  return out;
}

// The search's depth, score (or the proven result), nodes and principal variation.
void analyse_with_alphabeta(const Game& game, AnalysisAlphaBeta& search, const TurnBudget& budget) {
  const Position& pos = game.position();
  AlphaBetaPlayer& ab = *search.player;
  const std::string best = ab.choose_turn(game, budget);
  const AlphaBetaPlayer::Info& info = ab.last_info();
  const int mover = pos.side_to_move();
  std::string pv;
  for (const std::string& t : info.pv) pv += (pv.empty() ? "" : " ") + t;
  const bool won = info.score > AlphaBetaPlayer::kProvenBound,
             lost = info.score < -AlphaBetaPlayer::kProvenBound;
  // A proven score is kWin minus the plies before the winning turn: the game ends after that
  // many turns plus the winning one (a win with the turn to play: "in 1 turn").
  const std::string proven_in =
      won || lost ? " in " + counted(int64_t(AlphaBetaPlayer::kWin - std::abs(info.score)) + 1, "turn") : "";
  std::printf(
      "alpha-beta (%s): depth %d in %.0f ms, %lld nodes, score %s for player %d%s, best turn %s, "
      "principal variation: %s\n",
      search.what.c_str(), info.depth, info.ms, (long long)info.nodes,
      won || lost ? (won ? "win" : "loss") : std::to_string(info.score).c_str(), mover, proven_in.c_str(),
      best.c_str(), pv.c_str());
}

// show: the board of a position, optionally as SVG.
void register_show_command(CLI::App& app) {
  auto show_args = std::make_shared<ViewArgs>();
  auto* show = app.add_subcommand(
      "show", "Print the ASCII board of a position of a game; optionally SVG (see also analyse)");
  add_view_options(show, *show_args);
  show->callback([show_args] {
    const Game g = select_position(game_from(show_args->pos), show_args->pos);
    std::cout << render_ascii(g.position());
    if (!show_args->svg.empty()) write_svg(g, *show_args);
  });
}

// analyse's options beyond the position's (add_view_options): the model, its search, alpha-beta.
void add_analyse_options(CLI::App* analyse, ModelArgs* an) {
  auto* model = analyse->add_option("--model", an->model,
                                    "model file (export) or training checkpoint "
                                    "(default: the shipped models/<pitch>-<variant>.model, if any)");
  analyse->add_flag("--no-model", an->no_model, "the board only, even when a shipped model exists")
      ->excludes(model);
  analyse->add_option("--device", an->device, "cpu | cuda | cuda:N")
      ->capture_default_str()
      ->check(device_check());
  analyse->add_option("--visits", an->visits, "search visits (0: no search, the network's priors only)")
      ->capture_default_str()
      ->check(integer_at_least(0));
  analyse->add_option("--top", an->top, "turns listed")->capture_default_str()->check(integer_at_least(1));
  auto* ab_ms = analyse
                    ->add_option("--alphabeta-ms", an->alphabeta_ms,
                                 "also search the position with alpha-beta for this long (ms; the "
                                 "yardstick's search and the bot's): depth, score, principal variation")
                    ->check(in_range<int64_t>(1, 86400000));
  analyse
      ->add_option("--alphabeta-nodes", an->alphabeta_nodes,
                   "also search the position with alpha-beta until an iteration has searched "
                   "this many nodes (deterministic: the same answer on every machine)")
      ->check(in_range<int64_t>(1, int64_t(1) << 40))
      ->excludes(ab_ms);
  analyse
      ->add_option("--value-net", an->value_net,
                   "alpha-beta's evaluation: a .vnet file, hand, or none (the random evaluation, "
                   "as bot's; default: the shipped models/<pitch>-<variant>.vnet, else hand)")
      // An empty name meant the shipped net without a word; it is refused.
      ->check(non_empty_name(".vnet file, hand or none"));
  analyse
      ->add_flag("--raw", an->raw,
                 "print only the network's output, machine-readable: value<TAB>V (for the side "
                 "to move), then turn<TAB>KICKS<TAB>PRIOR per generated turn (generation "
                 "order, the search root's turns and priors), numbers as %.9g; no board, no search")
      ->needs(model);
}

// analyse: checks that need no output first, then the board, the model's analysis and
// alpha-beta's.
void run_analyse(const ViewArgs& view, ModelArgs& an) {
  const Game full = game_from(view.pos);
  const Game g = select_position(full, view.pos);
  const std::string where = where_text(g, full);
  // A search (the model's or alpha-beta's) needs an unfinished turn start: checked before any output.
  const bool with_alphabeta = an.alphabeta_ms > 0 || an.alphabeta_nodes > 0;
  if (!an.value_net.empty() && !with_alphabeta)
    throw UsageError(
        "analyse: --value-net is alpha-beta's evaluation: give --alphabeta-ms or --alphabeta-nodes too");
  if (!an.model.empty() || with_alphabeta) {
    const std::string why =
        not_analysable(g.position(), where,
                       g.position().game_over() ? "pick an earlier one with --turn or --kick"
                                                : "use --turn, or a --kick that ends a turn");
    if (!why.empty()) throw std::invalid_argument(why);
  }
  if (an.model.empty() && !an.no_model && not_analysable(g.position(), where, "").empty()) {
    // The shipped model, when there is one for this pitch and variant.
    an.model = default_model_path(g.position().pitch(), g.position().variant());
    if (!an.model.empty()) std::cout << "model: " << an.model << " (shipped; --no-model: board only)\n";
  }
  // The model's description is read before the board is printed: a missing or corrupt model
  // fails before any board.
  std::optional<nn::CheckpointMeta> meta;
  if (!an.model.empty()) meta = analysis_model_meta(g.position(), an);
  AnalysisAlphaBeta alphabeta;
  if (with_alphabeta) alphabeta = make_analysis_alphabeta(g.position(), an);
  if (!an.raw) std::cout << where << "\n" << render_ascii(g.position());
  if (!view.svg.empty()) write_svg(g, view, !an.raw);  // --raw: nothing but the numbers on stdout
  std::cout.flush();
  if (meta) analyse_with_model(g.position(), an, *meta);
  if (with_alphabeta) {
    std::fflush(stdout);
    analyse_with_alphabeta(
        g, alphabeta,
        an.alphabeta_ms > 0 ? TurnBudget{an.alphabeta_ms, -1} : TurnBudget{-1, an.alphabeta_nodes});
  }
}

}  // namespace

void register_analyse_commands(CLI::App& app) {
  register_show_command(app);
  auto view = std::make_shared<ViewArgs>();
  auto an = std::make_shared<ModelArgs>();
  auto* analyse = app.add_subcommand("analyse",
                                     "Show any position of a game and, with --model, the network's value and "
                                     "priors and a PUCT search of it");
  add_view_options(analyse, *view);
  add_analyse_options(analyse, an.get());
  analyse->callback([view, an] { run_analyse(*view, *an); });
}

}  // namespace ps::cmd
