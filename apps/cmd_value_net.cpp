// The small value net of the alpha-beta search (valuenet/value_net.h):
//   train-value --data DIR --out FILE.vnet   trains one on self-play data (train/value_trainer.h)
//   relabel GAMES.pgn... --out DIR --value-net FILE.vnet   their positions with alpha-beta's scores
//                                            as value targets (selfplay/relabel.h)
//   bench value-net [--net FILE.vnet]        evaluations per second, incremental vs from scratch,
//                                            and alphabeta's nodes/s and depth, hand vs nnue;
//                                            with --games, the net in PUCT (with and without
//                                            leaf replies) and in alpha-beta
//                                            (apps/bench_value_in_search.h)
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include "apps/bench_value_in_search.h"
#include "apps/commands.h"
#include "core/plural.h"
#include "core/progress.h"
#include "engine/record.h"
#include "search/alphabeta.h"
#include "search/baselines.h"
#include "selfplay/relabel.h"
#include "train/value_trainer.h"
#include "valuenet/value_net_eval.h"
#include "valuenet/value_net_file.h"

namespace ps::cmd {

namespace {

using Clock = std::chrono::steady_clock;

struct BenchOptions {
  std::string net;  // empty: random weights of `hidden`
  std::vector<int> hidden = {32, 32};
  int window = 0;  // ball window radius of the random net
  bool window_points = false;
  int positions = 20;
  int64_t time_ms = 200;
  uint64_t seed = 1;
  std::string pgn;    // positions from these games instead of random ones
  int from_turn = 0;  // with pgn: the first turn start taken
  int games = 0;      // > 0: bench_value_in_search with this many games per row
  int visits = 48;    // its PUCT searches' visits
  int leaf_replies = 64;  // the leaf-reply rows' leaf_reply_turns
};

// Turn starts of the games of a PGN file (a tournament's or ladder's games.pgn) from from_turn
// on, every third turn, at most count; only games of the net's rules. Throws std::runtime_error
// naming the file (and its line, for a bad game).
std::vector<Game> pgn_bench_games(const std::string& path, const Pitch& pitch, Variant v, int count,
                                  int from_turn, int64_t* skipped) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::runtime_error("--pgn " + path +
                             ": is a directory, not a PGN file (e.g. a ladder's games.pgn)");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("--pgn " + path + ": cannot open");
  std::vector<Game> out;
  int64_t other_rules = 0;
  std::string other;  // the rules of the first game skipped
  for (const PgnGame& pg : read_pgn(in, path, pitch, v)) {
    const Game& full = pg.game;
    if (full.position().pitch().name() != pitch.name() || full.position().variant() != v) {
      if (other_rules++ == 0)
        other = full.position().pitch().name() + " " + variant_name(full.position().variant());
      continue;
    }
    Game g(pitch, v);
    const std::vector<std::string>& turns = full.turns();
    for (size_t t = 0; t < turns.size() && int(out.size()) < count; ++t) {
      if (int(t) >= from_turn && (int(t) - from_turn) % 3 == 0 && !g.position().game_over()) out.push_back(g);
      g.play_turn(turns[t]);
    }
    if (int(out.size()) >= count) break;
  }
  if (out.empty())
    throw std::runtime_error("--pgn " + path + ": no turn start of " + pitch.name() + " " + variant_name(v) +
                             " (the net's rules) at or after turn " + std::to_string(from_turn) +
                             (other_rules > 0 ? "; " + counted(other_rules, "game") +
                                                    " of other rules skipped (the first: " + other + ")"
                                              : ""));
  return out;
}

// Turn starts of random games (uniformly random turns), every third turn.
std::vector<Game> bench_games(const Pitch& pitch, Variant v, int count, uint64_t seed) {
  RandomPlayer rp(seed);
  std::vector<Game> out;
  while (int(out.size()) < count) {
    Game g(pitch, v);
    int t = 0;
    while (!g.position().game_over() && int(out.size()) < count) {
      if (t++ % 3 == 0 && t > 1) out.push_back(g);
      g.play_turn(rp.choose_turn(g, {}));
    }
  }
  return out;
}

// A child turn of a bench position: the search's move-ordering call evaluates it from the
// parent's accumulator and the turn's kicks.
struct Child {
  size_t game;
  std::vector<uint8_t> kicks;
  Position end;
};

// Every child turn of every position that does not end the game.
std::vector<Child> child_turns(const std::vector<Game>& games) {
  std::vector<Child> children;
  TurnGenerator gen;
  gen.set_enumeration_limit(AlphaBetaPlayer::kEnumerationLimit);
  for (size_t i = 0; i < games.size(); ++i)
    gen.for_each_turn(games[i].position(), [&](const Position& end, const uint8_t* k, int n) {
      if (!end.game_over()) children.push_back({i, std::vector<uint8_t>(k, k + n), end});
    });
  return children;
}

// Evaluations per second of pass() (which makes n evaluations), repeated for at least 1 s.
template <class Pass>
double evaluations_per_s(size_t n, Pass pass) {
  int reps = 0;
  const auto t0 = Clock::now();
  do {
    pass();
    ++reps;
  } while (seconds_since(t0) < 1.0);
  return double(reps) * double(n) / seconds_since(t0);
}

// Calls fn(child) for every child, with ev reset to each parent once (as in the search).
template <class Fn>
void by_parent(const std::vector<Child>& children, const std::vector<Game>& games, ValueNetEvaluator& ev,
               Fn fn) {
  size_t last = size_t(-1);
  for (const Child& c : children) {
    if (c.game != last) {
      ev.reset(games[c.game].position());
      last = c.game;
    }
    fn(c);
  }
}

// Value net (from scratch, incremental, push/eval/pop) and hand evaluations per second.
void bench_evaluations(const std::shared_ptr<const ValueNet>& net, const std::string& name,
                       const std::vector<Game>& games, int positions) {
  const std::vector<Child> children = child_turns(games);
  ValueNetEvaluator ev(net, name);
  HandEvaluator hand;
  double sink = 0;
  const size_t n = children.size();
  const double scratch = evaluations_per_s(n, [&] {
    for (const Child& c : children) sink += net->evaluate(c.end);
  });
  const double incremental = evaluations_per_s(n, [&] {
    by_parent(children, games, ev, [&](const Child& c) {
      sink += ev.value_child(games[c.game].position(), c.kicks.data(), int(c.kicks.size()), c.end);
    });
  });
  // push_turn + evaluate_current + pop_turn: a search's leaf visit.
  const double pushed = evaluations_per_s(n, [&] {
    by_parent(children, games, ev, [&](const Child& c) {
      ev.push_turn(games[c.game].position(), c.kicks.data(), int(c.kicks.size()));
      sink += ev.value_current(c.end);
      ev.pop_turn();
    });
  });
  const double hand_rate = evaluations_per_s(n, [&] {
    for (const Child& c : children) sink += hand.evaluate(c.end);
  });
  // Agreement: the incremental paths against the from-scratch reference, every child once.
  double child_diff = 0, pushed_diff = 0;
  by_parent(children, games, ev, [&](const Child& c) {
    const Position& parent = games[c.game].position();
    const double want = net->evaluate(c.end);
    const int k = int(c.kicks.size());
    child_diff = std::max(child_diff, std::fabs(ev.value_child(parent, c.kicks.data(), k, c.end) - want));
    ev.push_turn(parent, c.kicks.data(), k);
    pushed_diff = std::max(pushed_diff, std::fabs(ev.value_current(c.end) - want));
    ev.pop_turn();
  });
  std::printf("evaluations/s over %zu child turns of %d positions (one thread; incremental kernel %s):\n", n,
              positions, net->kernel_name());
  std::printf("  value net from scratch           %12.0f\n", scratch);
  std::printf("  value net incremental (child)    %12.0f  (%.1fx)\n", incremental, incremental / scratch);
  std::printf("  value net push + eval + pop      %12.0f  (%.1fx)\n", pushed, pushed / scratch);
  std::printf("  hand evaluation                  %12.0f\n", hand_rate);
  std::printf("  largest |incremental - from scratch| over the %zu children: child %.2g, pushed %.2g\n", n,
              child_diff, pushed_diff);
  if (sink == 12345.678) std::printf(" ");  // keeps the loops
}

// The alphabeta player at o.time_ms per turn on the positions: hand and nnue evaluation, each
// with plain alpha-beta, principal variation search, and PVS with late move reductions.
void bench_alphabeta(const std::shared_ptr<const ValueNet>& net, const std::string& name,
                     const std::vector<Game>& games, const BenchOptions& o) {
  std::printf("alphabeta at %lld ms per turn over %zu positions (one thread):\n", (long long)o.time_ms,
              games.size());
  std::printf("  %-6s %-8s %12s %10s %10s %10s\n", "eval", "search", "nodes/s", "depth", "min", "max");
  for (int which = 0; which < 2; ++which) {
    for (int variant = 0; variant < 3; ++variant) {
      std::unique_ptr<LeafEvaluator> le;
      if (which) le = std::make_unique<ValueNetEvaluator>(net, name);
      AlphaBetaPlayer::Options ao;
      ao.pvs = variant >= 1;
      ao.lmr = variant == 2;
      AlphaBetaPlayer ab(ao, std::move(le), o.seed);
      int64_t nodes = 0;
      double ms = 0;
      int depth_sum = 0, searched = 0, dmin = 1000, dmax = 0;
      for (const Game& g : games) {
        ab.choose_turn(g, TurnBudget{o.time_ms, -1});
        const auto& info = ab.last_info();
        if (info.nodes == 0) continue;  // answered without a search (a win, a single turn)
        nodes += info.nodes;
        ms += info.ms;
        depth_sum += info.depth;
        dmin = std::min(dmin, info.depth);
        dmax = std::max(dmax, info.depth);
        ++searched;
      }
      std::printf("  %-6s %-8s %12.0f %10.2f %10d %10d   (%d searched)\n", which ? "nnue" : "hand",
                  variant == 0   ? "plain"
                  : variant == 1 ? "pvs"
                                 : "pvs+lmr",
                  ms > 0 ? double(nodes) / (ms / 1000.0) : 0.0, searched ? double(depth_sum) / searched : 0.0,
                  searched ? dmin : 0, dmax, searched);
    }
  }
}

void bench_value_net(const BenchOptions& o) {
  std::shared_ptr<const ValueNet> net;
  if (o.net.empty()) {
    net = std::make_shared<const ValueNet>(
        random_value_net(Pitch::standard(), Variant::kStandard, o.hidden, o.seed, o.window, o.window_points));
  } else {
    net = std::make_shared<const ValueNet>(load_value_net(o.net, "bench value-net --net"));
  }
  std::string shape = std::to_string(net->num_features());
  for (const DenseLayer& l : net->layers) shape += "-" + std::to_string(l.out);
  std::printf("value net %s: %s %s, layers %s%s\n", o.net.empty() ? "(random weights)" : o.net.c_str(),
              net->pitch().name().c_str(), variant_name(net->variant), shape.c_str(),
              net->window ? (", ball window " + std::to_string(net->window) +
                             (net->window_points ? " with its points" : ""))
                                .c_str()
                          : "");
  int64_t skipped = 0;
  const std::vector<Game> games =
      o.pgn.empty() ? bench_games(net->pitch(), net->variant, o.positions, o.seed)
                    : pgn_bench_games(o.pgn, net->pitch(), net->variant, o.positions, o.from_turn, &skipped);
  if (!o.pgn.empty())
    std::printf("positions: %zu turn starts of %s from turn %d on (every third turn%s%s)\n", games.size(),
                o.pgn.c_str(), o.from_turn, int(games.size()) < o.positions ? "; all the file holds" : "",
                skipped > 0 ? ("; " + counted(skipped, "game") + " of other rules skipped").c_str() : "");
  const std::string name = o.net.empty() ? "random" : o.net;
  bench_evaluations(net, name, games, int(games.size()));
  bench_alphabeta(net, name, games, o);
  if (o.games > 0) bench_value_in_search(net, name, o.games, o.visits, o.leaf_replies, o.seed);
}

// train-value's options.
struct TrainArgs {
  ValueTrainConfig cfg;
  std::string data_dir, out, config;
};

// train-value: the keys from --config or the flags, checks on --out before training, progress
// lines, the summary.
void run_train_value(TrainArgs& t) {
  if (!t.config.empty()) {
    ConfigReader top = ConfigReader::from_file(t.config);
    ConfigReader r = top.child("train");
    const std::string init = t.cfg.init;
    t.cfg = parse_value_train_config(r);
    t.cfg.init = init;
  }
  // Before the training, not at the final rename (`--out emptydir` had trained first).
  std::error_code ec;
  if (std::filesystem::is_directory(t.out, ec))
    throw std::invalid_argument("--out " + t.out + " is a directory: give the value net's file name (e.g. " +
                                (std::filesystem::path(t.out) / "value.vnet").string() + ")");
  {
    // A file can be made beside --out (the atomic write's temporary goes there): said before
    // the training, not after it (`--out /proc/x.vnet` had trained, then failed).
    const std::string probe = t.out + ".probe-" + std::to_string(::getpid());
    std::ofstream f(probe);
    if (!f)
      throw std::invalid_argument("--out " + t.out + ": cannot create a file there (" + std::strerror(errno) +
                                  ")");
    f.close();
    std::filesystem::remove(probe, ec);
  }
  // Figures that do not exist print as n/a: the training loss before step 1, and every
  // held-out figure without held-out games (--holdout 0; they used to read 0.0000).
  const ValueTrainResult r = train_value_net(t.cfg, t.data_dir, t.out, [](const ValueTrainMetrics& m) {
    char train[32] = "n/a";
    if (m.step > 0) std::snprintf(train, sizeof train, "%.4f", m.train_loss);
    // The late figures: n/a without held-out positions within late_turns of the end.
    std::string late = "late n/a (no held-out position within " + std::to_string(ValueBaselines::late_turns) +
                       " turns of the end)";
    if (m.holdout_late_samples > 0) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "late_mse_vs_result %.4f  late_sign_acc %.3f  (%lld late)",
                    m.holdout_late_mse_result, m.holdout_late_sign_accuracy,
                    (long long)m.holdout_late_samples);
      late = buf;
    }
    if (m.holdout_samples > 0)
      std::printf(
          "step %6lld  train_mse %s  holdout_mse %.4f  holdout_mse_vs_result %.4f  "
          "holdout_sign_acc %.3f  %s\n",
          (long long)m.step, train, m.holdout_mse, m.holdout_mse_result, m.holdout_sign_accuracy,
          late.c_str());
    else std::printf("step %6lld  train_mse %s  holdout n/a (no held-out games)\n", (long long)m.step, train);
    std::fflush(stdout);
  });
  std::printf("data: %s (%s %s; %lld of other rules skipped), %s, %lld held out\n",
              counted(r.games, "game").c_str(), r.pitch.c_str(), r.variant.c_str(),
              (long long)r.skipped_games, counted(r.train_samples, "training sample").c_str(),
              (long long)r.holdout_samples);
  if (r.holdout_samples > 0) {
    const ValueBaselines& b = r.baselines;
    std::printf(
        "held-out baselines (sign accuracy vs the result): the self-play search's root "
        "value %.3f (%.3f on the %.0f%% of positions within %d turns of the end), ball "
        "nearer the attacked goal %.3f\n",
        b.root_sign_accuracy, b.late_root_sign_accuracy, 100 * b.late_share, ValueBaselines::late_turns,
        b.ball_sign_accuracy);
  }
  if (r.holdout_samples > 0)
    std::printf("kept the weights of step %lld (lowest held-out MSE %.4f, sign accuracy %.3f)\n",
                (long long)r.best.step, r.best.holdout_mse, r.best.holdout_sign_accuracy);
  else
    std::printf("kept the weights of the last step, %lld (no held-out games to choose by)\n",
                (long long)r.best.step);
  std::printf("wrote %s (target %s%s%s, %.1f s)\n", t.out.c_str(), t.cfg.target.c_str(),
              r.window ? (", ball window " + std::to_string(r.window)).c_str() : "",
              r.window_points ? " with its points" : "", r.seconds);
}

