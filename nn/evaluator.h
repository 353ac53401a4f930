// The one narrow interface between search and the network (KataGo's nninterface/nneval idea):
// search submits positions and gets back a value and per-kick policy logits in the engine's
// frame. Search never sees a tensor, and this header does not include LibTorch.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/position.h"

namespace ps {

/// Network output for one position, always in the engine frame and for the side to move.
struct Evaluation {
  /// Expected result for the side to move, in [-1, 1] (+1 = the side to move wins).
  float value = 0.0f;
  /// [num_points * 8]: logit of a kick in direction d from point p at index p * 8 + d (engine
  /// frame, point indices of Pitch). Read for every kick of a chain from the one evaluation at
  /// the start of the turn; only legal kicks are meaningful.
  std::vector<float> policy_logits;
};

/// Evaluates positions. Implementations must be thread-safe: many search threads call
/// evaluate() concurrently, each blocking until its own result is ready.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  /// pos must not be finished. Throws std::runtime_error on backend failure.
  virtual void evaluate(const Position& pos, Evaluation& out) = 0;
  /// Evaluates n positions; the default calls evaluate() for each.
  virtual void evaluate_many(const Position* const* positions, size_t n, Evaluation* out) {
    for (size_t i = 0; i < n; ++i) evaluate(*positions[i], out[i]);
  }
  /// Short description for logs ("uniform", "net:<checkpoint>@cpu", ...).
  virtual std::string name() const = 0;
};

/// Value 0 and equal logits everywhere: a uniform prior. Used by tests and as a baseline.
class UniformEvaluator final : public Evaluator {
 public:
  void evaluate(const Position& pos, Evaluation& out) override {
    out.value = 0.0f;
    out.policy_logits.assign(size_t(pos.pitch().num_points()) * 8, 0.0f);
  }
  std::string name() const override { return "uniform"; }
};

}  // namespace ps
