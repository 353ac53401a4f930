// FNV-1a 64: the checksum of small self-describing binary files (value nets, network
// checkpoints). Header-only.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ps {

constexpr uint64_t kFnv1a64OffsetBasis = 14695981039346656037ull;

inline uint64_t fnv1a64_bytes(const char* data, size_t n, uint64_t h = kFnv1a64OffsetBasis) {
  for (size_t i = 0; i < n; ++i) {
    h ^= uint8_t(data[i]);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace ps
