// `papersoccer bench search`: search throughput figures (printed, never asserted).
//
// Every figure is measured against an Evaluator&: UniformEvaluator (no evaluation cost: the
// search's own speed), FixedCostEvaluator (a fixed busy-wait per call standing in for a forward
// pass) and the real networks (tiny and medium presets behind the inference service), each
// with the share of time spent outside evaluation.
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include <atomic>

#include "apps/commands.h"
#include "core/plural.h"
#include "core/progress.h"
#include "engine/record.h"
#include "nn/checkpoint.h"
#include "search/baselines.h"
#include "search/fixed_cost_evaluator.h"
#include "search/mcts.h"

namespace ps::cmd {

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int positions = 24;
  int64_t visits = 800;
  int64_t uct_playouts = 2000;
  std::vector<int64_t> costs_us = {100, 1000};
  int pitch_length = 10;
  std::string variant = "standard";
  uint64_t seed = 1;
  std::vector<std::string> nets = {"tiny", "medium"};  // real networks (random weights)
  int64_t net_visits = 200;
  std::string device = "cpu";  // of the networks' service
};

// Measures the time callers spend inside evaluate() (the network, its service queue included).
class TimedEvaluator final : public Evaluator {
 public:
  explicit TimedEvaluator(Evaluator& inner) : inner_(inner) {}
  void evaluate(const Position& pos, Evaluation& out) override {
    const auto t0 = Clock::now();
    inner_.evaluate(pos, out);
    ns_.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
  }
  std::string name() const override { return inner_.name(); }
  double busy_seconds() const { return double(ns_.load()) * 1e-9; }

 private:
  Evaluator& inner_;
  std::atomic<int64_t> ns_{0};
};

// Turn starts of random games (uniformly random turns), spread over the games.
std::vector<Game> sample_games(const Options& o) {
  const Pitch& pitch = Pitch::get(8, o.pitch_length, 2);
  const Variant v = parse_variant(o.variant);
  RandomPlayer rp(o.seed);
  std::vector<Game> out;
  while (int(out.size()) < o.positions) {
    Game g(pitch, v);
    int t = 0;
    while (!g.position().game_over() && int(out.size()) < o.positions) {
      if (t++ % 3 == 0) out.push_back(g);
      g.play_turn(rp.choose_turn(g, {}));
    }
  }
  return out;
}

struct Figures {
  int64_t visits = 0, evaluations = 0;
  double wall_s = 0;
};

// One tree per position, `threads` threads on it.
Figures run_tree(Evaluator& ev, const std::vector<Position>& ps, int64_t visits, int threads) {
  SearchParams sp;
  sp.num_threads = threads;
  sp.reuse_tree = false;
  Search search(ev, sp, 1);
  Figures f;
  const auto t0 = Clock::now();
  for (const Position& p : ps) {
    const SearchResult r = search.run(p, SearchLimits{visits, -1});
    f.visits += r.new_visits;
    f.evaluations += r.evaluations;
  }
  f.wall_s = seconds_since(t0);
  return f;
}

// Self-play layout: `games` single-threaded searches in parallel threads sharing the evaluator.
Figures run_parallel_games(Evaluator& ev, const std::vector<Position>& ps, int64_t visits, int games) {
  std::vector<Figures> per(static_cast<size_t>(games));
  const auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (int gi = 0; gi < games; ++gi) {
    pool.emplace_back([&, gi] {
      SearchParams sp;
      sp.reuse_tree = false;
      Search search(ev, sp, uint64_t(gi));
      for (size_t i = size_t(gi); i < ps.size(); i += size_t(games)) {
        const SearchResult r = search.run(ps[i], SearchLimits{visits, -1});
        per[size_t(gi)].visits += r.new_visits;
        per[size_t(gi)].evaluations += r.evaluations;
      }
    });
  }
  for (auto& t : pool) t.join();
  Figures f;
  for (const auto& x : per) {
    f.visits += x.visits;
    f.evaluations += x.evaluations;
  }
  f.wall_s = seconds_since(t0);
  return f;
}