void register_train_value_command(CLI::App& app) {
  auto t = std::make_shared<TrainArgs>();
  auto* tv = app.add_subcommand(
      "train-value", "Train the small value net of the alphabeta player (eval: nnue) on self-play data");
  tv->add_option("--data", t->data_dir, "self-play data directory (chunks *.psd)")->required();
  tv->add_option("--out", t->out, "value-net file to write (atomically), e.g. value.vnet")->required();
  tv->add_option("--steps", t->cfg.steps, "training steps")
      ->capture_default_str()
      ->check(integer_at_least(0));
  auto* hidden =
      tv->add_option("--hidden", t->cfg.hidden, "hidden layer sizes")->delimiter(',')->capture_default_str();
  tv->add_option("--target", t->cfg.target,
                 "value target: result (game result), root (the search's root value), mix (mean)")
      ->capture_default_str()
      ->check(checked_by([](const std::string& s) {
        ValueTrainConfig c;
        c.target = s;
        try {
          c.validate();
        } catch (const FieldError& e) {
          throw std::invalid_argument(e.why());  // CLI11 names the flag
        }
      }));
  tv->add_option("--result-within", t->cfg.result_within,
                 "label positions at most this many turns before their game's end by the game "
                 "result alone, whatever --target says (the late game's labels; -1: never; the "
                 "position before the last turn has 1 turn left)")
      ->capture_default_str()
      ->check(in_range(-1, 1000));
  tv->add_option("--batch", t->cfg.batch_size, "batch size")
      ->capture_default_str()
      ->check(integer_at_least(1));
  tv->add_option("--lr", t->cfg.lr, "Adam learning rate")->capture_default_str();
  tv->add_option("--weight-decay", t->cfg.weight_decay, "Adam weight decay")->capture_default_str();
  tv->add_option("--holdout", t->cfg.holdout, "fraction of games held out for evaluation")
      ->capture_default_str();
  tv->add_option("--max-samples", t->cfg.max_samples, "newest samples used at most")
      ->capture_default_str()
      ->check(integer_at_least(1));
  tv->add_option("--log-interval", t->cfg.log_interval, "steps between progress lines")
      ->capture_default_str()
      ->check(integer_at_least(1));
  auto* scale = tv->add_option("--value-scale", t->cfg.value_scale, "search score per unit of value")
                    ->capture_default_str();
  tv->add_option("--init", t->cfg.init,
                 "start from this value net (.vnet) instead of random weights: fine-tuning; its "
                 "hidden sizes and value scale are kept")
      ->check(CLI::ExistingFile)
      ->excludes(hidden)
      ->excludes(scale);
  tv->add_option("--window", t->cfg.window,
                 "radius of the ball window inputs: the segments around the ball, relative to it "
                 "(0: none; with --init: 0 keeps the init net's, a window on a net without one "
                 "starts at zero)")
      ->capture_default_str()
      ->check(in_range(0, ValueNet::kMaxWindow));
  tv->add_flag("--window-points", t->cfg.window_points,
               "give each ball window cell two more inputs: the point is touched (a kick there bounces), "
               "at most one of its directions is free (a kick there ends blocked or forced); with --init "
               "on a window net without them they start at zero");
  tv->add_option("--threads", t->cfg.threads, "LibTorch threads (0: its default; at most 256)")
      ->capture_default_str()
      ->check(in_range(0, 256));
  tv->add_option("--seed", t->cfg.seed, "seed (initial weights, held-out split, batches)")
      ->capture_default_str()
      ->check(integer_at_least(0));
  tv->add_flag("!--no-mirror", t->cfg.mirror, "no left-right mirror augmentation");
  // --config: the training keys from a YAML file's `train:` map, as `train CONFIG` reads its
  // own; not beside the flags that set them (one source for each key).
  auto* config = tv->add_option("--config", t->config,
                                "YAML whose train: map sets the training keys (those of a value-net run "
                                "config's train:, e.g. configs/ship-8x10-value-net.yaml; the file's other "
                                "maps are not read), instead of the flags; with --data, --out and --init");
  for (CLI::Option* o : tv->get_options())
    if (o != config && o->get_name() != "--data" && o->get_name() != "--out" && o->get_name() != "--init" &&
        o->get_name() != "--help" && o->get_name() != "--config")
      config->excludes(o);
  tv->callback([t] { run_train_value(*t); });
}

