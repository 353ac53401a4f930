// `papersoccer bench nn`: network throughput (figures printed, never asserted).
//
// For each net (tiny, medium 6x64) and batch size: positions per second of
//   forward  a bare forward pass on an already encoded batch (input on the
//   device, outputs
//            copied back to the CPU)
//   direct   evaluate_direct: encode + forward + conversion to engine-frame
//   Evaluations service  the NetEvaluator with max_batch = B and S concurrent
//   submitters (S >= 16), each
//            keeping max(1, 2B / S) positions in flight through evaluate_many
// and the service's share of the bare forward throughput (target >= 90%).
// Measurements alternate for --rounds rounds and the best of each is printed
// (shared machines are noisy).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <thread>

#include "apps/commands.h"
#include "core/fileutil.h"
#include "core/progress.h"
#include "engine/random_positions.h"
#include "nn/checkpoint.h"
#include "nn/service.h"
#include "selfplay/reference.h"

namespace ps::cmd {

namespace {

using Clock = std::chrono::steady_clock;

// The options of `bench nn`.
struct BenchNnOptions {
  std::vector<std::string> nets{"tiny", "medium"};
  std::vector<int> batches{1, 8, 32, 128};
  /// The service's device and workers (its max_batch and batch timeout are the bench's).
  nn::ServiceOptions service;
  double seconds = 1.0;
  int submitters = 16;
  int threads = 0;
  int rounds = 2;
};

/// Runs fn(iteration) until `seconds` have passed (at least min_iters times);
/// returns calls/s.
template <class Fn>
double rate(double seconds, int min_iters, Fn &&fn) {
  fn(0);  // warm-up
  auto t0 = Clock::now();
  int64_t iters = 0;
  while (iters < min_iters || seconds_since(t0) < seconds) fn(iters++);
  return double(iters) / seconds_since(t0);
}

// Long (about 85 lines): the bare forward and the batched service measured side by side per
// batch size, rounds alternating, so both figures come from the same machine state.
void bench_net(const std::string &preset, const std::vector<int> &batches,
               const std::vector<Position> &positions, const BenchNnOptions &o) {
  nn::NetConfig cfg = nn::NetConfig::preset(preset);
  torch::manual_seed(1);
  nn::PolicyValueNet net(cfg);
  const torch::Device dev = nn::parse_device(o.service.device);
  net->to(dev);
  net->eval();
  int64_t params = 0;
  for (const auto &p : net->parameters()) params += p.numel();
  std::printf("net %s (%s, %.1fk parameters), pitch 8x10, device %s\n", preset.c_str(), cfg.summary().c_str(),
              params / 1e3, o.service.device.c_str());
  std::printf("  %6s %12s %12s %12s %9s %10s\n", "batch", "forward/s", "direct/s", "service/s",
              "svc/fwd", "mean batch");
  std::vector<const Position *> all;
  for (const auto &p : positions) all.push_back(&p);
  for (int b : batches) {
    if (b > int(positions.size())) continue;
    double fwd = 0, direct = 0, svc = 0, mean_batch = 0;
    for (int round = 0; round < o.rounds; ++round) {
      // The bare passes run on a fresh thread, like the service's worker, so
      // both see the same LibTorch/OpenMP thread state.
      std::thread([&] {
        {
          torch::InferenceMode guard;
          torch::Tensor x = nn::encode_batch(all.data(), size_t(b)).to(dev);
          fwd = std::max(fwd, b * rate(o.seconds, 3, [&](int64_t) {
                                nn::NetOutput out = net->forward(x);
                                torch::Tensor pol = out.policy.to(torch::kCPU);
                                torch::Tensor val = out.value.to(torch::kCPU);
                              }));
        }
        std::vector<Evaluation> evs(static_cast<size_t>(b));
        direct = std::max(direct,
                          b * rate(o.seconds, 3, [&](int64_t i) {
                            const size_t off = size_t(i * b) % (positions.size() - size_t(b) + 1);
                            nn::evaluate_direct(net, all.data() + off, size_t(b), evs.data());
                          }));
      }).join();

      nn::ServiceOptions so = o.service;
      so.max_batch = b;
      so.batch_timeout_us = 2000;
      nn::CheckpointMeta meta;
      meta.net = cfg;
      auto service = nn::make_net_evaluator(net, meta, so, "net:bench");
      const int s = std::max(16, o.submitters);
      const int chunk = std::max(1, 2 * b / s);
      std::atomic<bool> go{true};
      std::vector<std::thread> threads;
      // A short warm-up, then a timed window read from the service's counters.
      const auto measure_from = Clock::now() + std::chrono::milliseconds(int(o.seconds * 200));
      for (int t = 0; t < s; ++t)
        threads.emplace_back([&, t] {
          std::vector<Evaluation> out(static_cast<size_t>(chunk));
          std::vector<const Position *> mine(static_cast<size_t>(chunk));
          size_t next = size_t(t) * 7;
          while (go.load(std::memory_order_relaxed)) {
            for (int k = 0; k < chunk; ++k) mine[size_t(k)] = all[next++ % all.size()];
            service->evaluate_many(mine.data(), size_t(chunk), out.data());
          }
        });
      std::this_thread::sleep_until(measure_from);
      const nn::ServiceStats st0 = service->stats();
      auto t1 = Clock::now();
      std::this_thread::sleep_for(std::chrono::duration<double>(std::max(o.seconds, 0.2)));
      const double window = seconds_since(t1);
      const nn::ServiceStats st1 = service->stats();
      go = false;
      for (auto &th : threads) th.join();
      const double r = double(st1.positions - st0.positions) / window;
      if (r > svc) {
        svc = r;
        mean_batch = st1.batches > st0.batches
                         ? double(st1.positions - st0.positions) / double(st1.batches - st0.batches)
                         : 0.0;
      }
    }
    std::printf("  %6d %12.0f %12.0f %12.0f %8.0f%% %10.1f\n", b, fwd, direct, svc,
                100.0 * svc / fwd, mean_batch);
    std::fflush(stdout);
  }
}

}  // namespace

void register_bench_nn_command(CLI::App &app) {
  CLI::App* bench = bench_command(app);
  auto *nn_cmd = bench->add_subcommand("nn", "Network: bare forward vs batched service, pos/s");
  auto o = std::make_shared<BenchNnOptions>();
  nn_cmd->add_option("--nets", o->nets, "comma-separated presets (tiny, medium)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::IsMember({"tiny", "medium"}));
  nn_cmd->add_option("--batches", o->batches, "comma-separated batch sizes (each >= 1)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(integer_at_least(1));
  nn_cmd->add_option("--device", o->service.device, "cpu, cuda or cuda:N")
      ->capture_default_str()
      ->check(device_check());
  nn_cmd->add_option("--seconds", o->seconds, "timed seconds per measurement")
      ->capture_default_str()
      ->check(in_range(0.01, 3600.0));
  nn_cmd->add_option("--submitters", o->submitters, "concurrent service submitters (>= 16)")
      ->capture_default_str()
      ->check(in_range(16, 4096));
  nn_cmd->add_option("--threads", o->threads, "LibTorch intra-op threads (0 = hardware threads)")
      ->capture_default_str()
      ->check(in_range(0, 1024));
  nn_cmd->add_option("--workers", o->service.workers, "service worker threads")
      ->capture_default_str()
      ->check(in_range(1, 64));
  nn_cmd->add_option("--rounds", o->rounds, "alternating rounds per batch size (best is printed)")
      ->capture_default_str()
      ->check(in_range(1, 1000));
  nn_cmd->callback([o] {
    const int hw = int(std::max(1u, std::thread::hardware_concurrency()));
    at::set_num_interop_threads(1);
    at::set_num_threads(o->threads > 0 ? o->threads : hw);
    std::printf(
        "LibTorch threads: intra-op %d (at::set_num_threads), inter-op %d "
        "(at::set_num_interop_threads); %d hardware threads\n",
        int(at::get_num_threads()), int(at::get_num_interop_threads()), hw);
    const std::vector<Position> positions =
        random_positions(Pitch::standard(), Variant::kStandard, 512, 5, 29);
    for (const auto& n : o->nets) bench_net(n, o->batches, positions, *o);
  });

  // Checkpoints scored on reference games (selfplay/reference.h): what `run` logs per
  // generation with evaluate.reference, for any checkpoints, e.g. two runs' generations.
  auto* ref = bench->add_subcommand(
      "reference", "Checkpoints' value MSE and policy top-1 on reference games (selfplay/reference.h)");
  auto checkpoints = std::make_shared<std::vector<std::string>>();
  auto games_path = std::make_shared<std::string>("models/reference-8x10-standard");
  ref->add_option("checkpoints", *checkpoints, "checkpoints or models to score")
      ->required()
      ->check(CLI::ExistingFile);
  ref->add_option("--games", *games_path, "a .psd chunk or a folder of them")->capture_default_str();
  ref->callback([checkpoints, games_path] {
    // The default is the repository's folder: found from any working directory.
    const std::string path = find_repository_file(*games_path, PS_SOURCE_DIR);
    const std::vector<GameData> games = read_reference_games(path);
    // Every checkpoint loads before the table starts: a bad one is refused with no rows.
    std::vector<std::unique_ptr<nn::NetEvaluator>> nets;
    for (const std::string& c : *checkpoints) nets.push_back(nn::make_net_evaluator(c, nn::ServiceOptions{}));
    std::printf("%-48s %9s %9s %11s %10s %8s %8s\n", "checkpoint", "positions", "value MSE", "early MSE",
                "late MSE", "sign", "top-1");
    for (size_t i = 0; i < nets.size(); ++i) {
      const std::string& c = (*checkpoints)[i];
      ReferenceScore s;
      try {
        s = score_reference_games(*nets[i], games);
      } catch (const std::exception& e) {  // e.g. games of rules the net does not know
        throw std::runtime_error(c + " on the reference games " + path + ": " + e.what());
      }
      std::printf("%-48s %9lld %9.4f %11.4f %10.4f %7.1f%% %7.1f%%\n", c.c_str(), (long long)s.positions,
                  s.value_mse, s.early_value_mse, s.late_value_mse, 100 * s.value_sign_accuracy,
                  100 * s.policy_top1);
      std::fflush(stdout);
    }
  });
}

}  // namespace ps::cmd
