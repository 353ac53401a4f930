#include <catch2/catch.hpp>

#include <string>

#include "core/file_kind.h"

using namespace ps;

TEST_CASE("file kind: an empty file is named empty for every reader") {
  for (FileKind k : {FileKind::Checkpoint, FileKind::ValueNet, FileKind::Chunk})
    CHECK(foreign_file_problem("", k) == "empty file (0 bytes)");
}

TEST_CASE("file kind: a file of another kind is named with where it belongs") {
  const std::string model = std::string(kCheckpointMagic, 8) + std::string(40, 'x');
  const std::string vnet = std::string(kValueNetMagic, 4) + std::string(40, 'x');
  const std::string chunk = std::string(kChunkMagic, 4) + std::string(40, 'x');
  // Regression: `bot --value-net X.model` said "bad magic; expected PSVN".
  CHECK(foreign_file_problem(model, FileKind::ValueNet) ==
        "not a value-net file: a network checkpoint or model (.ckpt, .model), PUCT's network, given "
        "where a value net belongs (bot takes a model as MODEL)");
  CHECK(foreign_file_problem(vnet, FileKind::Checkpoint) ==
        "not a papersoccer net checkpoint: a value net file (.vnet), alpha-beta's evaluation, given where a "
        "network checkpoint or model belongs (bot takes it as --value-net FILE)");
  CHECK(foreign_file_problem(chunk, FileKind::ValueNet) ==
        "not a value-net file: a self-play data chunk (.psd), given where a value net belongs (train reads a "
        "folder of them as --data DIR)");
  CHECK(foreign_file_problem(vnet, FileKind::Chunk).rfind("not a training data chunk: a value net file", 0) ==
        0);
}

TEST_CASE("file kind: a file of the wanted kind or of none is left to its reader") {
  CHECK(foreign_file_problem(std::string(kValueNetMagic, 4) + "rest", FileKind::ValueNet).empty());
  CHECK(foreign_file_problem("hello world", FileKind::Checkpoint).empty());
  // A file shorter than a magic begins none: "PSNE" is not the checkpoint magic "PSNETCK1".
  CHECK_FALSE(begins_with_magic("PSNE", FileKind::Checkpoint));
  CHECK(foreign_file_problem("PSNE", FileKind::ValueNet).empty());
}
