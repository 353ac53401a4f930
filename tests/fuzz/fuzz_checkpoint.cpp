// Network checkpoints (nn/checkpoint.h: load_checkpoint_bytes). An input that starts with the
// file magic is taken as a whole file. Any other input is taken as the payload (the zip archive)
// whose stored records get their CRC-32 recomputed and which then gets a valid header, as a
// hostile editor would do: so the fuzzer gets past both checksums into the archive checks
// (nn/archive_check.h) and LibTorch. Errors must be CheckpointError naming the file.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.h"
#include "nn/checkpoint.h"

namespace {

uint32_t get32(const std::string& s, size_t off) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(uint8_t(s[off + size_t(i)])) << (8 * i);
  return v;
}
void put32(std::string& s, size_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i) s[off + size_t(i)] = char((v >> (8 * i)) & 0xFF);
}

/// Recomputes the CRC-32 of every stored (uncompressed) record named by a central directory
/// entry, where the entry's fields make sense; anything odd is left as it is.
void fix_crcs(std::string& zip) {
  const std::string sig("PK\x01\x02", 4);
  for (size_t c = zip.find(sig); c != std::string::npos && c + 46 <= zip.size(); c = zip.find(sig, c + 4)) {
    if ((get32(zip, c + 10) & 0xFFFF) != 0) continue;  // deflated: leave it
    const uint64_t size = get32(zip, c + 20), local = get32(zip, c + 42);
    if (local + 32 > zip.size()) continue;  // the name and extra lengths end at 30
    const uint64_t data = local + 30 + (get32(zip, local + 26) & 0xFFFF) + (get32(zip, local + 28) & 0xFFFF);
    if (data > zip.size() || zip.size() - data < size) continue;
    const uint32_t crc = uint32_t(crc32(0, reinterpret_cast<const Bytef*>(zip.data() + data), uInt(size)));
    put32(zip, c + 16, crc);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (!ps::fuzz::starts_with(bytes, "PSNETCK1")) {
    fix_crcs(bytes);
    bytes = ps::nn::checkpoint_file_bytes(bytes);
  }
  try {
    ps::nn::LoadedCheckpoint ck = ps::nn::load_checkpoint_bytes("fuzz.ckpt", bytes);
    (void)ck;
  } catch (const ps::nn::CheckpointError& e) {
    ps::fuzz::expect(ps::fuzz::starts_with(e.what(), "checkpoint fuzz.ckpt: "),
                     "CheckpointError without file", e.what());
  }
  return 0;
}
