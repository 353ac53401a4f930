#include "engine/random_positions.h"

#include <stdexcept>
#include <string>

#include "engine/turns.h"

namespace ps {

Position random_position(const Pitch& pitch, Variant variant, int turns, std::mt19937_64& rng) {
  Position pos(pitch, variant);
  TurnGenerator gen;
  std::vector<const Turn*> ongoing;
  for (int t = 0; t < turns; ++t) {
    const std::vector<Turn> list = gen.generate(pos);
    ongoing.clear();
    for (const Turn& turn : list)
      if (turn.winner < 0) ongoing.push_back(&turn);
    if (ongoing.empty()) break;
    for (char c : ongoing[rng() % ongoing.size()]->kicks) pos.make_kick(c - '0');
  }
  return pos;
}

std::vector<Position> random_positions(const Pitch& pitch, Variant variant, int count, uint64_t seed,
                                       int max_turns) {
  if (count < 0 || max_turns < 0)
    throw std::invalid_argument("random_positions: count " + std::to_string(count) + " and max_turns " +
                                std::to_string(max_turns) + " must be >= 0");
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  out.reserve(size_t(count));
  for (int i = 0; i < count; ++i) {
    const int turns = int(rng() % uint64_t(max_turns + 1));
    out.push_back(random_position(pitch, variant, turns, rng));
  }
  return out;
}

}  // namespace ps
