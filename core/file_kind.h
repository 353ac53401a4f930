// The binary files of the toolkit, told apart by the magic they begin with, so that a reader
// given a file of another kind names it ("a value net file (.vnet), alpha-beta's evaluation,
// given where a network checkpoint or model belongs") instead of calling it corrupt. Formats:
// nn/checkpoint_envelope.h (checkpoints and models), valuenet/value_net_file.h (value nets),
// selfplay/data.h (self-play data chunks). Header-only and torch-free.
#pragma once

#include <cstring>
#include <string>

namespace ps {

enum class FileKind { Checkpoint, ValueNet, Chunk };

constexpr char kCheckpointMagic[8] = {'P', 'S', 'N', 'E', 'T', 'C', 'K', '1'};
constexpr char kValueNetMagic[4] = {'P', 'S', 'V', 'N'};
constexpr char kChunkMagic[4] = {'P', 'S', 'D', 'Z'};

/// Whether `bytes` begin with the magic of `kind` (all of it: a shorter file does not).
inline bool begins_with_magic(const std::string& bytes, FileKind kind) {
  const char* magic = kind == FileKind::Checkpoint ? kCheckpointMagic
                      : kind == FileKind::ValueNet ? kValueNetMagic
                                                   : kChunkMagic;
  const size_t n = kind == FileKind::Checkpoint ? sizeof(kCheckpointMagic) : 4;
  return bytes.size() >= n && std::memcmp(bytes.data(), magic, n) == 0;
}

/// The first check of a reader of `wanted` files given `bytes`: "empty file (0 bytes)"; or, when
/// the bytes begin another kind's magic, "not a <wanted>: <the other kind>, given where <wanted>
/// belongs (<where the other kind goes>)"; else "" (the reader goes on with its own checks).
inline std::string foreign_file_problem(const std::string& bytes, FileKind wanted) {
  if (bytes.empty()) return "empty file (0 bytes)";
  struct Names {
    const char* noun;   // what the reader wants, after "not a "
    const char* what;   // what such a file is, given to another reader
    const char* place;  // where it belongs
    const char* hint;   // which reader takes it
  };
  auto names = [](FileKind k) -> Names {
    switch (k) {
      case FileKind::Checkpoint:
        return {"papersoccer net checkpoint", "a network checkpoint or model (.ckpt, .model), PUCT's network",
                "a network checkpoint or model", "bot takes a model as MODEL"};
      case FileKind::ValueNet:
        return {"value-net file", "a value net file (.vnet), alpha-beta's evaluation", "a value net",
                "bot takes it as --value-net FILE"};
      case FileKind::Chunk:
      default:
        return {"training data chunk", "a self-play data chunk (.psd)", "a data chunk",
                "train reads a folder of them as --data DIR"};
    }
  };
  for (FileKind other : {FileKind::Checkpoint, FileKind::ValueNet, FileKind::Chunk}) {
    if (other == wanted || !begins_with_magic(bytes, other)) continue;
    const Names w = names(wanted), o = names(other);
    return std::string("not a ") + w.noun + ": " + o.what + ", given where " + w.place + " belongs (" +
           o.hint + ")";
  }
  return "";
}

}  // namespace ps
