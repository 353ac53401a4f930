// Network checkpoints (nn/checkpoint.h: load_checkpoint_bytes). An input that does not start
// with the file magic is taken as the payload (the archive) and given a valid header, so the
// fuzzer gets past the checksum into the archive checks and LibTorch. Errors must be
// CheckpointError naming the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.h"
#include "nn/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (!ps::fuzz::starts_with(bytes, "PSNETCK1")) bytes = ps::nn::checkpoint_file_bytes(bytes);
  try {
    ps::nn::LoadedCheckpoint ck = ps::nn::load_checkpoint_bytes("fuzz.ckpt", bytes);
    (void)ck;
  } catch (const ps::nn::CheckpointError& e) {
    ps::fuzz::expect(ps::fuzz::starts_with(e.what(), "checkpoint fuzz.ckpt: "),
                     "CheckpointError without file", e.what());
  }
  return 0;
}