// relabel's options.
struct RelabelArgs {
  std::vector<std::string> games;
  std::string out, prefix = "relabel";
  RelabelOptions o;
};

void run_relabel(const RelabelArgs& ra) {
  std::vector<Game> games;
  for (const std::string& f : ra.games) {
    std::ifstream in(f);
    if (!in) throw std::runtime_error(f + ": cannot open");
    for (PgnGame& g : read_pgn(in, f, Pitch::standard(), Variant::kStandard))
      games.push_back(std::move(g.game));
  }
  ProgressLine line;
  const RelabelStats st = relabel_games(games, ra.o, ra.out, ra.prefix, [&](int64_t done, int64_t total) {
    line.update(std::to_string(done) + "/" + std::to_string(total) + " games done");
  });
  line.finish();
  std::printf(
      "relabel: %s of %zu (%lld skipped: unfinished or other rules), %s kept from an earlier run, "
      "%s written\n",
      counted(st.games, "game").c_str(), games.size(), (long long)st.skipped_games,
      counted(st.kept_chunks, "chunk").c_str(), counted(st.written_chunks, "chunk").c_str());
  if (st.dropped > 0)
    std::printf("relabel: %s dropped: their search completed no iteration within --nodes %lld\n",
                counted(st.dropped, "position").c_str(), (long long)ra.o.nodes);
  if (st.games > 0 && st.positions == 0)
    throw std::runtime_error("relabel: no position was labelled; raise --nodes or lower --from-turn");
  if (st.positions > 0)
    std::printf(
        "relabel: %s, %.1f%% proven won or lost, %.0f nodes and depth %.2f turns per position, "
        "%.1f positions/s (%d threads)\n",
        counted(st.positions, "position").c_str(), 100.0 * double(st.proven) / double(st.positions),
        double(st.nodes) / double(st.positions), double(st.depth_sum) / double(st.positions),
        double(st.positions) / std::max(st.seconds, 1e-9), ra.o.threads);
}

