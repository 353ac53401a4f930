// `papersoccer bench selfplay`: self-play positions/s and training samples/s (printed, never
// asserted), with how the machine's cores were spent.
//
// Self-play runs as in `papersoccer run`: concurrent_games single-threaded searches, each in its
// own thread, all feeding one batched inference service (nn/service.h). CPU time is split by
// measuring, in every game thread, the thread CPU time spent between evaluate() calls (the
// search itself); the rest of the process CPU time is the service (forward passes, encoding)
// and data writing. Training then runs train_network (train/trainer.h) on the games just
// played, so its samples/s use real data.
#include <sys/resource.h>
#include <time.h>

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "apps/commands.h"
#include "core/fileutil.h"
#include "core/plural.h"
#include "core/progress.h"
#include "nn/checkpoint.h"
#include "selfplay/selfplay.h"
#include "train/trainer.h"

namespace ps::cmd {

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::vector<std::string> nets = {"tiny", "medium"};
  std::string checkpoint;  // a trained net instead of the presets
  int64_t games = 12;
  int games_per_chunk = SelfplayConfig().games_per_chunk;
  int concurrent_games = 12;
  int64_t visits = 64, cheap_visits = 16;
  int leaf_batch = SelfplayConfig().search.leaf_batch;
  double full_search_prob = 0.25;
  std::string device = "cpu";
  int torch_threads = 1, workers = 1, max_batch = 32, batch_timeout_us = 500;
  int64_t train_steps = 60;
  std::vector<int> train_batches = {64, 256};
  int train_threads = 2;
  uint64_t seed = 1;
};

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

double process_cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

// Sums, over all calling threads, the thread CPU time spent between consecutive evaluate()
// calls of a thread: the search's own work. The first stretch of each thread (before its first
// call: game set-up) is not counted.
class SearchCpuMeter final : public Evaluator {
 public:
  explicit SearchCpuMeter(Evaluator& inner) : inner_(inner) {}
  void evaluate(const Position& pos, Evaluation& out) override {
    const Position* p = &pos;
    evaluate_many(&p, 1, &out);
  }
  void evaluate_many(const Position* const* positions, size_t n, Evaluation* out) override {
    thread_local const SearchCpuMeter* owner = nullptr;
    thread_local double last_exit = 0;
    const double now = thread_cpu_s();
    if (owner == this) add(now - last_exit);
    if (n == 1) {
      inner_.evaluate(*positions[0], out[0]);
    } else {
      inner_.evaluate_many(positions, n, out);
    }
    owner = this;
    last_exit = thread_cpu_s();
  }
  std::string name() const override { return inner_.name(); }
  double search_cpu_s() const { return double(ns_.load()) * 1e-9; }

 private:
  void add(double s) { ns_.fetch_add(int64_t(s * 1e9), std::memory_order_relaxed); }
  Evaluator& inner_;
  std::atomic<int64_t> ns_{0};
};

