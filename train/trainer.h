// The trainer: C++ LibTorch training of the policy/value net on self-play data.
//
// Data: the newest chunks of a data directory (selfplay/data.h), a sliding window whose size
// grows with the total amount of data like KataGo's shuffle window:
//     window(N) = N                                              for N <= c
//     window(N) = c * (1 + beta * ((N / c)^alpha - 1) / alpha)   for N > c, capped at max
// (c = window.min_samples, alpha = window.exponent, beta = window.scale). Each step draws a
// batch uniformly from the window (seeded by seed and step, so a resumed run draws the same
// batches) and mirrors each sample left-right with probability 1/2 (augmentation).
// Losses: per-kick policy cross-entropy against the root visit distribution of full searches
// (nn/encoder.h "Policy targets"; masked to the legal directions of each kick), value MSE on
// tanh or binary cross-entropy on sigmoid(2z) against the game result, optional Huber loss on
// the turns-left head; L2 regularisation through the optimizer's weight decay.
//
// Config keys (the `train:` map; defaults in brackets):
//   net: {...}               NetConfig for a new net (nn/net_config.h) [preset tiny]
//   device: cpu              cpu | cuda | cuda:N
//   threads: 0               at::set_num_threads (0 = leave LibTorch's default)
//   seed: 1
//   batch_size: 128
//   steps: 500               steps per train call (per generation in the loop)
//   rows_per_sample: 0       the loop's cap on training rows per new self-play sample: a
//                            generation trains min(steps, ceil(rows_per_sample * new samples /
//                            batch_size)) steps, so a small window is not replayed many times
//                            (KataGo keeps this near 4). 0: always `steps`. Read by the loop
//                            (loop/run.h) only; the `train` command trains `steps`.
//   optimizer: {type: sgd, lr: 0.02, momentum: 0.9, nesterov: true, weight_decay: 0.0001}
//              type adamw uses lr, weight_decay (decoupled), beta1 0.9, beta2 0.999
//   lr_schedule: {type: constant, warmup_steps: 0, step_every: 1000, gamma: 0.5, min_lr: 0}
//              type: constant | step (lr * gamma^(step / step_every)) | cosine (over `steps`
//              of each call, down to min_lr); linear warmup over the first warmup_steps steps
//   window: {min_samples: 20000, max_samples: 2000000, exponent: 0.75, scale: 0.4}
//   loss: {policy: 1.0, value: 1.0, moves_left: 0.05, value_loss: mse, cheap_value_weight: 1.0}
//              cheap_value_weight weights the value loss of cheap-search (value-only) samples;
//              search_value_weight w (0..1) [0] makes the value target (1 - w) * game result +
//              w * the search's root value: 1 is Descent's target (Cohen-Solal 2020: learn the
//              values the search backed up), 0 AlphaZero's
//   teacher: {data: "", fraction: 0.25}
//              training from a stronger player's games beside the window (expert iteration,
//              Anthony et al. 2017; AlphaGo's supervised stage): `data` is a folder of .psd
//              chunks of `teacher` games (selfplay/teacher.h: the teacher's turn as a one-hot
//              policy target, its search score as the root value), all of whose samples are
//              held; round(fraction * batch_size) samples of every batch are drawn from them,
//              the rest from the window. Empty data: none (every batch from the window)
//   mirror: true             left-right mirror augmentation
//   deterministic: false     deterministic kernels (at::globalContext().setDeterministicAlgorithms
//                            and cuDNN's deterministic mode; sets CUBLAS_WORKSPACE_CONFIG if
//                            unset): on a GPU a resumed run then repeats an uninterrupted one
//                            exactly, at some speed cost. The CPU path is deterministic anyway.
//   checkpoint_interval: 200 steps between resumable partial checkpoints
//   log_interval: 25         steps between metric lines (JSONL)
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/config.h"
#include "nn/net_config.h"

