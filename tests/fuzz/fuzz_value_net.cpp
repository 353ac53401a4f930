// Value-net files (valuenet/value_net_file.h: parse_value_net). An input that starts with the file
// magic is taken as a whole file. Any other input is taken as the part after magic and version:
// it gets a valid magic, version and checksum, as a hostile editor would do, so the fuzzer gets
// past the checksum into the header and shape checks. Errors must be ValueNetError naming the
// file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/checksum.h"
#include "fuzz_common.h"
#include "valuenet/value_net_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (!ps::fuzz::starts_with(bytes, "PSVN")) {
    std::string file("PSVN\x01\x00\x00\x00", 8);
    file += bytes;
    const uint64_t h = ps::fnv1a64_bytes(file.data(), file.size());
    for (int i = 0; i < 8; ++i) file.push_back(char((h >> (8 * i)) & 0xff));
    bytes = file;
  }
  try {
    ps::parse_value_net("fuzz.vnet", bytes);
  } catch (const ps::ValueNetError& e) {
    ps::fuzz::expect(ps::fuzz::starts_with(e.what(), "value net fuzz.vnet: "), "error without the file",
                     e.what());
  }
  return 0;
}
