// The envelope of a network checkpoint file (nn/checkpoint.h): 8-byte magic "PSNETCK1", the
// payload's size (uint64 little-endian), its FNV-1a 64 checksum (uint64 LE), then the payload.
// Header-only and torch-free, so that the run report checks checkpoint files without LibTorch.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "core/byte_io.h"
#include "core/checksum.h"

namespace ps::nn {

constexpr char kCheckpointMagic[8] = {'P', 'S', 'N', 'E', 'T', 'C', 'K', '1'};
constexpr size_t kCheckpointHeaderSize = 24;
/// The FNV-1a 64 basis (core/checksum.h: fnv1a64_bytes) written by files before the fix (a digit
/// short); accepted when reading.
constexpr uint64_t kFnv1a64LegacyBasis = 1469598103934665603ull;

/// Why a file's bytes are not a whole checkpoint envelope (bad magic, a payload size other than
/// the header's, a checksum mismatch), or "" when they are.
inline std::string checkpoint_envelope_problem(const std::string& data) {
  if (data.empty()) return "empty file (0 bytes)";
  if (data.size() < kCheckpointHeaderSize || std::memcmp(data.data(), kCheckpointMagic, 8) != 0) {
    // "PSVN": the magic of a value net file (valuenet/value_net_file.h), which alpha-beta reads.
    if (data.compare(0, 4, "PSVN") == 0)
      return "not a papersoccer net checkpoint: a value net file (.vnet), alpha-beta's evaluation, "
             "given where a network checkpoint or model belongs (bot takes it as --value-net FILE)";
    return "not a papersoccer net checkpoint (bad magic or too short)";
  }
  const uint64_t size = get_le<uint64_t>(data.data() + 8);
  const uint64_t sum = get_le<uint64_t>(data.data() + 16);
  if (data.size() - kCheckpointHeaderSize != size)
    return "truncated or padded: payload is " + std::to_string(data.size() - kCheckpointHeaderSize) +
           " bytes, header says " + std::to_string(size);
  const char* payload = data.data() + kCheckpointHeaderSize;
  if (fnv1a64_bytes(payload, size) != sum && fnv1a64_bytes(payload, size, kFnv1a64LegacyBasis) != sum)
    return "checksum mismatch (the file is corrupted)";
  return "";
}

}  // namespace ps::nn