namespace ps {

struct TrainConfig {
  nn::NetConfig net = nn::NetConfig::tiny();
  std::string device = "cpu";
  int threads = 0;
  uint64_t seed = 1;
  int batch_size = 128;
  int64_t steps = 500;
  double rows_per_sample = 0.0;  ///< loop: training rows per new self-play sample (0 = off)
  struct Optimizer {
    std::string type = "sgd";
    double lr = 0.02, momentum = 0.9, weight_decay = 1e-4, beta1 = 0.9, beta2 = 0.999;
    bool nesterov = true;
  } optimizer;
  struct Schedule {
    std::string type = "constant";
    int64_t warmup_steps = 0, step_every = 1000;
    double gamma = 0.5, min_lr = 0.0;
  } lr_schedule;
  struct Window {
    int64_t min_samples = 20000, max_samples = 2000000;
    double exponent = 0.75, scale = 0.4;
    /// The window size for `total` samples (formula above).
    int64_t size(int64_t total) const;
  } window;
  struct Loss {
    double policy = 1.0, value = 1.0, moves_left = 0.05, cheap_value_weight = 1.0;
    double search_value_weight = 0.0;  ///< value target: (1 - w) * result + w * root value
    std::string value_loss = "mse";
  } loss;
  struct Teacher {
    std::string data;        ///< folder of teacher .psd chunks; empty: none
    double fraction = 0.25;  ///< share of each batch drawn from them, in [0, 1]
    /// Samples of each batch of `batch_size` drawn from the teacher's games (0 without data).
    int batch_share(int batch_size) const;
  } teacher;
  bool mirror = true;
  bool deterministic = false;
  int64_t checkpoint_interval = 200;
  int64_t log_interval = 25;

  /// Throws std::invalid_argument naming the bad field.
  void validate() const;
};

/// Reads the keys above (finish() is called). Throws ConfigError naming the key.
TrainConfig parse_train_config(ConfigReader& r);

/// One metric line (also written as JSON to the log).
struct TrainMetrics {
  int64_t step = 0;
  double policy_loss = 0, value_loss = 0, moves_left_loss = 0;
  /// The share of the logged steps' full-search samples with 2+ visited turns whose most
  /// visited turn is the one the net gives the highest chain probability among the visited
  /// turns (not among all legal turns). Samples with one visited turn (the teacher's one-hot
  /// targets) are left out: they would be right by construction. NaN when no sample had 2+
  /// visited turns (null in the JSONL log).
  double policy_accuracy = 0;
  int64_t policy_accuracy_samples = 0;  ///< the samples policy_accuracy counted
  double value_accuracy = 0;   ///< sign(value) == game result
  double lr = 0;
  double samples_per_s = 0;
  int64_t window = 0;          ///< samples in the window
};

/// policy_accuracy for progress lines: "policy acc 45% (2+ visited turns)", or "policy acc n/a
/// (no sample with 2+ visited turns)" when it is NaN.
std::string policy_accuracy_text(const TrainMetrics& m);

struct TrainResult {
  int64_t start_step = 0, end_step = 0;
  int64_t window_samples = 0, total_samples = 0;
  int64_t teacher_samples = 0;          ///< samples of train.teacher.data (0: none)
  bool resumed = false;                 ///< continued from a partial checkpoint
  std::vector<TrainMetrics> metrics;    ///< every logged line of this call
  double seconds = 0;
  double samples_per_s = 0;
};

/// "; 32 of each batch of 128 from 5,000 teacher samples" for a call with train.teacher.data,
/// "" without.
std::string teacher_share_text(const TrainConfig& config, const TrainResult& result);

using TrainProgress = std::function<void(const TrainMetrics& m, int64_t target_step)>;

/// Trains config.steps steps and writes checkpoint_out (atomically, with optimizer state).
/// Starts from checkpoint_in (its weights, optimizer state when present, and training step), or
/// from a new net (config.net) when checkpoint_in is empty. While training, a partial
/// checkpoint `checkpoint_out + ".partial"` is saved every checkpoint_interval steps; a call
/// that finds one resumes from it exactly (same batches, same optimizer state) and removes it
/// at the end. Metrics go to log_path as JSON lines (when not empty). Throws DataError /
/// CheckpointError / std::runtime_error naming the file, or std::runtime_error when the data
/// directory holds no usable sample.
TrainResult train_network(const TrainConfig& config, const std::string& data_dir,
                          const std::string& checkpoint_in, const std::string& checkpoint_out,
                          const std::string& log_path, const std::string& note = "",
                          const TrainProgress& progress = {},
                          const std::atomic<bool>* cancel = nullptr);

/// Writes a freshly initialised net (config.net, seeded by config.seed) to path: generation 0.
void write_initial_checkpoint(const TrainConfig& config, const std::string& path,
                              const std::string& note = "");

}  // namespace ps
