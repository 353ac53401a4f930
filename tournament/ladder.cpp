#include "tournament/ladder.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "core/config.h"
#include "core/plural.h"
#include "core/stats.h"
#include "core/text.h"
#include "search/bot_player.h"
#include "search/leaf_evals.h"
#include "tournament/ratings.h"

namespace ps::tour {

namespace {

bool is_forfeit(const std::string& termination) {
  return termination != "goal" && termination != "blocked";
}

double clamped_elo(double p) {
  constexpr double kCap = 1200.0;
  if (!(p > 0)) return -kCap;
  if (!(p < 1)) return kCap;
  return std::clamp(elo_from_score(p), -kCap, kCap);
}

// The registry type of a model of type `type`: `mcts`, the network as `bot` plays it, is the
// `bot` type.
std::string model_registry_type(const std::string& type) { return type == "mcts" ? "bot" : type; }

// The name of the model's evaluation (the `bot` type's value_net): nullopt, the random one.
std::string evaluation_name(const std::optional<LeafEvalSpec>& eval) {
  try {
    return leaf_eval_name(eval.value_or(leaf_eval_from_name("none")));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("ladder: the model's evaluation: ") + e.what());
  }
}

PlayerSpec model_player(const std::string& name, const std::string& type, const std::string& path,
                        const YAML::Node& extra, const std::string& source,
                        const std::optional<LeafEvalSpec>& endgame_eval) {
  PlayerSpec p;
  p.name = name;
  p.type = model_registry_type(type);
  p.options = YAML::Node(YAML::NodeType::Map);
  if (extra && extra.IsMap())
    // The nodes themselves, not clones: they keep their lines for the factory's error messages.
    for (auto it = extra.begin(); it != extra.end(); ++it) p.options[it->first] = it->second;
  p.options["checkpoint"] = path;
  // One core per player: one inference worker, one intra-op thread (search threads: the
  // search map's num_threads, default 1), and no batch wait, as `bot`: a search of one thread
  // hands the service one leaf at a time, and the default 1 ms wait for a batch that never fills
  // was spent on every evaluation of the player's time (docs/STRENGTH.md).
  if (!p.options["workers"]) p.options["workers"] = 1;
  if (!p.options["torch_threads"]) p.options["torch_threads"] = 1;
  if (!p.options["batch_timeout_us"]) p.options["batch_timeout_us"] = 0;
  // The bot makes its search from the evaluation and the search map as given (nothing is
  // written into a map the model and previous share).
  if (p.type == "bot") p.options["value_net"] = evaluation_name(endgame_eval);
  p.where = "model";  // the key path of these options in a ladder --config file
  p.source = source;
  return p;
}

}  // namespace

void check_ladder_opponent(const std::string& name) {
  for (const char* known :
       {"random", "greedy", "uct", "alphabeta", "alphabeta-noise", "alphabeta-nnue", "previous"})
    if (name == known) return;
  throw std::invalid_argument(
      "unknown opponent " + quoted_text(name) +
      " (known: random, greedy, uct, alphabeta, alphabeta-noise, alphabeta-nnue, previous)");
}

