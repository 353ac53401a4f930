// SplitMix64 (Steele, Lea, Flood 2014, "Fast splittable pseudorandom number generators"): the
// one 64-bit mixer of the project, for seeds derived from other seeds and for fixed hash keys
// (header-only, standard library only: the exported single-file bot carries it).
#pragma once

#include <cstdint>

namespace ps {

/// The golden-ratio increment of SplitMix64.
constexpr uint64_t kSplitMixGamma = 0x9E3779B97F4A7C15ULL;

/// SplitMix64's output for the state x + kSplitMixGamma: a well-mixed hash of x (bijective).
inline uint64_t splitmix64(uint64_t x) {
  x += kSplitMixGamma;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// The next number of the SplitMix64 stream at state; advances state.
inline uint64_t splitmix64_next(uint64_t& state) {
  const uint64_t out = splitmix64(state);
  state += kSplitMixGamma;
  return out;
}

}  // namespace ps
