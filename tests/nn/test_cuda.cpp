// The network on a CUDA device: same outputs as on the CPU, checkpoints move between devices,
// and the service on the GPU hands every submitter its own result. Hidden tests (tag [.]):
// tools/device_check.sh runs `test_nn "[cuda]"` on a machine with a GPU.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <thread>
#include <unistd.h>

#include "nn/checkpoint.h"
#include "tests/nn/helpers.h"

using namespace ps;
using namespace ps::nn;
using ps::testing::mixed_positions;

namespace {

bool have_cuda() {
  if (torch::cuda::is_available()) return true;
  WARN("CUDA is not available in this LibTorch build or machine: nothing checked");
  return false;
}

std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "ps_nn_cuda_test";
  std::filesystem::create_directories(dir);
  return (dir / (name + "." + std::to_string(::getpid()))).string();
}

/// A net of `cfg` with non-default batch-norm statistics, in eval mode, on the CPU.
PolicyValueNet warmed_net(const NetConfig& cfg, uint64_t seed) {
  torch::manual_seed(seed);
  PolicyValueNet net(cfg);
  net->train();
  std::vector<Position> same;  // one pitch per batch: the 8x10 ones
  for (const auto& p : mixed_positions(12, uint32_t(seed)))
    if (&p.pitch() == &Pitch::standard()) same.push_back(p);
  torch::NoGradGuard ng;
  for (int i = 0; i < 3; ++i) net->forward(encode_batch(same));
  net->eval();
  return net;
}

double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kCPU) - b.to(torch::kCPU)).abs().max().item<double>();
}

}  // namespace

TEST_CASE("CUDA: forward on the GPU matches the CPU for tiny and medium nets", "[.][cuda]") {
  if (!have_cuda()) return;
  for (const NetConfig& cfg : {NetConfig::tiny(), NetConfig::medium()}) {
    PolicyValueNet cpu = warmed_net(cfg, 5);
    const std::string path = temp_path("fwd.psnet");
    CheckpointMeta meta;
    meta.net = cfg;
    save_checkpoint(path, cpu, meta);
    LoadedCheckpoint gpu = load_checkpoint(path, "cuda");
    REQUIRE(gpu.net->parameters().front().device().is_cuda());
    std::remove(path.c_str());
    for (const Pitch* pitch : {&Pitch::get(8, 10, 2), &Pitch::get(8, 12, 2)}) {
      std::vector<Position> ps;
      for (const auto& p : mixed_positions(30, 7))
        if (&p.pitch() == pitch) ps.push_back(p);
      REQUIRE(!ps.empty());
      torch::InferenceMode guard;
      torch::Tensor x = encode_batch(ps);
      NetOutput a = cpu->forward(x), b = gpu.net->forward(x.to(torch::kCUDA));
      const double dp = max_abs_diff(a.policy, b.policy), dv = max_abs_diff(a.value, b.value);
      // cuDNN may use TF32 for convolutions (10-bit mantissa products), hence not 1e-6.
      WARN(cfg.summary() << " " << pitch->name() << ": max |policy diff| " << dp
                         << ", max |value diff| " << dv);
      CHECK(dp < 2e-2);
      CHECK(dv < 1e-2);
    }
  }
}

TEST_CASE("CUDA: a checkpoint saved from the GPU loads on the CPU with the same weights",
          "[.][cuda]") {
  if (!have_cuda()) return;
  PolicyValueNet net = warmed_net(NetConfig::tiny(), 8);
  net->to(torch::kCUDA);
  CheckpointMeta meta;
  meta.net = net->config();
  const std::string path = temp_path("gpu.psnet");
  save_checkpoint(path, net, meta);
  // Saving must leave the net where it was.
  REQUIRE(net->parameters().front().device().is_cuda());
  LoadedCheckpoint back = load_checkpoint(path, "cpu");
  auto a = net->parameters(), b = back.net->parameters();
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(torch::equal(a[i].to(torch::kCPU), b[i]));
  auto ab = net->buffers(), bb = back.net->buffers();
  REQUIRE(ab.size() == bb.size());
  for (size_t i = 0; i < ab.size(); ++i) CHECK(torch::equal(ab[i].to(torch::kCPU), bb[i]));
  std::remove(path.c_str());
}

TEST_CASE("CUDA: the service on the GPU matches a direct GPU forward for 16 submitters",
          "[.][cuda]") {
  if (!have_cuda()) return;
  PolicyValueNet net = warmed_net(NetConfig::tiny(), 9);
  net->to(torch::kCUDA);
  const std::vector<Position> positions = mixed_positions(48, 3);
  std::vector<Evaluation> expected(positions.size());
  for (size_t i = 0; i < positions.size(); ++i) {
    const Position* p = &positions[i];
    evaluate_direct(net, &p, 1, &expected[i]);
  }
  ServiceOptions opt;
  opt.device = "cuda";
  opt.max_batch = 16;
  opt.batch_timeout_us = 2000;
  opt.workers = 2;
  CheckpointMeta meta;
  meta.net = net->config();
  auto service = make_net_evaluator(net, meta, opt);
  CHECK(service->name().find("@cuda") != std::string::npos);
  constexpr int kThreads = 16;
  const auto got = ps::testing::evaluate_concurrently(*service, positions, kThreads);
  double worst_v = 0, worst_p = 0;
  for (int t = 0; t < kThreads; ++t)
    for (size_t i = 0; i < positions.size(); ++i) {
      const Evaluation &a = got[size_t(t)][i], &b = expected[i];
      REQUIRE(a.policy_logits.size() == b.policy_logits.size());
      worst_v = std::max(worst_v, double(std::abs(a.value - b.value)));
      for (size_t k = 0; k < a.policy_logits.size(); ++k)
        worst_p = std::max(worst_p, double(std::abs(a.policy_logits[k] - b.policy_logits[k])));
    }
  // Batched and single passes may pick different kernels (and TF32), hence a tolerance.
  WARN("service vs direct on the GPU: max |value diff| " << worst_v << ", max |logit diff| "
                                                         << worst_p);
  CHECK(worst_v < 5e-3);
  CHECK(worst_p < 1e-2);
  CHECK(service->stats().mean_batch() > 1.0);
}