std::vector<PlayerSpec> ladder_players(const LadderSpec& spec) {
  if (spec.model.empty()) throw std::invalid_argument("ladder: no model given");
  if (spec.time_ms < 1) throw std::invalid_argument("ladder: the time per turn must be >= 1 ms");
  if (spec.games < 2 || spec.games % 2 != 0)
    throw std::invalid_argument("ladder: games per opponent must be even and >= 2 (colours are "
                                "swapped), not " + std::to_string(spec.games));
  if (spec.opponents.empty()) throw std::invalid_argument("ladder: no opponents");
  std::vector<PlayerSpec> players;
  players.push_back(model_player("model", spec.model_type, spec.model, spec.model_options, spec.model_source,
                                 spec.endgame_eval));
  for (const std::string& o : spec.opponents) {
    if (o == "previous") {
      if (spec.previous.empty())
        throw std::invalid_argument(
            "ladder: opponent 'previous' needs a previous model (--previous, or --previous-value-net)");
      players.push_back(model_player("previous", spec.model_type, spec.previous, spec.model_options,
                                     spec.model_source,
                                     spec.previous_eval ? spec.previous_eval : spec.endgame_eval));
      continue;
    }
    try {
      check_ladder_opponent(o);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("ladder: ") + e.what());
    }
    PlayerSpec p;
    p.name = o;
    p.type = o;
    p.where = o;
    if (o == "alphabeta-nnue") {
      if (nnue_yardstick_net(spec).empty())
        throw std::invalid_argument(
            "ladder: opponent 'alphabeta-nnue' needs a value net (--value-net or --yardstick-value-net FILE.vnet)");
      p.type = "alphabeta";
      p.options = YAML::Node(YAML::NodeType::Map);
      p.options["eval"] = "nnue";
      p.options["value_net"] = nnue_yardstick_net(spec);
    } else if (o == "alphabeta-noise") {
      p.type = "alphabeta";
      p.options = YAML::Node(YAML::NodeType::Map);
      p.options["eval"] = "noise";
    }
    players.push_back(p);
  }
  for (size_t i = 1; i < players.size(); ++i)
    for (size_t j = 1; j < i; ++j)
      if (players[i].name == players[j].name)
        throw std::invalid_argument("ladder: opponent '" + players[i].name + "' given twice");
  return players;
}

std::string nnue_yardstick_net(const LadderSpec& spec) {
  if (!spec.yardstick_value_net.empty()) return spec.yardstick_value_net;
  return spec.endgame_eval && spec.endgame_eval->eval == "nnue" ? spec.endgame_eval->value_net : "";
}

TournamentSpec ladder_tournament(const LadderSpec& spec) {
  TournamentSpec t;
  t.name = "ladder";
  t.width = spec.width;
  t.length = spec.length;
  t.goal = spec.goal;
  t.variant = spec.variant;
  t.format = Format::kGauntlet;
  t.gauntlet_size = 1;
  t.games_per_pairing = spec.games;
  t.openings = spec.openings;
  t.opening_turns = spec.opening_turns;
  t.opening_balance_rollouts = spec.opening_turns > 0 ? 64 : 0;
  t.seed = spec.seed;
  t.concurrency = spec.concurrency;
  t.budget.time_ms = spec.time_ms;
  t.anchor = "model";
  t.out_dir = spec.out_dir;
  return t;
}

std::vector<LadderRow> ladder_rows(const TournamentResult& result) {
  std::vector<LadderRow> rows;
  for (size_t j = 1; j < result.players.size(); ++j) {
    LadderRow r;
    r.opponent = result.players[j];
    for (const GameResult& g : result.games) {
      const int model_seat = g.seat[0] == 0 ? 0 : g.seat[1] == 0 ? 1 : -1;
      if (model_seat < 0 || g.seat[1 - model_seat] != int(j)) continue;
      ++r.games;
      const bool won = g.winner == 0;
      r.wins += won;
      if (is_forfeit(g.termination)) (won ? r.forfeits_opponent : r.forfeits_model)++;
      r.max_turn_ms = std::max(r.max_turn_ms, g.max_turn_ms[model_seat]);
    }
    if (r.games > 0) {
      r.score = double(r.wins) / r.games;
      std::tie(r.score_lo, r.score_hi) = wilson_interval(r.wins, r.games);
      r.elo = clamped_elo(r.score);
      r.elo_lo = clamped_elo(r.score_lo);
      r.elo_hi = clamped_elo(r.score_hi);
    }
    rows.push_back(r);
  }
  return rows;
}

namespace {

// What the model's player of type `type` with these options and evaluation plays (`bot`'s and
// `serve`'s words): its search as the `bot` type makes it.
std::string player_search_text(const std::string& type, const YAML::Node& options, const std::string& source,
                               const std::optional<LeafEvalSpec>& eval) {
  if (model_registry_type(type) != "bot") return "player type " + type;
  ConfigReader search(options && options.IsMap() ? options["search"] : YAML::Node(), source, "model.search");
  return describe_play_search(bot_search_params(leaf_eval_from_name(evaluation_name(eval)), &search));
}

}  // namespace