void bench_one(const Options& o, const std::string& label, nn::PolicyValueNet net,
               const nn::CheckpointMeta& meta, const std::filesystem::path& dir) {
  nn::ServiceOptions so;
  so.device = o.device;
  so.torch_threads = o.torch_threads;
  so.workers = o.workers;
  so.max_batch = o.max_batch;
  so.batch_timeout_us = o.batch_timeout_us;
  const nn::NetConfig net_config = meta.net;
  auto service = nn::make_net_evaluator(net, meta, so, "net:" + label);
  SearchCpuMeter meter(*service);

  SelfplayConfig sc;  // the quickstart's self-play settings unless overridden
  sc.games = o.games;
  sc.concurrent_games = o.concurrent_games;
  sc.visits = o.visits;
  sc.cheap_visits = o.cheap_visits;
  sc.full_search_prob = o.full_search_prob;
  sc.seed = o.seed;
  sc.games_per_chunk = o.games_per_chunk;
  sc.search.root_initial_turns = 64;
  sc.search.initial_turns = 12;
  sc.search.temperature_turns = 8;
  sc.search.leaf_batch = o.leaf_batch;
  sc.validate();
  const std::string data_dir = (dir / label).string();
  ensure_directory(data_dir, "the bench's data directory");

  const double cpu0 = process_cpu_s();
  const auto t0 = Clock::now();
  const SelfplayStats st = run_selfplay(sc, meter, label, data_dir, "bench");
  const double wall = seconds_since(t0);
  const double cpu = process_cpu_s() - cpu0;
  const nn::ServiceStats ss = service->stats();
  const double search_cpu = meter.search_cpu_s();
  std::printf("%s net (%s), device %s\n", label.c_str(), net_config.summary().c_str(),
              o.device.c_str());
  std::printf("  self-play: %s\n", st.summary().c_str());
  std::printf("  self-play: %.1f positions/s, %.1f net evaluations/s (%.1f per position), mean "
              "batch %.1f\n",
              double(st.samples) / wall, double(ss.positions) / wall,
              st.samples > 0 ? double(ss.positions) / double(st.samples) : 0.0, ss.mean_batch());
  uintmax_t chunk_bytes = 0;
  int chunks = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data_dir))
    if (entry.path().extension() == ".psd") {
      chunk_bytes += entry.file_size();
      ++chunks;
    }
  // What was written: a chunk holds at most games_per_chunk games, and no more than were played.
  std::printf("  data: %s of at most %s each, %ju bytes (%.1f per position)\n",
              counted(chunks, "chunk").c_str(),
              counted(std::min<int64_t>(sc.games_per_chunk, st.games), "game").c_str(), chunk_bytes,
              st.samples > 0 ? double(chunk_bytes) / double(st.samples) : 0.0);
  std::printf("  searches: %lld, %.1f network evaluations per search, %.2f per new visit "
              "(%lld evaluations asked, %llu service cache hits)\n",
              (long long)st.searches, st.evaluations_per_search(), st.evaluations_per_visit(),
              (long long)st.evaluations, (unsigned long long)ss.cache_hits);
  // Two different measures, labelled as such: the process's CPU time in cores (all threads),
  // and the inference workers' wall time inside batches (a worker waiting on a forward pass of
  // LibTorch's own threads counts as busy).
  std::printf(
      "  process CPU: %.2f cores of %u (%.1f s CPU over %.1f s wall): search threads "
      "%.2f cores (%.0f%%), inference service + data %.2f cores (%.0f%%)\n",
      cpu / wall, std::thread::hardware_concurrency(), cpu, wall, search_cpu / wall,
      cpu > 0 ? 100.0 * search_cpu / cpu : 0.0, (cpu - search_cpu) / wall,
      cpu > 0 ? 100.0 * (cpu - search_cpu) / cpu : 0.0);
  std::printf(
      "  inference workers busy %.2f of %d (wall time; in forward passes %.2f), %.1f us "
      "per evaluated position in forward passes\n",
      ss.busy_s / wall, o.workers, ss.forward_s / wall,
      ss.positions > 0 ? 1e6 * ss.forward_s / double(ss.positions) : 0.0);
  service.reset();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("  peak RSS of the process so far: %.0f MiB\n", double(ru.ru_maxrss) / 1024.0);

  for (int batch : o.train_batches) {
    TrainConfig tc;
    tc.net = net_config;
    tc.device = o.device;
    tc.threads = o.train_threads;
    tc.batch_size = batch;
    tc.steps = o.train_steps;
    tc.log_interval = std::max<int64_t>(1, o.train_steps);
    tc.checkpoint_interval = o.train_steps;
    tc.window.min_samples = 1 << 20;
    tc.seed = o.seed;
    const std::string out = (dir / (label + "-b" + std::to_string(batch) + ".ckpt")).string();
    const TrainResult r = train_network(tc, data_dir, "", out, "");
    std::printf(
        "  training: batch %d, %s, %s: %.0f samples/s (%.2f s, window %s, mirror "
        "augmentation on)\n",
        batch, counted(r.end_step - r.start_step, "step").c_str(),
        counted(o.train_threads, "torch thread").c_str(), r.samples_per_s, r.seconds,
        counted(r.window_samples, "sample").c_str());
  }
}

