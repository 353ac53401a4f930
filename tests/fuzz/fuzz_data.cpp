// Training data chunks (selfplay/data.h: parse_chunk, the reader behind read_chunk). Errors must
// be DataError starting with the file name; every game it returns must be replayable.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.h"
#include "selfplay/data.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    std::vector<std::string> warnings;
    auto games = ps::parse_chunk("fuzz.psd", bytes, &warnings);
    for (const std::string& w : warnings)
      ps::fuzz::expect(ps::fuzz::starts_with(w, "fuzz.psd: "), "warning without file", w);
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
