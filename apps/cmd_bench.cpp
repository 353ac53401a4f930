// `papersoccer bench engine`: engine throughput figures (printed, never asserted).
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>

#include "apps/commands.h"
#include "core/progress.h"
#include "engine/record.h"
#include "engine/turns.h"

namespace ps::cmd {

namespace {

using Clock = std::chrono::steady_clock;

// The heaviest test position: a flat kick list on 8x10 standard, split into turns by the rules.
constexpr const char* kHeavyKicks =
    "13064113570225017036575014630745741422243523574227742164435274617703502106741745431672745757"
    "134661453130361";

void bench_perft(int depth) {
  Position start(Pitch::standard(), Variant::kStandard);
  uint64_t kicks = 0;
  auto t0 = Clock::now();
  uint64_t leaves = perft(start, depth, &kicks);
  double s = seconds_since(t0);
  std::printf("perft(%d) 8x10 standard start: %llu leaves, %llu kicks made, %.3f s\n", depth,
              (unsigned long long)leaves, (unsigned long long)kicks, s);
  std::printf("  %.2f M leaves/s, %.2f M kicks/s (single thread)\n", leaves / s / 1e6,
              kicks / s / 1e6);
}

void bench_heavy(int repeats) {
  Game g = parse_kicks(Pitch::standard(), Variant::kStandard, kHeavyKicks);
  TurnGenerator gen;
  gen.set_enumeration_limit(int64_t(1) << 26);  // the whole position (a few million states)
  TurnGenerator::Stats st;
  double best = 1e9;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = Clock::now();
    st = gen.count(g.position());
    best = std::min(best, seconds_since(t0));
  }
  double gen_best = 1e9;
  size_t listed = 0;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = Clock::now();
    listed = gen.generate(g.position()).size();
    gen_best = std::min(gen_best, seconds_since(t0));
  }
  std::printf("heavy position (the heaviest test kick list, %d kicks, player %d to move, %d turns played):\n",
              g.position().num_kicks(), g.position().side_to_move(), g.num_complete_turns());
  std::printf("  %llu distinct turns, %llu chains; count %.1f ms, list with kick strings %.1f ms "
              "(%zu turns) (best of %d)\n",
              (unsigned long long)st.distinct, (unsigned long long)st.chains, best * 1e3,
              gen_best * 1e3, listed, repeats);
  TurnGenerator w;
  auto t0 = Clock::now();
  std::string kicks;
  bool win = w.find_winning_turn(g.position(), &kicks);
  double ws = seconds_since(t0);
  t0 = Clock::now();
  bool lose = w.all_turns_lose(g.position());
  double ls = seconds_since(t0);
  std::printf("  win check: %s%s in %.3f ms; all-turns-lose: %s in %.3f ms\n", win ? "yes " : "no",
              win ? kicks.c_str() : "", ws * 1e3, lose ? "yes" : "no", ls * 1e3);
}

void bench_kick_loop(double budget_s) {
  // Random kick sequences made and unmade: each step makes a kick, on game end all kicks are
  // unmade. Directions come from a precomputed random table so RNG cost stays out.
  Position pos(Pitch::standard(), Variant::kStandard);
  std::mt19937_64 rng(1);
  std::vector<uint8_t> table(1 << 16);
  for (auto& t : table) t = uint8_t(rng());
  std::vector<KickUndo> stack;
  stack.reserve(4 * kMaxPoints);
  uint64_t made = 0;
  size_t ti = 0;
  auto t0 = Clock::now();
  double s = 0;
  while (true) {
    for (int rep = 0; rep < 1000; ++rep) {
      while (true) {
        unsigned legal = pos.legal_kicks();
        if (!legal) break;
        int n = __builtin_popcount(legal);
        int pick = table[ti++ & 0xFFFF] % n;
        while (pick--) legal &= legal - 1;
        stack.push_back(pos.make_kick(__builtin_ctz(legal)));
        ++made;
      }
      while (!stack.empty()) {
        pos.unmake_kick(stack.back());
        stack.pop_back();
      }
    }
    s = seconds_since(t0);
    if (s > budget_s) break;
  }
  std::printf("kick loop: %llu kicks made and unmade in %.3f s: %.1f M kicks/s (single thread)\n",
              (unsigned long long)made, s, made / s / 1e6);
}

}  // namespace

CLI::App* bench_command(CLI::App& app) {
  try {
    return app.get_subcommand("bench");
  } catch (const CLI::OptionNotFound&) {}
  auto* bench = app.add_subcommand("bench", "Benchmarks (figures printed, not asserted)");
  // At most one benchmark: an unknown word is then named ("not expected: bogus") instead of the
  // misleading "A subcommand is required", and none at all lists the benchmarks.
  bench->require_subcommand(0, 1);
  // After whichever subcommand ran: the process's peak memory beside its speed figures.
  bench->final_callback([bench] {
    if (bench->get_subcommands().empty()) {
      std::string names;
      for (const CLI::App* b : bench->get_subcommands([](CLI::App*) { return true; }))
        names += (names.empty() ? "" : ", ") + b->get_name();
      throw UsageError("bench: name a benchmark: " + names);
    }
    std::printf("peak RSS %.0f MiB\n", peak_rss_mib());
  });
  return bench;
}

void register_bench_command(CLI::App& app) {
  auto* bench = bench_command(app);
  auto* engine = bench->add_subcommand("engine", "Rules engine: perft, heavy turn list, kick loop");
  struct Args {
    int depth = 5;
    int repeats = 3;
  };
  auto a = std::make_shared<Args>();
  // perft of the start grows 14-24 times per depth (depth 7: 34 million leaves, 0.7 s on one
  // core): depth 8, some 20 s, is the most a benchmark waits for.
  engine->add_option("--depth", a->depth, "perft depth")->capture_default_str()->check(in_range(1, 8));
  engine->add_option("--repeats", a->repeats, "repeats of the heavy position (best is printed)")
      ->capture_default_str()
      ->check(in_range(1, 1000));
  engine->callback([a] {
    bench_kick_loop(1.0);
    bench_perft(a->depth);
    if (a->depth < 6) bench_perft(6);  // perft(5) takes milliseconds; depth 6 gives a steadier rate
    bench_heavy(a->repeats);
  });
}

}  // namespace ps::cmd
