// The policy/value network (LibTorch, library ps_nn) and the helpers the trainer needs.
//
// Architecture (AlphaZero/KataGo style, fully convolutional so one net plays any pitch size):
//   input [B, kNumPlanes, H, GW] (nn/encoder.h; H = L + 3, GW = W + 1)
//   -> 3x3 conv C, BN, ReLU
//   -> `blocks` residual blocks: 3x3 conv, BN, ReLU, 3x3 conv, BN, + skip, ReLU. In a
//      global-pooling block (NetConfig::is_global_pool_block) the first conv also yields Cg
//      extra channels that are BN+ReLU'd, pooled over the ball points of the grid (mean, mean
//      scaled by (sqrt(points) - 10) / 10, max) and mapped by a linear layer to a bias for each
//      of the C channels (KataGo's global pooling bias).
//   policy head: 1x1 conv C -> P, BN, ReLU, 1x1 conv P -> 8: logits [B, 8, H, GW], mover frame,
//      channel d = kick direction d from that point (only legal kicks are meaningful).
//   value head: 1x1 conv C -> V, BN, ReLU, masked global pooling (3V), FC -> value_hidden, ReLU,
//      FC -> value logit z (and the moves-left output). value = tanh(z) in [-1, 1] for the side
//      to move; P(side to move wins) = sigmoid(2 z) (there are no draws).
// Pooling masks come from the input planes (field + goals), so zero padding and the goal rows'
// off-pitch points do not leak into the pooled features.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

#include "nn/encoder.h"
#include "nn/evaluator.h"
#include "nn/net_config.h"

namespace ps::nn {

/// Forward outputs, all on the input's device.
struct NetOutput {
  torch::Tensor policy;       ///< [B, 8, H, GW] logits, mover frame
  torch::Tensor value;        ///< [B] tanh(value_logit), expected result for the side to move
  torch::Tensor value_logit;  ///< [B] pre-tanh value (for a BCE loss on sigmoid(2 z))
  /// [B] auxiliary: predicted turns until the game ends (raw linear output). The trainer
  /// (train/trainer.cpp) targets turns left / 20 with a Huber (smooth L1) loss, so the output
  /// reads as turns / 20. Undefined without moves_left_head.
  torch::Tensor moves_left;
};

/// One residual block (plain or global-pooling bias). Internal to the net; exposed for TORCH_MODULE.
class ResBlockImpl : public torch::nn::Module {
 public:
  ResBlockImpl(int channels, int pooled_channels);
  /// x [B, C, H, GW], mask [B, 1, H, GW] (1 on ball points), mask_count [B, 1] (points per row).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask,
                        const torch::Tensor& mask_count);

 private:
  int channels_, pooled_;
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr}, bn_pool_{nullptr};
  torch::nn::Linear pool_fc_{nullptr};
};
TORCH_MODULE(ResBlock);

class PolicyValueNetImpl : public torch::nn::Module {
 public:
  /// Throws std::invalid_argument when config is invalid (NetConfig::validate).
  explicit PolicyValueNetImpl(const NetConfig& config);
  /// x: [B, kNumPlanes, H, GW] float on the net's device (any H, GW >= 3). Throws
  /// std::invalid_argument on a wrong rank or plane count.
  NetOutput forward(const torch::Tensor& x);
  const NetConfig& config() const { return config_; }

 private:
  NetConfig config_;
  torch::nn::Conv2d input_conv_{nullptr};
  torch::nn::BatchNorm2d input_bn_{nullptr};
  std::vector<ResBlock> blocks_;
  torch::nn::Conv2d policy_conv_{nullptr}, policy_out_{nullptr};
  torch::nn::BatchNorm2d policy_bn_{nullptr};
  torch::nn::Conv2d value_conv_{nullptr};
  torch::nn::BatchNorm2d value_bn_{nullptr};
  torch::nn::Linear value_fc_{nullptr}, value_out_{nullptr};
};
TORCH_MODULE(PolicyValueNet);

/// Parses "cpu", "cuda", "cuda:N". Throws std::invalid_argument on bad text and
/// std::runtime_error when CUDA (or device N) is not available in this LibTorch build/machine.
torch::Device parse_device(const std::string& name);

/// Encodes positions (one pitch) into a new CPU float tensor [B, kNumPlanes, H, GW].
/// Throws std::invalid_argument when the pitches differ or n == 0.
torch::Tensor encode_batch(const Position* const* positions, size_t n);
torch::Tensor encode_batch(const std::vector<Position>& positions);

/// Mean over the batch of the per-kick policy cross-entropy (see nn/encoder.h, "Policy
/// targets"): policy_logits [B, 8, H, GW] (any device, requires grad as needed), targets[b] the
/// target of sample b. Throws std::invalid_argument when sizes disagree or a row's point is out
/// of the grid.
torch::Tensor policy_loss(const torch::Tensor& policy_logits,
                          const std::vector<PolicyTarget>& targets);

/// Runs the net (eval mode, no grad) on positions of one pitch and fills Evaluations (engine
/// frame, value for the side to move), exactly as the inference service does. The reference
/// for tests and the bare forward of the benchmark. Finished positions are an error.
void evaluate_direct(PolicyValueNet& net, const Position* const* positions, size_t n,
                     Evaluation* out);

/// Converts forward outputs already copied to the CPU (policy [B, 8, H, GW] float contiguous,
/// value [B]) into Evaluations for positions[0..B).
void outputs_to_evaluations(const torch::Tensor& policy_cpu, const torch::Tensor& value_cpu,
                            const Position* const* positions, size_t n, Evaluation* out);

}  // namespace ps::nn