void bench_search(const Options& o) {
  const std::vector<Game> games = sample_games(o);
  std::vector<Position> ps;
  for (const Game& g : games) ps.push_back(g.position());
  std::printf("bench search: %zu positions from random %s games on 8x%d, %lld visits per search\n",
              ps.size(), o.variant.c_str(), o.pitch_length, (long long)o.visits);
  std::printf("hardware threads: %u\n", std::thread::hardware_concurrency());

  UniformEvaluator uniform;
  for (int threads : {1, 2}) {
    const Figures f = run_tree(uniform, ps, o.visits, threads);
    std::printf("  uniform evaluator, %s on one tree: %.0f visits/s (%.2f s, %lld evals)\n",
                counted(threads, "thread").c_str(), f.visits / f.wall_s, f.wall_s, (long long)f.evaluations);
  }
  {
    const Figures f = run_parallel_games(uniform, ps, o.visits, 2);
    std::printf("  uniform evaluator, 2 single-threaded searches in parallel: %.0f visits/s\n",
                f.visits / f.wall_s);
  }
  for (int64_t cost : o.costs_us) {
    {
      FixedCostEvaluator ev(cost);
      const Figures f = run_tree(ev, ps, o.visits, 1);
      const double outside = 1.0 - ev.busy_seconds() / f.wall_s;
      std::printf("  fixed-cost evaluator %lld us/call, 1 thread: %.0f visits/s, %.1f%% of wall time "
                  "outside evaluation (%.1f us of search per visit)\n",
                  (long long)cost, f.visits / f.wall_s, 100.0 * outside,
                  1e6 * (f.wall_s - ev.busy_seconds()) / double(f.visits));
    }
    {
      FixedCostEvaluator ev(cost);
      const Figures f = run_tree(ev, ps, o.visits, 2);
      const double outside = 1.0 - ev.busy_seconds() / (2.0 * f.wall_s);
      std::printf("  fixed-cost evaluator %lld us/call, 2 threads on one tree: %.0f visits/s, "
                  "%.1f%% of thread time outside evaluation\n",
                  (long long)cost, f.visits / f.wall_s, 100.0 * outside);
    }
  }
  for (const std::string& preset : o.nets) {
    // A real network with random weights: the cost of a forward pass does not depend on them.
    nn::NetConfig nc = nn::NetConfig::preset(preset);
    nn::PolicyValueNet net(nc);
    nn::CheckpointMeta meta;
    meta.net = nc;
    nn::ServiceOptions so;
    so.torch_threads = 1;
    so.device = o.device;
    so.batch_timeout_us = 0;  // one searcher per tree: never wait for a batch to fill
    so.max_batch = 8;
    auto service = nn::make_net_evaluator(net, meta, so, "net:" + preset);
    for (int threads : {1, 2}) {
      TimedEvaluator ev(*service);
      const Figures f = run_tree(ev, ps, o.net_visits, threads);
      const double outside = 1.0 - ev.busy_seconds() / (threads * f.wall_s);
      std::printf(
          "  %s net (%s) on %s, torch threads 1, %s on one tree: %.0f visits/s, "
          "%.1f%% of thread time outside the network\n",
          preset.c_str(), nc.summary().c_str(), o.device.c_str(), counted(threads, "thread").c_str(),
          f.visits / f.wall_s, 100.0 * outside);
    }
  }
  {
    UctPlayer uct(UctPlayer::Options{o.uct_playouts, 1.4142135623730951, 1000}, o.seed);
    int64_t playouts = 0;
    const auto t0 = Clock::now();
    for (const Game& g : games) {
      uct.choose_turn(g, TurnBudget{-1, o.uct_playouts});
      playouts += uct.last_playouts();
    }
    const double s = seconds_since(t0);
    std::printf("  pure MCTS with random rollouts (UCT), 1 thread: %.0f playouts/s (%lld playouts, "
                "%.2f s)\n", playouts / s, (long long)playouts, s);
  }
}

}  // namespace

void register_bench_search_command(CLI::App& app) {
  CLI::App* bench = bench_command(app);
  auto* cmd = bench->add_subcommand("search", "PUCT search and UCT throughput");
  auto o = std::make_shared<Options>();
  cmd->add_option("--positions", o->positions, "positions searched (turn starts of random games)")
      ->capture_default_str()
      ->check(in_range(1, 100000));
  cmd->add_option("--visits", o->visits, "visits per search")
      ->capture_default_str()
      ->check(in_range(int64_t(1), int64_t(1) << 40));
  cmd->add_option("--uct-playouts", o->uct_playouts, "UCT playouts per search")
      ->capture_default_str()
      ->check(in_range(int64_t(1), int64_t(1) << 40));
  cmd->add_option("--cost-us", o->costs_us, "fixed evaluation costs to measure, microseconds")
      ->delimiter(',')
      ->capture_default_str()
      ->check(in_range(int64_t(0), int64_t(10000000)));
  cmd->add_option("--length", o->pitch_length, "pitch length (8 x length)")
      ->capture_default_str()
      ->check(in_range(4, 1000))
      ->check(checked_by([](const std::string& s) { (void)Pitch::get(8, std::stoi(s), 2); }));
  cmd->add_option("--variant", o->variant, "standard, single-bounce or no-bounce")
      ->capture_default_str()
      ->check(variant_check());
  cmd->add_option("--seed", o->seed, "seed of the random games")
      ->capture_default_str()
      ->check(integer_at_least(0));
  cmd->add_option("--nets", o->nets, "network presets to search with (tiny, medium)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(checked_by([](const std::string& s) { (void)nn::NetConfig::preset(s); }));
  cmd->add_option("--net-visits", o->net_visits, "visits per search with a network")->capture_default_str();
  cmd->add_option("--device", o->device, "device of the networks: cpu, cuda or cuda:N")
      ->capture_default_str()
      ->check(device_check());
  cmd->callback([o] { bench_search(*o); });
}

}  // namespace ps::cmd
