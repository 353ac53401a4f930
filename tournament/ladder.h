// The ladder: one model against the fixed yardsticks at equal time per turn (issue 12), the
// source of every strength figure in docs/STRENGTH.md. A gauntlet (tournament.h) with
// colour-swapped balanced openings; each pairing's score gets a Wilson 95% interval and an Elo
// difference with the interval mapped through the logistic model, beside the Bradley-Terry
// ratings of the whole gauntlet.
//
// Yardsticks (registry types, tournament/registry.h): random, greedy, uct (rollout MCTS),
// alphabeta (hand evaluation), alphabeta-noise (alphabeta with a random evaluation, which beats
// the hand one), alphabeta-nnue (the small learned value net) and "previous" (an earlier model,
// the same search as the model).
// The model plays as `bot` does: its `mcts` player's search map gets endgame_from_turn
// MctsPlayer::kPlayEndgameFromTurn unless the model's options give one (-1: PUCT all game).
// Players that use the network (the model and "previous") are `mcts` players with one search
// thread and one inference worker: one core per player when concurrency games x 1 thread fit the
// machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/leaf_evals.h"  // LeafEvalSpec only (a plain struct: no link to the search)
#include "tournament/tournament.h"

namespace ps::tour {

struct LadderSpec {
  std::string model;                 ///< model file or checkpoint (required)
  std::string model_type = "mcts";   ///< registry type that plays the model (key: checkpoint)
  YAML::Node model_options;          ///< extra keys of the model's player map (e.g. search:)
  std::string model_source = "<code>";  ///< the file model_options came from (error messages)
  std::string previous;              ///< an earlier model ("" = no "previous" yardstick)
  /// The evaluation of the model's (and previous's) alpha-beta endgame (use_bot_endgame):
  /// search/leaf_evals.h's leaf_eval_from_name of `--value-net` (hand, noise or nnue with its
  /// .vnet); nullopt: the mcts player's own default (the random evaluation). Its value net is
  /// also the alphabeta-nnue yardstick's unless yardstick_value_net is given.
  std::optional<LeafEvalSpec> endgame_eval;
  /// The "previous" yardstick's evaluation when it is not endgame_eval (`--previous-value-net`):
  /// the previously shipped bot is a model and a value net, and since alpha-beta answers every
  /// timed turn two models over one value net play the same turns.
  std::optional<LeafEvalSpec> previous_eval;
  /// .vnet of the alphabeta-nnue yardstick when it differs from the model's: a fixed yardstick
  /// across shipped value nets ("" = endgame_eval's value net).
  std::string yardstick_value_net;
  /// Yardsticks by name: random, greedy, uct, alphabeta (hand evaluation), alphabeta-noise
  /// (random evaluation), alphabeta-nnue
  /// (alphabeta with the small learned value net `yardstick_value_net`, else `value_net`),
  /// previous (needs `previous`; evaluates with previous_eval when set).
  std::vector<std::string> opponents = {"random", "greedy", "uct", "alphabeta"};
  int64_t time_ms = 200;             ///< per turn, every player
  int games = 20;                    ///< per opponent (even: colours swapped)
  int openings = 10;
  int opening_turns = 2;
  int concurrency = 1;
  uint64_t seed = 1;
  int width = 8, length = 10, goal = 2;
  Variant variant = Variant::kStandard;
  std::string out_dir;               ///< games and results ("" = none)
};

/// One line of the ladder: the model's results against one opponent.
struct LadderRow {
  std::string opponent;
  int games = 0, wins = 0;
  double score = 0, score_lo = 0, score_hi = 1;  ///< fraction with its Wilson 95% interval
  double elo = 0, elo_lo = 0, elo_hi = 0;        ///< model minus opponent, clamped to +-1200
  int forfeits_model = 0, forfeits_opponent = 0; ///< games lost by time, illegal turn, crash
  int64_t max_turn_ms = 0;                       ///< the model's longest answer
};

/// The gauntlet's players: the model first, then the opponents in order. Throws
/// std::invalid_argument for an unknown opponent name, "previous" without a previous model, an
/// odd game count or a time limit below 1 ms.
std::vector<PlayerSpec> ladder_players(const LadderSpec& spec);
/// The gauntlet's tournament spec.
TournamentSpec ladder_tournament(const LadderSpec& spec);
/// Per-opponent rows of a finished ladder tournament (player 0 is the model).
std::vector<LadderRow> ladder_rows(const TournamentResult& result);
/// The net of the alphabeta-nnue yardstick: yardstick_value_net, else the value net of an nnue
/// endgame_eval ("" = none).
std::string nnue_yardstick_net(const LadderSpec& spec);
/// The ladder table: opponent, games, wins, score [95% interval], Elo [95% interval], forfeits;
/// its header names the yardstick's value net when it is not the model's.
std::string format_ladder(const std::vector<LadderRow>& rows, const LadderSpec& spec);
/// What the model plays, from its options as the ladder gives them (use_bot_endgame): "alpha-beta
/// from the first turn (evaluation: value net F)" (the default), "puct, then alpha-beta from turn
/// N (evaluation: value net F)" (F + noise R with
/// search.endgame_eval_noise), "puct all game", or its type.
std::string model_search_text(const LadderSpec& spec);
/// The same for the previous bot (its model, spec.previous_eval or else the model's evaluation,
/// and the model's options).
std::string previous_search_text(const LadderSpec& spec);

/// Gives the options of an `mcts` player the search `bot` plays (apps/cmd_bot.cpp): alpha-beta
/// from MctsPlayer::kPlayEndgameFromTurn complete turns on (timed turns only), unless its
/// search map sets endgame_from_turn; with an evaluation `eval`, alpha-beta evaluates with it
/// (endgame_eval: eval.eval, endgame_value_net for nnue, endgame_eval_noise when eval.eval_noise
/// > 0) unless the map sets endgame_eval
/// or endgame_value_net (its endgame_eval_noise, if any, stays; endgame_value_net alone gets
/// endgame_eval: nnue, as in `bot --config`); nullopt leaves the player's
/// default (the random evaluation). The ladder's model, `play`'s and `serve`'s bots use it. A
/// null node becomes a map; a node that is not a map is left for the factory to refuse. The
/// player's search map is made its own (a new map of the given keys' nodes, which keep their
/// lines; a null one is empty): nothing is written into a map `options` shares with another.
void use_bot_endgame(YAML::Node& options, const std::optional<LeafEvalSpec>& eval = std::nullopt);
/// Whether a search map turns the alpha-beta endgame off: its endgame_from_turn is an integer
/// below 0 (-1, also written -01). Not a map, no such key, or not an integer: false (the search's
/// parser names a bad value).
bool endgame_turned_off(const YAML::Node& search);

}  // namespace ps::tour
