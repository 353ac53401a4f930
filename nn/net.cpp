#include "nn/net.h"

#include <cmath>
#include <optional>
#include <stdexcept>

#include "core/plural.h"

namespace ps::nn {

namespace {

namespace F = torch::nn::functional;

torch::nn::Conv2d conv(int in, int out, int k, bool bias) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, k).padding(k / 2).bias(bias));
}

/// Masked global pooling of post-ReLU features x [B, C, H, GW] -> [B, 3C]: mean over the ball
/// points, the mean scaled by (sqrt(points) - 10) / 10 (lets one net tell pitch sizes apart),
/// and the max (valid as a masked max because x >= 0 and masked points are 0).
torch::Tensor masked_pool(const torch::Tensor& x, const torch::Tensor& mask,
                          const torch::Tensor& count) {
  torch::Tensor xm = x * mask;
  torch::Tensor mean = xm.sum({2, 3}) / count;
  torch::Tensor scaled = mean * ((count.sqrt() - 10.0) / 10.0);
  torch::Tensor mx = xm.amax({2, 3});
  return torch::cat({mean, scaled, mx}, 1);
}

}  // namespace

ResBlockImpl::ResBlockImpl(int channels, int pooled) : channels_(channels), pooled_(pooled) {
  conv1_ = register_module("conv1", conv(channels, channels + pooled, 3, false));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(channels + pooled));
  conv2_ = register_module("conv2", conv(channels, channels, 3, false));
  bn2_ = register_module("bn2", torch::nn::BatchNorm2d(channels));
  if (pooled > 0) pool_fc_ = register_module("pool_fc", torch::nn::Linear(3 * pooled, channels));
}

torch::Tensor ResBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& mask,
                                    const torch::Tensor& mask_count) {
  torch::Tensor t = torch::relu(bn1_(conv1_(x)));
  if (pooled_ > 0) {
    torch::Tensor r = t.narrow(1, 0, channels_);
    torch::Tensor g = t.narrow(1, channels_, pooled_);
    torch::Tensor bias = pool_fc_(masked_pool(g, mask, mask_count));  // [B, C]
    t = r + bias.unsqueeze(2).unsqueeze(3);
  }
  return torch::relu(x + bn2_(conv2_(t)));
}

PolicyValueNetImpl::PolicyValueNetImpl(const NetConfig& config) : config_(config) {
  config_.validate();
  const int c = config_.channels;
  input_conv_ = register_module("input_conv", conv(kNumPlanes, c, 3, false));
  input_bn_ = register_module("input_bn", torch::nn::BatchNorm2d(c));
  for (int i = 0; i < config_.blocks; ++i) {
    const int pooled = config_.is_global_pool_block(i) ? config_.global_pool_channels : 0;
    blocks_.push_back(register_module("block" + std::to_string(i), ResBlock(c, pooled)));
  }
  policy_conv_ = register_module("policy_conv", conv(c, config_.policy_channels, 1, false));
  policy_bn_ = register_module("policy_bn", torch::nn::BatchNorm2d(config_.policy_channels));
  policy_out_ = register_module("policy_out", conv(config_.policy_channels, kNumDirs, 1, true));
  value_conv_ = register_module("value_conv", conv(c, config_.value_channels, 1, false));
  value_bn_ = register_module("value_bn", torch::nn::BatchNorm2d(config_.value_channels));
  value_fc_ = register_module("value_fc",
                              torch::nn::Linear(3 * config_.value_channels, config_.value_hidden));
  value_out_ = register_module(
      "value_out", torch::nn::Linear(config_.value_hidden, config_.moves_left_head ? 2 : 1));
}

NetOutput PolicyValueNetImpl::forward(const torch::Tensor& x) {
  if (x.dim() != 4 || x.size(1) != kNumPlanes || x.size(2) < 3 || x.size(3) < 3)
    throw std::invalid_argument("PolicyValueNet::forward: expected input [B, " +
                                std::to_string(kNumPlanes) + ", H, GW] with H, GW >= 3, got " +
                                c10::str(x.sizes()));
  // Ball points: field + both goals (planes 9, 10, 11 are adjacent).
  static_assert(kPlaneGoalAttacked == kPlaneField + 1 && kPlaneGoalDefended == kPlaneField + 2);
  torch::Tensor mask = x.narrow(1, kPlaneField, 3).sum(1, /*keepdim=*/true);
  torch::Tensor count = mask.sum({2, 3}).clamp_min(1.0);  // [B, 1]
  torch::Tensor t = torch::relu(input_bn_(input_conv_(x)));
  for (auto& b : blocks_) t = b->forward(t, mask, count);

  NetOutput out;
  out.policy = policy_out_(torch::relu(policy_bn_(policy_conv_(t))));
  torch::Tensor v = torch::relu(value_bn_(value_conv_(t)));
  torch::Tensor h = torch::relu(value_fc_(masked_pool(v, mask, count)));
  torch::Tensor o = value_out_(h);  // [B, 1 or 2]
  out.value_logit = o.select(1, 0);
  out.value = torch::tanh(out.value_logit);
  if (config_.moves_left_head) out.moves_left = o.select(1, 1);
  return out;
}

torch::Device parse_device(const std::string& name) {
  std::optional<torch::Device> dev;
  try {
    dev = torch::Device(name);
  } catch (const std::exception&) {
    throw std::invalid_argument("bad device '" + name + "' (expected cpu, cuda or cuda:N)");
  }
  if (dev->is_cpu()) return *dev;
  if (!dev->is_cuda())
    throw std::invalid_argument("unsupported device '" + name + "' (expected cpu, cuda or cuda:N)");
  if (!torch::cuda::is_available())
    throw std::runtime_error("device '" + name +
                             "' requested but CUDA is not available (this LibTorch build or "
                             "machine has no usable GPU)");
  const int count = int(torch::cuda::device_count());
  if (dev->has_index() && dev->index() >= count)
    throw std::runtime_error("device '" + name + "' requested but only " + counted(count, "CUDA device") +
                             (count == 1 ? " exists" : " exist"));
  if (!dev->has_index()) dev = torch::Device(torch::kCUDA, 0);
  return *dev;
}