void bench_selfplay(const Options& o) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ps-bench-selfplay-" + std::to_string(::getpid()));
  ps::remove_tree(fs::path(dir).string());
  ps::ensure_directory(dir.string(), "the bench's temporary directory");
  std::printf(
      "bench selfplay: %s per net, %d at a time (one search thread each), visits "
      "%lld full / %lld cheap (full with p=%.2f), leaf batch %d, pitch 8x10 standard\n",
      counted(o.games, "game").c_str(), o.concurrent_games, (long long)o.visits, (long long)o.cheap_visits,
      o.full_search_prob, o.leaf_batch);
  std::printf(
      "inference service: %s, torch intra-op threads %d, max batch %d, batch timeout %d "
      "us; training: %s; hardware threads %u\n",
      counted(o.workers, "worker").c_str(), o.torch_threads, o.max_batch, o.batch_timeout_us,
      counted(o.train_threads, "torch thread").c_str(), std::thread::hardware_concurrency());
  try {
    if (!o.checkpoint.empty()) {
      nn::LoadedCheckpoint ck = nn::load_checkpoint(o.checkpoint, "cpu");
      bench_one(o, "checkpoint", ck.net, ck.meta, dir);
    } else {
      for (const std::string& preset : o.nets) {
        // Random weights: forward cost does not depend on them, but game lengths do (a trained
        // net plays shorter, more decisive games); --checkpoint measures a trained one.
        nn::NetConfig nc = nn::NetConfig::preset(preset);
        torch::manual_seed(o.seed);
        nn::PolicyValueNet net(nc);
        nn::CheckpointMeta meta;
        meta.net = nc;
        bench_one(o, preset, net, meta, dir);
      }
    }
  } catch (...) {
    ps::remove_tree(fs::path(dir).string());
    throw;
  }
  ps::remove_tree(fs::path(dir).string());
}

}  // namespace

void register_bench_selfplay_command(CLI::App& app) {
  CLI::App* bench = bench_command(app);
  auto* cmd = bench->add_subcommand("selfplay", "Self-play positions/s and training samples/s");
  auto options = std::make_shared<Options>();
  Options& o = *options;
  cmd->add_option("--nets", o.nets, "network presets (random weights): tiny, medium")
      ->delimiter(',')->capture_default_str();
  cmd->add_option("--checkpoint", o.checkpoint, "a trained checkpoint instead of --nets");
  cmd->add_option("--games", o.games, "games per net")
      ->capture_default_str()
      ->check(in_range(int64_t(1), int64_t(100000)));
  cmd->add_option("--games-per-chunk", o.games_per_chunk, "games per data chunk file")
      ->capture_default_str()
      ->check(in_range(1, 100000));
  cmd->add_option("--concurrent-games", o.concurrent_games, "games in flight (threads)")
      ->capture_default_str()
      ->check(in_range(1, 4096));
  cmd->add_option("--visits", o.visits, "visits of a full search")
      ->capture_default_str()
      ->check(in_range(int64_t(1), int64_t(1) << 30));
  cmd->add_option("--cheap-visits", o.cheap_visits, "visits of a cheap search")
      ->capture_default_str()
      ->check(in_range(int64_t(1), int64_t(1) << 30));
  cmd->add_option("--leaf-batch", o.leaf_batch, "leaves a search gathers per evaluator call")
      ->capture_default_str()
      ->check(in_range(1, 4096));
  cmd->add_option("--full-search-prob", o.full_search_prob, "share of full searches")
      ->capture_default_str()
      ->check(in_range(0.0, 1.0));
  cmd->add_option("--device", o.device, "cpu, cuda or cuda:N (service and training)")
      ->capture_default_str()
      ->check(device_check());
  cmd->add_option("--torch-threads", o.torch_threads, "intra-op threads of the service's forward pass")
      ->capture_default_str()
      ->check(in_range(1, 1024));
  cmd->add_option("--workers", o.workers, "service worker threads")
      ->capture_default_str()
      ->check(in_range(1, 64));
  cmd->add_option("--max-batch", o.max_batch, "service max batch")
      ->capture_default_str()
      ->check(in_range(1, 65536));
  cmd->add_option("--batch-timeout-us", o.batch_timeout_us, "service batch timeout, us")
      ->capture_default_str()
      ->check(in_range(0, 10000000));
  cmd->add_option("--train-steps", o.train_steps, "training steps per batch size")
      ->capture_default_str()
      ->check(in_range(int64_t(1), int64_t(1) << 30));
  cmd->add_option("--train-batch", o.train_batches, "training batch sizes")
      ->delimiter(',')
      ->capture_default_str()
      ->check(in_range(1, 65536));
  cmd->add_option("--train-threads", o.train_threads, "training torch threads")
      ->capture_default_str()
      ->check(in_range(1, 1024));
  cmd->add_option("--seed", o.seed, "seed")->capture_default_str()->check(integer_at_least(0));
  cmd->callback([options] { bench_selfplay(*options); });
}

}  // namespace ps::cmd