void register_relabel_command(CLI::App& app) {
  auto ra = std::make_shared<RelabelArgs>();
  auto* rl = app.add_subcommand(
      "relabel",
      "Training data from finished games (a tournament's or ladder's games.pgn): the value "
      "target of each position is a deeper alpha-beta search's score with a value net "
      "(selfplay/relabel.h); train-value --target root or mix reads it; resumable");
  rl->add_option("games", ra->games, "PGN files of finished games")->required()->check(CLI::ExistingFile);
  rl->add_option("--out", ra->out, "data folder to write (chunks <prefix>-NNNNNN.psd)")->required();
  rl->add_option("--prefix", ra->prefix, "chunk file prefix")->capture_default_str();
  rl->add_option("--value-net", ra->o.value_net, "the search's value net (.vnet)")->required();
  rl->add_option("--nodes", ra->o.nodes, "alpha-beta nodes per position")
      ->capture_default_str()
      ->check(in_range<int64_t>(1, 1000000000));
  rl->add_option("--from-turn", ra->o.from_turn, "first turn start relabelled")
      ->capture_default_str()
      ->check(in_range(0, 10000));
  rl->add_option("--every", ra->o.every, "then every this many turns")
      ->capture_default_str()
      ->check(in_range(1, 10000));
  rl->add_option("--threads", ra->o.threads, "worker threads")
      ->capture_default_str()
      ->check(in_range(1, 256));
  rl->add_option("--games-per-chunk", ra->o.games_per_chunk, "games per chunk file")
      ->capture_default_str()
      ->check(in_range(1, 100000));
  rl->callback([ra] { run_relabel(*ra); });
}

