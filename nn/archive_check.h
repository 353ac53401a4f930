// Checks a checkpoint's payload, a LibTorch serialize archive, before LibTorch parses it
// (torch-free, library ps_nn_core).
//
// LibTorch's archive reader trusts its input: a zip whose TorchScript class definitions or
// pickles were altered can crash it (e.g. SIGSEGV in ScriptTypeParser::parseClassConstant) rather
// than throw. The checksum of a checkpoint catches accidents, not a file whose checksum was
// recomputed. So before handing the bytes to LibTorch, check_torch_archive() verifies that they
// are exactly the kind of archive torch::serialize::OutputArchive writes for our nets:
//   - the zip: end records (zip64 included), central directory and local headers agree, every
//     entry lies inside the file, no two overlap, no encryption, stored or deflated, CRC-32 of
//     every entry correct, entry names unique and among the records such an archive holds;
//   - code/*.py: only the class declarations OutputArchive emits (`class Module(Module):`,
//     __parameters__/__buffers__ lists, attribute and __annotations__ lines with a Tensor, str,
//     int, float or bool type or a class of the archive), classes referring only to defined
//     classes, no cycles;
//   - data.pkl, constants.pkl, *.debug_pkl: a pickle interpreter over the opcodes the
//     TorchScript pickler emits, with typed values: globals from a short list, objects of
//     declared classes with exactly their declared attributes of their declared types, tensors
//     within their storages, storages within their data records, bounded nesting and sizes.
// Anything else is rejected with a message saying what and where (entry name, byte offset).
#pragma once

#include <stdexcept>
#include <string>

namespace ps::nn {

/// A payload that is not a well-formed archive of ours: what() says what and where.
class ArchiveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws ArchiveError unless `payload` passes every check above.
void check_torch_archive(const std::string& payload);

}  // namespace ps::nn
