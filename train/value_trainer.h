// The value-net trainer: fits the alpha-beta search's small value net (valuenet/value_net.h) to
// the same self-play data as the residual net (selfplay/data.h), with LibTorch on the CPU, and
// writes a .vnet file (valuenet/value_net_file.h).
//
// Data: every sample of the data directory (newest first, at most max_samples; the shared
// window reader train/window.h), on the pitch and variant of the newest game (games of other
// rules are skipped and counted). Games, not samples, are split into a training set and a
// held-out slice (`holdout` of the games, chosen by the seed), so positions of one game never
// sit on both sides.
// Inputs: value_features of the sample's position (the mover's frame; with the ball window of
// `window`), as a dense 0/1 vector;
// each training row is mirrored left-right with probability 1/2 (augmentation).
// Target (`target`): "result" the game result for the side to move (+1 / -1); "root" the
// search's root value (Descent's backed-up value target, Cohen-Solal 2020); "mix" their mean.
// Loss: mean squared error of tanh(output) against the target; Adam (lr, weight_decay).
// Early stopping: the file holds the weights of the held-out evaluation (every log_interval
// steps, and before the first step) with the lowest held-out MSE against the target, not the
// last step's: on self-play data whose results the position barely predicts, later steps only
// memorise the training games (measured on 704 games of a 3x24 ResNet: held-out MSE rose from
// 1.00 to above 1.1 while the training MSE fell to 0.1).
// Baselines: the same held-out slice scored by two trivial predictors, so that a net's figures
// can be read against what the data allows (see ValueTrainResult::baselines).
// Deterministic for a seed on the CPU with a fixed thread count (the batches come from a
// seeded generator, the initial weights from torch::manual_seed).
#pragma once

#include "core/config.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ps {

struct ValueTrainConfig {
  std::vector<int> hidden = {32, 32};  ///< hidden layer sizes (1 to 8 layers, 1..1024 each)
  std::string target = "result";       ///< result | root | mix
  int64_t steps = 3000;
  int batch_size = 512;
  double lr = 1e-3;
  double weight_decay = 0.0;
  uint64_t seed = 1;
  double holdout = 0.1;          ///< fraction of games held out, [0, 0.5]
  int64_t max_samples = 10000000;
  bool mirror = true;
  int64_t log_interval = 250;    ///< steps between progress lines (and held-out evaluations)
  float value_scale = 1000.0f;   ///< written into the file (search score per unit of value)
  int threads = 1;               ///< LibTorch intra-op threads (0: leave the default)
  /// A value-net file to start from instead of random weights (fine-tuning, e.g. on relabel's
  /// deeper-search targets): its hidden sizes and value_scale replace `hidden` and
  /// `value_scale`, and its pitch and variant choose the games trained on (else the newest
  /// game's). Empty: random.
  std::string init;
  /// Radius of the ball window inputs (valuenet/value_net.h; 0: none). With `init`: 0 keeps the
  /// init net's; a window on a net without one starts its columns at zero (the net's function is
  /// unchanged at step 0); another radius than the init net's is refused.
  int window = 0;
  /// The ball window's touched and trap inputs per cell too (ValueNet::window_points; needs a
  /// window, given or the init net's). With `init`: a net that has them keeps them; a net
  /// without them gets their columns at zero (its function is unchanged at step 0).
  bool window_points = false;
  /// The late game's labels: a position at most this many turns before its game's end is
  /// labelled by the game result alone, whatever `target` says (-1: never). Near the end the
  /// result is close to a proof, while the root value of the data's search is the estimate that
  /// walked into the loss (docs/experiments/late-game.md: the value net scores
  /// positions two to four turns before a proven loss at +0.5..+0.85). The held-out MSE is
  /// measured against the same per-position target. -1, or [1, 1000] (the position before the
  /// game's last turn has 1 turn left).
  int result_within = -1;
  /// Throws std::invalid_argument naming the bad field.
  void validate() const;
};

/// Reads ValueTrainConfig's keys from a YAML map (the value-net learner's `train:` map,
/// loop/value_net_run.h), each keeping `defaults`' value when absent: hidden (list), target,
/// steps, batch, lr, weight_decay, seed, holdout, max_samples, mirror, log_interval,
/// value_scale, threads, window, window_points, result_within. `init` is not a
/// key (the learner names the net to start from). Unknown keys and bad values are ConfigErrors
/// naming file, key and line.
ValueTrainConfig parse_value_train_config(ConfigReader& r, ValueTrainConfig defaults = {});

/// Held-out figures (and the training loss of the interval before).
struct ValueTrainMetrics {
  int64_t step = 0;
  double train_loss = 0;        ///< mean training MSE since the last line
  double holdout_mse = 0;       ///< MSE against the training target
  double holdout_mse_result = 0;  ///< MSE against the game result
  double holdout_sign_accuracy = 0;  ///< sign(value) == game result
  int64_t holdout_samples = 0;       ///< held-out positions of the three figures above (0: none, they are 0)
  /// The same two figures against the result on the held-out positions within
  /// ValueBaselines::late_turns turns of the end, and how many there are (0: none, and the two
  /// figures are 0; `train-value` prints n/a).
  double holdout_late_mse_result = 0, holdout_late_sign_accuracy = 0;
  int64_t holdout_late_samples = 0;
};

/// Sign accuracies of trivial predictors of the game result on the held-out slice (positions
/// whose predictor is 0 count as half right).
struct ValueBaselines {
  double root_sign_accuracy = 0;  ///< the self-play search's own root value (the sample's)
  double ball_sign_accuracy = 0;  ///< ball nearer the goal the side to move attacks: a win
  /// Share of held-out positions within `late_turns` turns of the game's end, and the root
  /// value's sign accuracy on them (where the results of self-play games are decided).
  static constexpr int late_turns = 15;
  double late_share = 0, late_root_sign_accuracy = 0;
};

struct ValueTrainResult {
  int64_t games = 0, train_samples = 0, holdout_samples = 0, skipped_games = 0;
  std::string pitch, variant;
  int window = 0;                    ///< the written net's ball window radius
  bool window_points = false;        ///< whether the written net has the window's point inputs
  ValueTrainMetrics initial, final;  ///< before the first step, after the last
  ValueTrainMetrics best;            ///< the evaluation whose weights the file holds (lowest MSE)
  ValueBaselines baselines;          ///< zeros when nothing is held out
  double seconds = 0;
};

using ValueTrainProgress = std::function<void(const ValueTrainMetrics&)>;

/// Trains a value net on data_dir and writes it to out_path atomically. Throws
/// std::runtime_error naming the directory when there is no usable sample, DataError for a
/// data directory that cannot be read, std::invalid_argument for a bad config or an `init` net
/// whose rules no game of the data has, ValueNetError (valuenet/value_net_file.h) for an `init`
/// file that cannot be read.
ValueTrainResult train_value_net(const ValueTrainConfig& config, const std::string& data_dir,
                                 const std::string& out_path,
                                 const ValueTrainProgress& progress = {});

}  // namespace ps