std::string model_search_text(const LadderSpec& spec) {
  return player_search_text(spec.model_type, spec.model_options, spec.model_source, spec.endgame_eval);
}

std::string previous_search_text(const LadderSpec& spec) {
  return player_search_text(spec.model_type, spec.model_options, spec.model_source,
                            spec.previous_eval ? spec.previous_eval : spec.endgame_eval);
}

std::string format_ladder(const std::vector<LadderRow>& rows, const LadderSpec& spec) {
  std::ostringstream out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "Ladder of %s: %lld ms per turn, %s per opponent, %s %s", spec.model.c_str(),
                (long long)spec.time_ms, counted(spec.games, "game").c_str(),
                Pitch::get(spec.width, spec.length, spec.goal).name().c_str(), variant_name(spec.variant));
  out << buf;
  // What the model plays (bot's search by default), so that the header says what plays.
  std::string model_text;
  try {
    model_text = model_search_text(spec);
    out << "; the model plays " << model_text;
  } catch (const std::exception&) {  // a search map with values of the wrong type: the games named it
  }
  // A fixed yardstick net differs from the model's: the table would otherwise hide which it was.
  const bool nnue_row = std::any_of(rows.begin(), rows.end(),
                                    [](const LadderRow& r) { return r.opponent == "alphabeta-nnue"; });
  // The model's options may choose another endgame than --value-net: the net
  // is named unless the model's text above already names it.
  if (nnue_row && model_text.find("(evaluation: value net " + nnue_yardstick_net(spec)) == std::string::npos)
    out << "; alphabeta-nnue evaluates with " << nnue_yardstick_net(spec);
  const bool previous_row =
      std::any_of(rows.begin(), rows.end(), [](const LadderRow& r) { return r.opponent == "previous"; });
  if (previous_row && spec.previous_eval) {  // which previous bot it was (model and its search)
    // All it plays: a config's noise too.
    std::string text = " with " + describe_leaf_eval(*spec.previous_eval);
    try {
      text = ", which plays " + previous_search_text(spec);
    } catch (const std::exception&) {  // a search map with values of the wrong type
    }
    out << "; previous is " << spec.previous << text;
  }
  out << "\n";
  // The first column as wide as the longest opponent name ("alphabeta-noise" overflowed 12).
  int width = 12;
  for (const LadderRow& r : rows) width = std::max(width, int(r.opponent.size()));
  std::snprintf(buf, sizeof buf, "%-*s %6s %6s %22s %24s %9s %8s\n", width, "opponent", "games", "wins",
                "score [95% interval]", "Elo [95% interval]", "forfeits", "max ms");
  out << buf;
  for (const LadderRow& r : rows) {
    char score[64], elo[64], forfeits[32];
    std::snprintf(score, sizeof score, "%5.1f%% [%4.1f, %5.1f]", 100 * r.score, 100 * r.score_lo,
                  100 * r.score_hi);
    std::snprintf(elo, sizeof elo, "%+6.0f [%+6.0f, %+6.0f]", elo_for_print(r.elo, 0),
                  elo_for_print(r.elo_lo, 0), elo_for_print(r.elo_hi, 0));
    std::snprintf(forfeits, sizeof forfeits, "%d/%d", r.forfeits_model, r.forfeits_opponent);
    std::snprintf(buf, sizeof buf, "%-*s %6d %6d %22s %24s %9s %8lld\n", width, r.opponent.c_str(), r.games,
                  r.wins, score, elo, forfeits, (long long)r.max_turn_ms);
    out << buf;
  }
  out << "Elo: the model minus the opponent, from the score (logistic model, clamped to +-1200);\n"
         "forfeits: games the model / the opponent lost by time, illegal turn or crash.\n";
  return out.str();
}

}  // namespace ps::tour
