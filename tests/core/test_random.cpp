#include <catch2/catch.hpp>

#include "core/random.h"

using namespace ps;

TEST_CASE("splitmix64: the reference stream from state 0", "[core]") {
  // The first outputs of Vigna's splitmix64.c seeded with 0.
  uint64_t state = 0;
  CHECK(splitmix64_next(state) == 0xE220A8397B1DCDAFULL);
  CHECK(splitmix64_next(state) == 0x6E789E6AA1B965F4ULL);
  CHECK(splitmix64_next(state) == 0x06C45D188009454FULL);
  CHECK(state == 3 * kSplitMixGamma);
  // The stateless form is the output at state x + gamma.
  CHECK(splitmix64(0) == 0xE220A8397B1DCDAFULL);
  CHECK(splitmix64(kSplitMixGamma) == 0x6E789E6AA1B965F4ULL);
}
