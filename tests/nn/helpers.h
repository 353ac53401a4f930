// Shared by the nn tests: a seeded set of positions over both pitches, all variants and both
// sides to move.
#pragma once

#include <random>
#include <vector>

#include "engine/turns.h"

namespace ps::testing {

/// n unfinished positions after 0-8 random turns; every third is on 8x12, variants cycle.
inline std::vector<Position> mixed_positions(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Position> out;
  TurnGenerator gen;
  while (int(out.size()) < n) {
    const Pitch& pitch = out.size() % 3 == 2 ? Pitch::get(8, 12, 2) : Pitch::get(8, 10, 2);
    Position pos(pitch, Variant(out.size() % kNumVariants));
    const int turns = int(rng() % 9);
    for (int t = 0; t < turns && !pos.game_over(); ++t) {
      std::vector<Turn> list = gen.generate(pos);
      const Turn& pick = list[rng() % list.size()];
      if (pick.winner >= 0) break;
      for (char c : pick.kicks) pos.make_kick(c - '0');
    }
    if (!pos.game_over()) out.push_back(pos);
  }
  return out;
}

}  // namespace ps::testing