void register_bench_value_net_command(CLI::App& app) {
  CLI::App* bench = bench_command(app);
  auto* b = bench->add_subcommand(
      "value-net", "Value net evaluations/s (incremental vs scratch); alphabeta hand vs nnue");
  auto o = std::make_shared<BenchOptions>();
  auto* net_opt =
      b->add_option("--net", o->net, "value-net file (default: random weights, 8x10 standard)")
          ->check(CLI::Validator(
              [](std::string& v) {
                // An empty name (`--net "$UNSET"`) benchmarked a random net without a word.
                return v.empty() ? std::string("an empty name: give a .vnet file") : std::string();
              },
              "FILE"));
  b->add_option("--hidden", o->hidden, "hidden sizes of the random net (each in [1, 1024], as train-value)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(in_range(1, 1024))
      ->excludes(net_opt);
  b->add_option("--window", o->window, "ball window radius of the random net (as train-value)")
      ->capture_default_str()
      ->check(in_range(0, ValueNet::kMaxWindow))
      ->excludes(net_opt);
  b->add_flag("--window-points", o->window_points,
              "the random net's window cells carry touched and trap inputs")
      ->excludes(net_opt);
  b->add_option("--pgn", o->pgn,
                "take the positions from these games (e.g. a ladder's games.pgn) instead of random games");
  b->add_option("--from-turn", o->from_turn, "with --pgn: the first turn start taken (every third after it)")
      ->capture_default_str()
      ->check(integer_at_least(0));
  b->add_option("--positions", o->positions, "positions (turn starts of random games, or of --pgn's)")
      ->capture_default_str()
      ->check(in_range(1, 100000));
  b->add_option("--time-ms", o->time_ms, "alphabeta time per turn, ms")
      ->capture_default_str()
      ->check(integer_at_least(1));
  b->add_option("--seed", o->seed, "seed of the random games and weights")
      ->capture_default_str()
      ->check(integer_at_least(0));
  b->add_option("--games", o->games,
                "then play this many games per row (even): the net's value in PUCT, in PUCT with leaf "
                "replies and in alpha-beta to depth 1 and 2, each against PUCT with value 0")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& v) {
            const long n = std::strtol(v.c_str(), nullptr, 10);
            return n >= 0 && n % 2 == 0 && n <= 100000 ? std::string()
                                                       : std::string("must be even, in [0, 100000]");
          },
          "EVEN"));
  b->add_option("--visits", o->visits, "with --games: visits of every PUCT search")
      ->capture_default_str()
      ->check(in_range(1, 1000000));
  b->add_option(
       "--leaf-replies", o->leaf_replies,
       "with --games: turns evaluated below each leaf in the leaf-reply rows (search.leaf_reply_turns)")
      ->capture_default_str()
      ->check(in_range(1, 256));
  b->callback([o] { bench_value_net(*o); });
}

}  // namespace

void register_value_net_commands(CLI::App& app) {
  register_train_value_command(app);
  register_relabel_command(app);
  register_bench_value_net_command(app);
}

}  // namespace ps::cmd
