// engine/random_positions.h: seeded, reproducible, never finished, varied.
#include <catch2/catch.hpp>

#include <set>

#include "engine/random_positions.h"

using namespace ps;

TEST_CASE("random_positions: the same seed gives the same unfinished positions") {
  for (const Pitch* pitch : {&Pitch::get(8, 10, 2), &Pitch::get(8, 12, 2)}) {
    for (int v = 0; v < kNumVariants; ++v) {
      const std::vector<Position> a = random_positions(*pitch, Variant(v), 40, 5, 29);
      const std::vector<Position> b = random_positions(*pitch, Variant(v), 40, 5, 29);
      REQUIRE(a.size() == 40);
      std::set<uint64_t> distinct;
      int sides[2] = {0, 0};
      for (size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].hash() == b[i].hash());
        CHECK_FALSE(a[i].game_over());
        CHECK(&a[i].pitch() == pitch);
        distinct.insert(a[i].hash());
        ++sides[a[i].side_to_move()];
      }
      CHECK(distinct.size() > 20);  // 0-29 random turns: mostly different positions
      CHECK(sides[0] > 0);
      CHECK(sides[1] > 0);
    }
  }
  CHECK(random_positions(Pitch::standard(), Variant::kStandard, 8, 6, 29)[3].hash() !=
        random_positions(Pitch::standard(), Variant::kStandard, 8, 5, 29)[3].hash());
}

TEST_CASE("random_position: 0 turns is the start, bad counts are errors") {
  std::mt19937_64 rng(1);
  CHECK(random_position(Pitch::standard(), Variant::kStandard, 0, rng).hash() ==
        Position(Pitch::standard(), Variant::kStandard).hash());
  CHECK(random_positions(Pitch::standard(), Variant::kStandard, 0, 1, 5).empty());
  CHECK_THROWS_WITH(random_positions(Pitch::standard(), Variant::kStandard, -1, 1, 5),
                    Catch::Contains("count -1"));
  CHECK_THROWS_WITH(random_positions(Pitch::standard(), Variant::kStandard, 3, 1, -2),
                    Catch::Contains("max_turns -2"));
}
