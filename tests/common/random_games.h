// Test helpers: random kicks and random positions reached by random distinct turns.
#pragma once

#include <random>
#include <vector>

#include "engine/record.h"
#include "engine/turns.h"

namespace ps::testing {

/// A uniformly random legal kick of pos (pos must not be finished).
inline int random_kick(const Position& pos, std::mt19937_64& rng) {
  unsigned legal = pos.legal_kicks();
  int pick = int(rng() % unsigned(__builtin_popcount(legal)));
  while (pick--) legal &= legal - 1;
  return __builtin_ctz(legal);
}

/// Plays up to max_turns uniformly random distinct turns (stops early when the game ends).
inline Game random_game(const Pitch& pitch, Variant v, int max_turns, std::mt19937_64& rng) {
  Game g(pitch, v);
  TurnGenerator gen;
  for (int t = 0; t < max_turns && !g.position().game_over(); ++t) {
    auto turns = gen.generate(g.position());
    g.play_turn(turns[rng() % turns.size()].kicks);
  }
  return g;
}

}  // namespace ps::testing
