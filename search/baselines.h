// Baseline players on the ps::Player interface, for tournaments and tests. None uses a network.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/turns.h"
#include "search/player.h"

namespace ps {

/// Plays a uniformly random distinct turn. The choice is exact for any number of turns: one
/// depth-first enumeration of the distinct turns (the engine's memoised generator, no kick
/// strings built) with reservoir sampling keeps the i-th turn with probability 1/i, so a
/// position with 100,000 turns costs one enumeration and no list. Deterministic for a seed.
/// Bounded: a position with more than kEnumerationLimit mid-turn positions and turn ends (about
/// 13 MB of tables, ~0.1 s) gets engine random_turn instead: a random chain, uniform per kick
/// rather than per turn, avoiding kicks that lose at once.
class RandomPlayer final : public Player {
 public:
  static constexpr int64_t kEnumerationLimit = int64_t(1) << 18;
  explicit RandomPlayer(uint64_t seed = 0);
  std::string name() const override { return "random"; }
  /// Throws std::invalid_argument when the game is over or in the middle of a turn.
  std::string choose_turn(const Game& game, const TurnBudget& budget) override;

 private:
  std::mt19937_64 rng_;
  TurnGenerator gen_;
};

/// One-turn greedy heuristic: plays a winning turn when there is one (TurnGenerator::
/// find_winning_turn); otherwise, among the turns that do not lose at once (own goal, own
/// block), and do not leave the opponent a winning turn (find_winning_turn on the position after
/// the turn), takes the one ending with the ball closest to the attacked goal (Chebyshev
/// distance to its nearest goal point, i.e. kicks needed on an empty pitch); random among ties.
/// When every turn lets the opponent win, it still takes the closest. Cost: one enumeration plus
/// one win check per turn tried in distance order until a safe one is found.
/// Bounded in memory and time in every position: the enumeration stops at kEnumerationLimit
/// states (the candidates are then the turns found plus kRandomTurns engine random_turn chains);
/// win checks stop after kMaxChecks checks or kCheckKicks kicks (each check also has the
/// engine's state budget), and the next candidate in distance order is taken unchecked.
class GreedyPlayer final : public Player {
 public:
  static constexpr int64_t kEnumerationLimit = int64_t(1) << 18;
  static constexpr int kRandomTurns = 256;
  static constexpr int kMaxChecks = 512;
  static constexpr uint64_t kCheckKicks = 20000000;
  explicit GreedyPlayer(uint64_t seed = 0);
  std::string name() const override { return "greedy"; }
  /// Throws std::invalid_argument when the game is over or in the middle of a turn.
  std::string choose_turn(const Game& game, const TurnBudget& budget) override;

  /// Kicks needed from point p to the goal that `player` attacks on an empty pitch.
  static int goal_distance(const Pitch& pitch, int p, int player);

 private:
  std::mt19937_64 rng_;
  TurnGenerator gen_, check_;
};

/// Pure Monte Carlo tree search (UCT: UCB1 applied to trees, Kocsis and Szepesvari 2006) over
/// whole turns with random rollouts, no network.
///  - children: every distinct turn, except that a node with a winning turn keeps only that
///    turn (the engine's win check), and a node with more than max_children turns keeps a
///    uniform random sample of max_children of them (reservoir sampling; documented cap so that
///    huge turn counts stay affordable);
///  - selection: unvisited children first (in random order), then the largest
///    mean + exploration * sqrt(ln N / n), with rewards 1 win / 0 loss for the chooser;
///  - rollout: a uniformly random legal kick at every kick until the game ends.
/// Budget: TurnBudget visits (playouts) and/or time_ms; default_visits when neither is given.
/// Bounded: a node's enumeration stops at kEnumerationLimit states (half its sample is then
/// random_turn chains, so late turns in direction order are represented), and the search ends
/// early when the tree holds max_nodes nodes (~100 bytes each plus long kick strings).
class UctPlayer final : public Player {
 public:
  static constexpr int64_t kEnumerationLimit = int64_t(1) << 18;
  struct Options {
    int64_t default_visits = 1000;  ///< playouts per turn when the budget gives none
    double exploration = 1.4142135623730951;  ///< UCB1 constant (rewards in [0, 1])
    int max_children = 1000;        ///< turns kept per node (>= 1)
    int64_t max_nodes = int64_t(1) << 20;  ///< tree size at which the search stops (>= 1)
  };
  /// Throws std::invalid_argument when options are out of range.
  explicit UctPlayer(uint64_t seed = 0) : UctPlayer(Options{}, seed) {}
  UctPlayer(const Options& options, uint64_t seed = 0);
  std::string name() const override { return "uct"; }
  /// Throws std::invalid_argument when the game is over or in the middle of a turn.
  std::string choose_turn(const Game& game, const TurnBudget& budget) override;

  /// Statistics of the last choose_turn: per root turn {kicks, visits, mean reward in [0, 1]}.
  struct RootStat {
    std::string kicks;
    int64_t visits = 0;
    double mean = 0.0;
  };
  const std::vector<RootStat>& last_root() const { return last_root_; }
  int64_t last_playouts() const { return last_playouts_; }
  /// Tree nodes held between turns: 0 (the tree is freed when choose_turn returns).
  size_t tree_nodes() const { return nodes_.size(); }

 private:
  struct Node {
    std::string kicks;
    uint32_t first_child = 0, num_children = 0;
    int64_t visits = 0;
    double wins = 0.0;     // reward sum for the player who chose this turn
    int8_t chooser = 0;    // side to move at the parent
    int8_t winner = -1;    // game result after the turn
    bool expanded = false;
  };
  void expand(uint32_t node, const Position& pos);
  int rollout(Position pos);

  Options options_;
  std::mt19937_64 rng_;
  TurnGenerator gen_;
  std::vector<Node> nodes_;
  std::vector<RootStat> last_root_;
  int64_t last_playouts_ = 0;
};

}  // namespace ps
