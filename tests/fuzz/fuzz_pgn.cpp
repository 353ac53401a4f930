// PGN-like game files (engine/record.h: read_pgn). Errors must be "name:line: ...".
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "engine/record.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    auto games = ps::read_pgn(in, "fuzz.pgn", ps::Pitch::standard(), ps::Variant::kStandard);
    for (const auto& g : games) {
      const std::string text = ps::write_pgn(g.game, g.tags);
      std::istringstream again(text);
      auto back = ps::read_pgn(again, "again.pgn", ps::Pitch::standard(), ps::Variant::kStandard);
      ps::fuzz::expect(back.size() == 1 &&
                           back[0].game.position().hash() == g.game.position().hash(),
                       "pgn round trip", text);
    }
  } catch (const std::runtime_error& e) {
    ps::fuzz::expect(ps::fuzz::starts_with(e.what(), "fuzz.pgn:"), "PGN error without location",
                     e.what());
  }
  return 0;
}