torch::Tensor encode_batch(const Position* const* positions, size_t n) {
  if (n == 0) throw std::invalid_argument("encode_batch: no positions");
  const Pitch& pitch = positions[0]->pitch();
  torch::Tensor t = torch::empty({int64_t(n), kNumPlanes, pitch.grid_height(), pitch.grid_width()},
                                 torch::kFloat32);
  encode_positions(positions, n, t.data_ptr<float>());
  return t;
}

torch::Tensor encode_batch(const std::vector<Position>& positions) {
  std::vector<const Position*> ptrs;
  ptrs.reserve(positions.size());
  for (const auto& p : positions) ptrs.push_back(&p);
  return encode_batch(ptrs.data(), ptrs.size());
}

torch::Tensor policy_loss(const torch::Tensor& policy_logits,
                          const std::vector<PolicyTarget>& targets) {
  if (policy_logits.dim() != 4 || policy_logits.size(1) != kNumDirs)
    throw std::invalid_argument("policy_loss: expected logits [B, 8, H, GW], got " +
                                c10::str(policy_logits.sizes()));
  const int64_t b = policy_logits.size(0);
  const int64_t n = policy_logits.size(2) * policy_logits.size(3);
  if (int64_t(targets.size()) != b)
    throw std::invalid_argument("policy_loss: " + std::to_string(targets.size()) +
                                " targets for a batch of " + std::to_string(b));
  int64_t rows = 0;
  for (const auto& t : targets) rows += int64_t(t.rows.size());
  if (rows == 0) return policy_logits.sum() * 0.0;
  torch::Tensor sample = torch::empty({rows}, torch::kInt64);
  torch::Tensor point = torch::empty({rows}, torch::kInt64);
  torch::Tensor legal = torch::empty({rows, kNumDirs}, torch::kBool);
  torch::Tensor target = torch::empty({rows, kNumDirs}, torch::kFloat32);
  int64_t* sp = sample.data_ptr<int64_t>();
  int64_t* pp = point.data_ptr<int64_t>();
  bool* lp = legal.data_ptr<bool>();
  float* tp = target.data_ptr<float>();
  int64_t r = 0;
  for (int64_t i = 0; i < b; ++i) {
    for (const auto& row : targets[size_t(i)].rows) {
      if (row.point >= n || row.legal == 0)
        throw std::invalid_argument("policy_loss: sample " + std::to_string(i) + " has a row at point " +
                                    std::to_string(row.point) + " with legal mask " +
                                    std::to_string(row.legal) + " (grid has " + std::to_string(n) +
                                    " points; the mask must be non-empty)");
      sp[r] = i;
      pp[r] = row.point;
      for (int d = 0; d < kNumDirs; ++d) {
        lp[r * kNumDirs + d] = (row.legal >> d) & 1;
        tp[r * kNumDirs + d] = row.target[d];
      }
      ++r;
    }
  }
  const auto dev = policy_logits.device();
  sample = sample.to(dev);
  point = point.to(dev);
  legal = legal.to(dev);
  target = target.to(dev);
  torch::Tensor flat = policy_logits.reshape({b, kNumDirs, n}).permute({0, 2, 1});  // [B, n, 8]
  torch::Tensor sel = flat.index({sample, point});                                 // [R, 8]
  torch::Tensor logp = torch::log_softmax(sel.masked_fill(~legal, -INFINITY), 1);
  logp = logp.masked_fill(~legal, 0.0);
  return -(target * logp).sum() / double(b);
}

void outputs_to_evaluations(const torch::Tensor& policy_cpu, const torch::Tensor& value_cpu,
                            const Position* const* positions, size_t n, Evaluation* out) {
  if (n == 0) return;
  const Pitch& pitch = positions[0]->pitch();
  const size_t per = policy_size(pitch);
  if (policy_cpu.numel() < int64_t(n * per) || value_cpu.numel() < int64_t(n) ||
      !policy_cpu.is_contiguous() || policy_cpu.scalar_type() != torch::kFloat32)
    throw std::invalid_argument("outputs_to_evaluations: outputs do not match " +
                                std::to_string(n) + " positions on pitch " + pitch.name());
  const float* pol = policy_cpu.data_ptr<float>();
  torch::Tensor vc = value_cpu.to(torch::kFloat32).contiguous();
  const float* val = vc.data_ptr<float>();
  for (size_t i = 0; i < n; ++i) {
    out[i].value = val[i];
    out[i].policy_logits.resize(per);
    policy_to_engine(pitch, positions[i]->side_to_move(), pol + i * per, out[i].policy_logits.data());
  }
}

void evaluate_direct(PolicyValueNet& net, const Position* const* positions, size_t n,
                     Evaluation* out) {
  if (n == 0) return;
  for (size_t i = 0; i < n; ++i)
    if (positions[i]->game_over())
      throw std::invalid_argument("evaluate_direct: position " + std::to_string(i) +
                                  " is finished (nothing to evaluate)");
  torch::InferenceMode guard;
  net->eval();
  const torch::Device dev = net->parameters().front().device();
  torch::Tensor x = encode_batch(positions, n).to(dev);
  NetOutput o = net->forward(x);
  outputs_to_evaluations(o.policy.to(torch::kCPU).contiguous(), o.value.to(torch::kCPU), positions,
                         n, out);
}

}  // namespace ps::nn
