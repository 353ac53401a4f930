// Self-describing network checkpoints (LibTorch, library ps_nn).
//
// File layout: 8-byte magic "PSNETCK1", payload size (uint64 little-endian), FNV-1a 64 checksum
// of the payload (uint64 LE; standard offset basis 14695981039346656037, so `fnv1a64`-style tools
// can verify it; files written before this fix used 1469598103934665603 and are still accepted),
// then the payload: a torch::serialize archive holding
//   "meta"       JSON string (CheckpointMeta::to_json): format, input_format_version,
//                num_planes, net architecture (NetConfig), pitches, variants, training_step, note
//   "model"      the net's parameters and buffers (batch-norm running statistics)
//   "optimizer"  optional optimizer state, for an exact resume of training
// Files are written atomically (temp file + rename). Loading checks the magic, size and
// checksum (a truncated or corrupted file is a CheckpointError naming the path, never a crash),
// then the metadata (format and input format version), builds the net from the stored
// architecture and checks every stored tensor's shape.
#pragma once

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "nn/checkpoint_envelope.h"
#include "nn/net.h"
#include "nn/service.h"

namespace ps::nn {

/// Any problem with a checkpoint file: what() names the path and the problem.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CheckpointMeta {
  NetConfig net;
  int input_format_version = kInputFormatVersion;
  /// Pitch names (Pitch::name(), e.g. "8x10", "8x12") the net was trained for; empty = any.
  std::vector<std::string> pitches;
  /// Variant names (variant_name(), e.g. "standard") the net was trained for; empty = any.
  std::vector<std::string> variants;
  int64_t training_step = 0;
  std::string note;  ///< free text (run name, ...)
  /// A partial training checkpoint's step where its train_network call began (so a resumed
  /// call keeps the same target and schedule); -1 = not a partial checkpoint. Stored as
  /// "train_call_start" (older partial checkpoints kept it at the end of the note).
  int64_t train_call_start = -1;
  /// Elo rating and its 95% half-interval when known (exported models); NaN = unknown.
  double rating_elo = std::nan("");
  double rating_ci95 = std::nan("");

  /// Is (pitch, variant) among those listed (an empty list allows all)?
  bool supports(const Pitch& pitch, Variant variant) const;
  std::string to_json() const;
  /// Throws CheckpointError (prefixed with `where`) on malformed or unsupported metadata.
  static CheckpointMeta from_json(const std::string& json, const std::string& where);
};

/// Writes net (+ optimizer state when given) and meta to path atomically. meta.net must equal
/// net->config() (throws std::invalid_argument otherwise). Throws CheckpointError on I/O failure.
void save_checkpoint(const std::string& path, PolicyValueNet& net, const CheckpointMeta& meta,
                     const torch::optim::Optimizer* optimizer = nullptr);

struct LoadedCheckpoint {
  PolicyValueNet net{nullptr};  ///< built from meta.net, on the requested device, eval mode
  CheckpointMeta meta;
  bool has_optimizer = false;
};

/// Loads a checkpoint onto device ("cpu", "cuda", "cuda:N"). Throws CheckpointError naming the
/// path on any problem with the file, std::runtime_error/invalid_argument for a bad device.
LoadedCheckpoint load_checkpoint(const std::string& path, const std::string& device = "cpu");
/// load_checkpoint on a file's bytes already in memory; `name` stands for the path in messages.
LoadedCheckpoint load_checkpoint_bytes(const std::string& name, const std::string& bytes,
                                       const std::string& device = "cpu");
/// The bytes of a checkpoint file around an archive payload: magic, size, checksum, payload.
std::string checkpoint_file_bytes(const std::string& payload);
/// Reads only the metadata (still verifies the checksum).
CheckpointMeta read_checkpoint_meta(const std::string& path);
/// Restores optimizer state saved with the checkpoint into `optimizer`, which must have been
/// built over the loaded net's parameters in the same order with the same optimizer type.
/// Throws CheckpointError when the file holds no optimizer state or it does not fit.
void load_optimizer_state(const std::string& path, torch::optim::Optimizer& optimizer);

/// An inference service over an in-memory net (e.g. the trainer's current net). The net is
/// moved to options.device and set to eval mode; the service shares it (do not train it while
/// the service runs). meta.pitches/variants restrict what may be evaluated (empty = any).
std::unique_ptr<NetEvaluator> make_net_evaluator(PolicyValueNet net, const CheckpointMeta& meta,
                                                 const ServiceOptions& options,
                                                 const std::string& name = "net:memory");

}  // namespace ps::nn
