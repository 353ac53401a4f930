// Record notation and flat kick lists (engine/record.h: parse_record, parse_kicks).
// Byte 0 picks pitch and variant, the rest is the record.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/record.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const int kPitches[][3] = {{8, 10, 2}, {4, 4, 2}, {6, 8, 2}, {10, 12, 4}};
  const int* p = kPitches[data[0] & 3];
  const ps::Pitch& pitch = ps::Pitch::get(p[0], p[1], p[2]);
  const ps::Variant variant = ps::Variant((data[0] >> 2) % ps::kNumVariants);
  const bool flat = data[0] & 0x80;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    ps::Game g = flat ? ps::parse_kicks(pitch, variant, text) : ps::parse_record(pitch, variant, text);
    // A parsed game must print back to a record that parses to the same position.
    const std::string rec = g.record();
    if (!flat || g.position().turn_start()) {
      ps::Game again = ps::parse_kicks(pitch, variant, rec);
      ps::fuzz::expect(again.position().hash() == g.position().hash(), "record round trip", rec);
    }
  } catch (const ps::RecordError& e) {
    ps::fuzz::expect(e.turn() >= 0 && e.kick() >= 0, "RecordError indices", e.what());
  }
  return 0;
}
