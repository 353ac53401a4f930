#include "search/fixed_cost_evaluator.h"

#include <chrono>
#include <stdexcept>

#include "core/random.h"

namespace ps {

namespace {
float unit(uint64_t h) { return float(h >> 40) * (2.0f / float(1 << 24)) - 1.0f; }  // [-1, 1)
}  // namespace

FixedCostEvaluator::FixedCostEvaluator(int64_t cost_us, float value_scale, float logit_scale,
                                       uint64_t seed)
    : cost_us_(cost_us), value_scale_(value_scale), logit_scale_(logit_scale), seed_(seed) {
  if (cost_us < 0) throw std::invalid_argument("FixedCostEvaluator: cost_us must be >= 0");
  if (!(value_scale >= 0 && value_scale <= 1))
    throw std::invalid_argument("FixedCostEvaluator: value_scale must be in [0, 1]");
  if (!(logit_scale >= 0)) throw std::invalid_argument("FixedCostEvaluator: logit_scale must be >= 0");
}

std::string FixedCostEvaluator::name() const {
  return "fixed-cost(" + std::to_string(cost_us_) + "us)";
}

void FixedCostEvaluator::fill(const Position& pos, Evaluation& out) const {
  if (pos.game_over()) throw std::invalid_argument("FixedCostEvaluator: the game is over");
  const uint64_t h = splitmix64(pos.hash() ^ seed_);
  out.value = value_scale_ * unit(h);
  const size_t n = size_t(pos.pitch().num_points()) * 8;
  out.policy_logits.resize(n);
  uint64_t s = h;
  for (size_t i = 0; i < n; ++i) out.policy_logits[i] = logit_scale_ * unit(s = splitmix64(s));
}

void FixedCostEvaluator::spin() {
  if (cost_us_ == 0) return;
  const auto t0 = std::chrono::steady_clock::now();
  const auto until = t0 + std::chrono::microseconds(cost_us_);
  auto t = t0;
  while (t < until) t = std::chrono::steady_clock::now();
  busy_ns_.fetch_add(uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(t - t0).count()));
}

void FixedCostEvaluator::evaluate(const Position& pos, Evaluation& out) {
  fill(pos, out);
  spin();
  calls_.fetch_add(1);
  positions_.fetch_add(1);
}

void FixedCostEvaluator::evaluate_many(const Position* const* positions, size_t n, Evaluation* out) {
  for (size_t i = 0; i < n; ++i) fill(*positions[i], out[i]);
  spin();
  calls_.fetch_add(1);
  positions_.fetch_add(n);
}

}  // namespace ps
