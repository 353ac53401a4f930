// The test-vector line form (engine/tsv.h), fed line by line as the readers do.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "engine/tsv.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::string line;
  while (std::getline(in, line)) {
    if (ps::is_tsv_header(line)) continue;
    try {
      ps::TsvRow row = ps::parse_tsv_row(line);
      ps::Game g = ps::tsv_row_game(row);
      (void)g;
    } catch (const ps::RecordError&) {
    } catch (const std::invalid_argument&) {
    }
  }
  return 0;
}
