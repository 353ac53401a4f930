// Shared by the trainers' tests: a played game's record and result written into its GameData,
// and each sample's result target (for the side to move at that sample) and turns left.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/record.h"
#include "selfplay/data.h"

namespace ps::test {

/// sides[k]: the side to move at d.samples[k]; game_id: the game's number in its chunk.
inline void finish_game_data(GameData& d, const Game& g, const std::vector<int>& sides, uint64_t game_id) {
  d.record = g.record();
  d.width = g.position().pitch().width();
  d.length = g.position().pitch().length();
  d.goal = g.position().pitch().goal();
  d.variant = g.position().variant();
  d.winner = int8_t(g.position().winner());
  d.reason = g.position().reason();
  d.game_id = game_id;
  for (size_t k = 0; k < d.samples.size(); ++k) {
    d.samples[k].result = int8_t(sides[k] == d.winner ? 1 : -1);
    d.samples[k].turns_left = uint16_t(d.samples.size() - k);
  }
}

}  // namespace ps::test
