// A deterministic stand-in for the network with a fixed cost, for tests and benchmarks: it
// measures how much of a search's wall time is spent outside evaluation, and gives non-uniform
// but reproducible priors and values.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "nn/evaluator.h"

namespace ps {

/// Value and policy logits are pseudo-random functions of the position hash (same position ->
/// same output, on any thread): value uniform in [-value_scale, value_scale], logits uniform in
/// [-logit_scale, logit_scale]. Each evaluate() call, and each evaluate_many() batch, busy-waits
/// cost_us microseconds (spinning, not sleeping, so the figure is exact), like a forward pass
/// whose latency does not depend on the batch. Thread-safe.
class FixedCostEvaluator final : public Evaluator {
 public:
  /// Throws std::invalid_argument when cost_us < 0 or a scale is negative.
  explicit FixedCostEvaluator(int64_t cost_us = 0, float value_scale = 0.5f,
                              float logit_scale = 1.0f, uint64_t seed = 0);
  void evaluate(const Position& pos, Evaluation& out) override;
  void evaluate_many(const Position* const* positions, size_t n, Evaluation* out) override;
  std::string name() const override;

  /// evaluate()/evaluate_many() calls and positions evaluated since construction.
  uint64_t calls() const { return calls_.load(); }
  uint64_t positions() const { return positions_.load(); }
  /// Total busy-wait time spent inside the evaluator, seconds (summed over threads).
  double busy_seconds() const { return double(busy_ns_.load()) * 1e-9; }

 private:
  void fill(const Position& pos, Evaluation& out) const;
  void spin();
  int64_t cost_us_;
  float value_scale_, logit_scale_;
  uint64_t seed_;
  std::atomic<uint64_t> calls_{0}, positions_{0}, busy_ns_{0};
};

}  // namespace ps
