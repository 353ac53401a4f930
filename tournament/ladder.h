// The ladder: one model against the fixed yardsticks at equal time per turn, the
// source of every strength figure in docs/STRENGTH.md. A gauntlet (tournament.h) with
// colour-swapped balanced openings; each pairing's score gets a Wilson 95% interval and an Elo
// difference with the interval mapped through the logistic model, beside the Bradley-Terry
// ratings of the whole gauntlet.
//
// Yardsticks (registry types, tournament/registry.h): random, greedy, uct (rollout MCTS),
// alphabeta (hand evaluation), alphabeta-noise (alphabeta with a random evaluation, which beats
// the hand one), alphabeta-nnue (the small learned value net) and "previous" (an earlier model,
// the same search as the model).
// The model plays as `bot` does: it and "previous" are players of the registry's `bot` type
// (search/bot_player.h, made by make_bot_player) with the model as their network, alpha-beta
// answering every timed turn unless the model's options' search map gives another
// endgame_from_turn (-1: PUCT all game). They use one search thread and one inference worker: one
// core per player when concurrency games x 1 thread fit the machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/leaf_evals.h"
#include "tournament/tournament.h"

namespace ps::tour {

struct LadderSpec {
  std::string model;                 ///< model file or checkpoint (required)
  /// Registry type that plays the model (key: checkpoint): `mcts` (the default) is the network
  /// as `bot` plays it, the `bot` type with the model as its checkpoint.
  std::string model_type = "mcts";
  YAML::Node model_options;          ///< extra keys of the model's player map (e.g. search:)
  std::string model_source = "<code>";  ///< the file model_options came from (error messages)
  std::string previous;              ///< an earlier model ("" = no "previous" yardstick)
  /// The evaluation of the model's (and previous's) alpha-beta (the `bot` type's value_net):
  /// search/leaf_evals.h's leaf_eval_from_name of a name (`ladder` gives search/bot_player.h's
  /// bot_eval of `--value-net`: hand, noise or nnue with its .vnet; no eval_noise: the model's
  /// search map adds noise); nullopt: the random evaluation. Its value net is also the
  /// alphabeta-nnue yardstick's unless yardstick_value_net is given.
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

/// Throws std::invalid_argument "unknown opponent 'X' (known: random, ...)" unless `name` is
/// one of the ladder's opponents (random, greedy, uct, alphabeta, alphabeta-noise,
/// alphabeta-nnue, previous).
void check_ladder_opponent(const std::string& name);
/// The gauntlet's players: the model first, then the opponents in order. Throws
/// std::invalid_argument for an unknown opponent name, "previous" without a previous model, an
/// odd game count, a time limit below 1 ms, or an evaluation no `--value-net` name gives.
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
/// What the model plays, its search as the `bot` type makes it (search/bot_player.h's
/// bot_search_params of its evaluation and search map): "alpha-beta from the first turn
/// (evaluation: value net F)" (the default), "puct, then alpha-beta from turn N (evaluation:
/// value net F)" (F + noise R with search.endgame_eval_noise), "puct all game", or its type.
/// Throws ConfigError for a search map the player would refuse.
std::string model_search_text(const LadderSpec& spec);
/// The same for the previous bot (its model, spec.previous_eval or else the model's evaluation,
/// and the model's options).
std::string previous_search_text(const LadderSpec& spec);

}  // namespace ps::tour
