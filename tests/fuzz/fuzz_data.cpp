// Training data chunks (selfplay/data.h: parse_chunk, the reader behind read_chunk). An input that
// starts with the file magic "PSDZ" is taken as a whole file (header, zstd frames, any version);
// any other input is taken as a version-1 payload (the games) and compressed here into a valid
// file, so the fuzzer reaches the game decoder and validation rather than zstd's checksum.
// Errors must be DataError starting with the file name; every game it returns must be
// replayable.
#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_common.h"
#include "selfplay/data.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (!ps::fuzz::starts_with(bytes, "PSDZ")) {
    std::string file("PSDZ", 4);
    const uint32_t version = 1;  // version 1: one frame of "PSTD", game count, games
    const uint64_t n = bytes.size();
    file.append(reinterpret_cast<const char*>(&version), 4);
    file.append(reinterpret_cast<const char*>(&n), 8);
    std::string comp(ZSTD_compressBound(bytes.size()), '\0');
    const size_t c = ZSTD_compress(comp.data(), comp.size(), bytes.data(), bytes.size(), 1);
    if (ZSTD_isError(c)) return 0;
    file.append(comp.data(), c);
    bytes = file;
  }
  try {
    std::vector<std::string> warnings;
    auto games = ps::parse_chunk("fuzz.psd", bytes, &warnings);
    for (const std::string& w : warnings)
      ps::fuzz::expect(ps::fuzz::starts_with(w, "fuzz.psd: game "), "warning without file and game", w);
    for (const auto& g : games)
      for (const auto& s : g.samples) {
        ps::Position pos = ps::sample_position(g, s);
        (void)pos;
      }
  } catch (const ps::DataError& e) {
    ps::fuzz::expect(ps::fuzz::starts_with(e.what(), "fuzz.psd: "), "DataError without file",
                     e.what());
  }
  return 0;
}
