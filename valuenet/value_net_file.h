// The value-net file (".vnet"): a self-describing, checksummed binary of a ValueNet
// (valuenet/value_net.h), written by `papersoccer train-value` and read by the alphabeta player.
//
// Layout, little-endian, version 1 (a net without a ball window), 2 (with one) or 3 (with one and
// its points, ValueNet::window_points):
//   "PSVN"                        magic (4 bytes)
//   u32 version                   1, 2 or 3
//   u32 width, length, goal       the pitch
//   u32 variant                   0 standard, 1 single-bounce, 2 no-bounce
//   u32 window                    versions 2 and 3: the ball window's radius (valuenet/value_net.h)
//   f32 value_scale               search score = value * value_scale
//   u32 num_layers                2 .. 16
//   num_layers x (u32 in, u32 out)
//   per layer: out * in f32 weights (row-major, out rows), out f32 biases
//   u64 checksum                  FNV-1a 64 (core/checksum.h) of every byte before it
// The file's size must be exactly what the header implies: nothing missing, nothing after the
// checksum. Files are written atomically (temp + rename).
#pragma once

#include <stdexcept>
#include <string>

#include "valuenet/value_net.h"

namespace ps {

/// The newest version this build reads and writes; each net is written in the oldest version that
/// holds it (1 without a ball window, 2 with one, 3 with its points), which older builds read.
constexpr uint32_t kValueNetFileVersion = 3;
/// Largest file load_value_net reads (256 MiB; eight 1024-wide layers over the largest pitch's
/// inputs are about 40 MB): another file given by mistake is refused, not read into memory.
constexpr int64_t kMaxValueNetBytes = int64_t(256) << 20;

/// A bad value-net file: what() is "value net <path>: <what is wrong>".
class ValueNetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The file's bytes for net (validated first; throws std::invalid_argument when it is invalid).
std::string value_net_bytes(const ValueNet& net);
/// Writes net to path atomically. Throws std::runtime_error naming the path.
void save_value_net(const ValueNet& net, const std::string& path);
/// Parses bytes (name is used in messages). Checks magic, version, sizes, checksum, shapes and
/// finite weights; never reads past the end or allocates more than the bytes hold. Returns a
/// finalized net. Throws ValueNetError.
ValueNet parse_value_net(const std::string& name, const std::string& bytes);
/// Reads and parses a file. Throws ValueNetError (also for a missing or unreadable file).
ValueNet load_value_net(const std::string& path);
/// load_value_net for a command's flag: its ValueNetError says "<given_by>: value net <path>: ..."
/// (e.g. given_by "train-value --init"), so the user sees which argument named the file.
ValueNet load_value_net(const std::string& path, const std::string& given_by);

}  // namespace ps
