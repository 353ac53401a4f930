// The learned leaf evaluation of the alpha-beta search: a ValueNet (valuenet/value_net.h) whose
// first layer is updated incrementally along the search path, as in NNUE (Nasu 2018; Stockfish).
//
// Accumulators: for each position on the search path the evaluator keeps two first-layer sums
// (hidden1 floats each), one per perspective (player 0's frame and player 1's frame): the
// layer's bias plus the columns of every drawn non-wall segment as that player sees it. The
// ball is not part of the sums; its column is added when a position is evaluated, in the frame
// of its side to move. So:
//   - reset(root): both sums from scratch (O(drawn segments x hidden1));
//   - push_turn(parent, kicks): copy the top pair and add, per kick, the column of the segment
//     it draws in both frames (O(kicks x hidden1)); pop_turn: drop the top (unmaking a kick
//     subtracts nothing: the parent's pair is still on the stack, Stockfish's copy-on-push);
//   - evaluate_child(parent, kicks, child): the move-ordering call, made for every generated
//     child: the top sum of the child's mover plus the kicks' columns, in a scratch buffer;
//   - evaluate_current(pos): the top sum of pos's mover, plus the ball; then the small layers.
// A net with a ball window (valuenet/value_net.h) adds the window's columns of the evaluated
// position at each evaluation (they move with the ball): O(drawn segments near the ball).
// Incremental and from-scratch values agree to float rounding (the sums are added in another
// order); tests/search/test_value_net.cpp checks them on random games.
//
// Score: round(value * value_scale), clamped to +-99,999 (centi-kicks; the default scale 1000
// makes a sure win worth ten kicks of goal distance in the hand evaluation's units).
// Thread-safety: one instance per search (it holds the path's state); the ValueNet is shared
// and read-only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "search/leaf_eval.h"
#include "valuenet/value_net.h"

namespace ps {

class ValueNetEvaluator final : public LeafEvaluator {
 public:
  /// source: where the net came from (its file), named in errors.
  ValueNetEvaluator(std::shared_ptr<const ValueNet> net, std::string source);
  std::string name() const override { return "nnue"; }
  int evaluate(const Position& pos) override;
  /// Throws std::invalid_argument naming the source when root's pitch or variant is not the
  /// net's.
  void reset(const Position& root) override;
  void push_turn(const Position& parent, const uint8_t* kicks, int n) override;
  void pop_turn() override;
  int evaluate_current(const Position& pos) override;
  int evaluate_child(const Position& parent, const uint8_t* kicks, int n, const Position& child) override;

  /// The same as floats in [-1, 1] (tests and benchmarks).
  float value_current(const Position& pos);
  float value_child(const Position& parent, const uint8_t* kicks, int n, const Position& child);
  const ValueNet& net() const { return *net_; }
  int path_length() const { return top_; }

 private:
  float* level(int i) { return stack_.data() + size_t(i) * size_t(2 * h1_); }
  int to_score(float v) const;

  std::shared_ptr<const ValueNet> net_;
  std::string source_;
  int h1_;
  int top_ = -1;                // index of the current top level (-1: no reset yet)
  std::vector<float> stack_;    // levels of 2 * h1 floats: perspective 0, then 1
  std::vector<int> extra_;      // evaluate_child's turn as first-layer features
  std::vector<float> scratch_;  // the small layers
};

}  // namespace ps
