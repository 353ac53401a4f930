// Static evaluation of a turn start for the alpha-beta search (search/alphabeta.h): a score for
// the side to move, in centipawn-like units ("centi-kicks": 100 = one kick closer to scoring).
// Only non-final positions are evaluated; wins and losses are the search's business.
#pragma once

#include <cstdint>
#include <string>

#include "engine/position.h"

namespace ps {

/// A leaf evaluator. Implementations must be cheap (the search calls one per leaf, millions per
/// second for the hand evaluation) and deterministic. One instance per search thread: not
/// required to be thread-safe.
class LeafEvaluator {
 public:
  virtual ~LeafEvaluator() = default;
  virtual std::string name() const = 0;
  /// Score of `pos` (a turn start of an unfinished game) for its side to move; |score| must stay
  /// below 100,000 (the search's win scores lie above that). From scratch: needs no reset().
  virtual int evaluate(const Position& pos) = 0;

  // Incremental evaluation (optional; the defaults are stateless and call evaluate()). The
  // search keeps the evaluator on its current path: reset(root) at the start of every
  // iteration, then push_turn before it descends into a child turn and pop_turn when it comes
  // back (an aborted iteration leaves pushes unpopped; the next reset clears them). So an
  // evaluator may keep per-ply state such as NNUE accumulators (valuenet/value_net_eval.h).

  /// The search's path now starts at `root` (a turn start). Throws std::invalid_argument when
  /// the evaluator cannot score this game (e.g. a value net trained for another pitch).
  virtual void reset(const Position& root) { (void)root; }
  /// The search descends from `parent` (the current top of the path) by one turn: `n` kicks.
  virtual void push_turn(const Position& parent, const uint8_t* kicks, int n) {
    (void)parent, (void)kicks, (void)n;
  }
  /// Undoes the last push_turn.
  virtual void pop_turn() {}
  /// Score of `pos`, the position at the current top of the path.
  virtual int evaluate_current(const Position& pos) { return evaluate(pos); }
  /// Score of `child`, reached from `parent` (the current top) by `n` kicks, without descending
  /// into it: the move-ordering call, made for every child the search generates.
  virtual int evaluate_child(const Position& parent, const uint8_t* kicks, int n,
                             const Position& child) {
    (void)parent, (void)kicks, (void)n;
    return evaluate(child);
  }
};

/// The hand-made evaluation, built from what decides Paper Soccer games between turn-complete
/// searchers (each term is from the side to move S's view; the opponent is O):
///  - goal distance: kicks S's ball needs to reach the goal S attacks, against the kicks it
///    needs to reach S's own goal (Chebyshev distance on an empty pitch; the main term);
///  - mobility: legal kicks from the ball (few free segments mean a turn that may be forced
///    into a dead end); note that at a turn start the ball stands where a turn ended, on a
///    point untouched until then, so it has exactly 7 legal kicks (8 at the first turn; all
///    6,448 turn starts of 300 random games): this term and dead_end never vary in the search's
///    leaves, and goal distance and bounce points are the whole evaluation. Measured in
///    docs/experiments/hand-vs-random-evaluation.md: it is no better than a constant 0;
///  - bounce points: touched points next to the ball (each one is a free extra kick for S,
///    and a long chain can carry the ball far);
///  - danger: whether O's goal mouth is open (its goal points' segments undrawn) matters
///    only near it, so the distance terms are weighted more heavily close to either goal.
/// Weights are public so experiments (and the tests) can vary them.
class HandEvaluator final : public LeafEvaluator {
 public:
  struct Weights {
    int attack = 100;      ///< per kick of distance to the attacked goal (subtracted)
    int defend = 100;      ///< per kick of distance from the own goal (added)
    int near_goal = 60;    ///< extra per kick when within 3 kicks of either goal
    int mobility = 8;      ///< per legal kick from the ball
    int bounce = 12;       ///< per touched neighbour the ball can kick to
    int dead_end = 150;    ///< when the ball has exactly one legal kick (a forced kick)
  };
  HandEvaluator() = default;
  explicit HandEvaluator(const Weights& w) : w_(w) {}
  std::string name() const override { return "hand"; }
  int evaluate(const Position& pos) override;

 private:
  Weights w_;
};

/// A random evaluation (Beal and Smith, "Random evaluations in chess", ICCA Journal 1994): a
/// deterministic hash of the position's Zobrist hash and a seed, uniform in [-range, range].
/// In a deep minimax search the maximum over many random leaves rewards positions with many
/// continuations, so it measures mobility for free; docs/experiments/hand-vs-random-evaluation.md found it
/// stronger than the hand evaluation against the hand evaluation. The same
/// position always gets the same score (transpositions agree). Throws std::invalid_argument
/// when range is outside [1, 99,999].
class NoiseEvaluator final : public LeafEvaluator {
 public:
  /// The range of the `alphabeta` type's `eval: noise` and of the `mcts` player's endgame.
  static constexpr int kDefaultRange = 1000;
  explicit NoiseEvaluator(int range = kDefaultRange, uint64_t seed = 0);
  std::string name() const override { return "noise"; }
  int evaluate(const Position& pos) override;

 private:
  int range_;
  uint64_t seed_;
};

/// Kicks needed from point p to the goal that `player` attacks on an empty pitch (Chebyshev
/// distance to the nearest goal point).
int goal_distance(const Pitch& pitch, int p, int player);

}  // namespace ps
