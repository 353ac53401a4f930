// Balanced openings: a few random turns from the start position, seeded, so that a tournament
// between deterministic players still plays varied games. Each opening is played twice per
// pairing with colours swapped, which cancels most of any bias it has left.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/pitch.h"

namespace ps::tour {

struct OpeningOptions {
  int count = 8;            ///< openings wanted
  int turns = 4;            ///< random turns per opening (0 = the start position)
  uint64_t seed = 1;
  /// When > 0, each candidate is also played out this many times with uniformly random turns,
  /// and kept only when player 0's share of wins lies within 0.5 +- max_imbalance.
  int balance_rollouts = 0;
  double max_imbalance = 0.25;
  int max_attempts = 10000;  ///< candidates tried before giving up
};

/// Openings as lists of turns (kick-digit strings). Each opening is drawn turn by turn,
/// uniformly among the distinct turns (TurnGenerator::generate), and kept only when the game is
/// not over, the side to move cannot win at once, not every turn of the side to move loses at
/// once, the end position differs from every opening kept so far, and (optionally) random
/// play-outs find it balanced. With turns == 0 every opening is the start position and count
/// is 1. Deterministic for a given seed. Throws std::runtime_error when max_attempts candidates
/// do not give `count` openings.
std::vector<std::vector<std::string>> generate_openings(const Pitch& pitch, Variant variant,
                                                        const OpeningOptions& options);

/// Record notation of an opening ("4 2 0 635"; "" for the start position).
std::string opening_record(const std::vector<std::string>& turns);

}  // namespace ps::tour
