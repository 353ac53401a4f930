// Shared by the nn tests: a seeded set of positions over both pitches, all variants and both
// sides to move.
#pragma once

#include <random>
#include <thread>
#include <vector>

#include "engine/random_positions.h"
#include "nn/evaluator.h"

namespace ps::testing {

/// n unfinished positions after 0-8 random turns (engine random_position); every third is on
/// 8x12, variants cycle.
inline std::vector<Position> mixed_positions(int n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  for (int i = 0; i < n; ++i) {
    const Pitch& pitch = i % 3 == 2 ? Pitch::get(8, 12, 2) : Pitch::get(8, 10, 2);
    out.push_back(random_position(pitch, Variant(i % kNumVariants), int(rng() % 9), rng));
  }
  return out;
}

/// `threads` threads each evaluate every position once through `ev`, in staggered orders, all
/// at the same time; result[t][i] is thread t's evaluation of positions[i].
inline std::vector<std::vector<Evaluation>> evaluate_concurrently(
    Evaluator& ev, const std::vector<Position>& positions, int threads) {
  std::vector<std::vector<Evaluation>> got(size_t(threads), std::vector<Evaluation>(positions.size()));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (size_t k = 0; k < positions.size(); ++k) {
        const size_t i = (k + size_t(t) * 5) % positions.size();
        ev.evaluate(positions[i], got[size_t(t)][i]);
      }
    });
  for (auto& th : pool) th.join();
  return got;
}

}  // namespace ps::testing
