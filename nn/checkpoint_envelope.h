// The envelope of a network checkpoint file (nn/checkpoint.h): 8-byte magic "PSNETCK1"
// (kCheckpointMagic of core/file_kind.h), the payload's size (uint64 little-endian), its FNV-1a
// 64 checksum (uint64 LE), then the payload.
// Header-only and torch-free, so that the run report checks checkpoint files without LibTorch.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "core/byte_io.h"
#include "core/checksum.h"
#include "core/file_kind.h"

namespace ps::nn {

constexpr size_t kCheckpointHeaderSize = 24;
/// The FNV-1a 64 basis (core/checksum.h: fnv1a64_bytes) written by files before the fix (a digit
/// short); accepted when reading.
constexpr uint64_t kFnv1a64LegacyBasis = 1469598103934665603ull;

/// Why a file's bytes are not a whole checkpoint envelope (bad magic, a payload size other than
/// the header's, a checksum mismatch), or "" when they are.
inline std::string checkpoint_envelope_problem(const std::string& data) {
  if (std::string problem = foreign_file_problem(data, FileKind::Checkpoint); !problem.empty())
    return problem;
  if (data.size() < kCheckpointHeaderSize || !begins_with_magic(data, FileKind::Checkpoint))
    return "not a papersoccer net checkpoint (bad magic or too short)";
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
