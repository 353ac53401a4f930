// Seeded random positions for benchmarks and tests: each one is reached from the start by a
// random number of random complete turns, none of which ends the game, so every position is an
// unfinished turn start with the side to move varying.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "engine/position.h"

namespace ps {

/// The position after up to `turns` complete turns from the start of (pitch, variant), each
/// drawn uniformly from rng among the distinct turns (TurnGenerator::generate, so bounded by its
/// enumeration limit) that do not end the game; fewer turns when a position has none such.
/// The result is never finished.
Position random_position(const Pitch& pitch, Variant variant, int turns, std::mt19937_64& rng);

/// `count` positions of random_position with a number of turns drawn uniformly from
/// 0..max_turns each, from one generator seeded with `seed` (the same arguments give the same
/// positions). Throws std::invalid_argument when count < 0 or max_turns < 0.
std::vector<Position> random_positions(const Pitch& pitch, Variant variant, int count, uint64_t seed,
                                       int max_turns);

}  // namespace ps
