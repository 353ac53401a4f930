// Batched inference service (torch-free header; implementation in library ps_nn).
//
// Many search threads and games call evaluate() concurrently. Requests are queued; a worker
// thread takes up to max_batch of them (waiting at most batch_timeout_us after the oldest
// request arrived for the batch to fill), encodes them into one tensor, runs one forward pass
// on the configured device and hands every caller its own result. Waiting uses condition
// variables only (no busy waiting). One batch holds one pitch size; requests on another pitch
// wait for the next batch. The destructor finishes the queued requests, then joins the workers.
// References for the design: KataGo's NNEvaluator and lc0's multiplexing backend (no code
// taken from either).
//
// On the CPU (glibc), the first service of a process raises malloc's trim and mmap thresholds
// (mallopt, process-wide) so that the forward passes' freed tensors stay mapped instead of
// being returned to the kernel and faulted in again at the next batch: resident memory stays at
// the process's peak use (docs/experiments/selfplay-throughput.md: the service's CPU per position 30-70%
// lower).
//
// Results are in the engine frame and for the side to move (see nn/evaluator.h): the net's
// mover-frame policy [8, H, GW] is rotated back for player 1 (point -> Pitch::rotate_point,
// direction -> rotate_dir).
//
// Config keys (a map, e.g. `nn:` in a search/selfplay config):
//   checkpoint: <path>         (read by callers that build the service from config)
//   device: cpu                cpu, cuda or cuda:N
//   max_batch: 64              positions per forward pass (>= 1)
//   batch_timeout_us: 1000     longest wait for a batch to fill, microseconds (>= 0)
//   workers: 1                 worker threads, each running whole batches (2 overlaps host
//                              work with GPU forwards)
//   torch_threads: 0           at::set_num_threads for intra-op parallelism (0 = leave as is;
//                              global to the process)
//   cache_entries: 0           evaluation cache slots keyed by position hash (0 = off); memory
//                              is bounded: about entries * (num_points * 32 + 64) bytes
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/config.h"
#include "nn/evaluator.h"

namespace ps::nn {

struct ServiceOptions {
  std::string device = "cpu";
  int max_batch = 64;
  int batch_timeout_us = 1000;
  int workers = 1;
  int torch_threads = 0;
  int64_t cache_entries = 0;

  /// Throws std::invalid_argument naming the bad field.
  void validate() const;
};

/// Reads the keys above except `checkpoint` (which stays for the caller to read: call
/// r.get<std::string>("checkpoint", ...) before r.finish()). Does not call r.finish().
/// Throws ps::ConfigError naming the key.
ServiceOptions parse_service_options(ConfigReader& r);

struct ServiceStats {
  uint64_t positions = 0;   ///< positions evaluated by the net (cache hits excluded)
  uint64_t batches = 0;     ///< forward passes
  uint64_t cache_hits = 0;
  double busy_s = 0;        ///< wall seconds workers spent on batches (encode, forward, results)
  double forward_s = 0;     ///< of which in forward passes (device copies included)
  double mean_batch() const { return batches ? double(positions) / double(batches) : 0.0; }
};

/// The service. Build one with make_net_evaluator (below, or nn/checkpoint.h for an in-memory
/// net). evaluate()/evaluate_many() are thread-safe and block until their results are ready;
/// they throw std::invalid_argument for a finished position or a pitch/variant the checkpoint
/// does not list, and std::runtime_error when the forward pass fails.
class NetEvaluator final : public Evaluator {
 public:
  struct Impl;
  explicit NetEvaluator(std::unique_ptr<Impl> impl);
  ~NetEvaluator() override;
  NetEvaluator(const NetEvaluator&) = delete;
  NetEvaluator& operator=(const NetEvaluator&) = delete;

  void evaluate(const Position& pos, Evaluation& out) override;
  /// Submits all n positions at once (they may share batches), then waits for all.
  void evaluate_many(const Position* const* positions, size_t n, Evaluation* out) override;
  std::string name() const override;
  ServiceStats stats() const;

 private:
  std::unique_ptr<Impl> impl_;
};

/// Loads a checkpoint (nn/checkpoint.h) and starts a service on options.device. Throws
/// CheckpointError (a std::runtime_error) naming the file on a bad checkpoint.
std::unique_ptr<NetEvaluator> make_net_evaluator(const std::string& checkpoint_path,
                                                 const ServiceOptions& options);

}  // namespace ps::nn
