// The small value net of the alpha-beta search: features in the mover's frame, incremental
// accumulators equal to evaluation from scratch, the .vnet file format (round trip, every
// truncation, bit flips, bad headers), and the alphabeta player with eval nnue.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <bitset>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <random>
#include <set>

#include "core/byte_io.h"
#include "core/checksum.h"
#include "core/fileutil.h"
#include "search/alphabeta.h"
#include "search/baselines.h"
#include "search/leaf_evals.h"
#include "tests/common/random_games.h"
#include "tests/search/helpers.h"
#include "valuenet/value_net_eval.h"
#include "valuenet/value_net_file.h"

using namespace ps;

namespace {

std::string temp_path(const std::string& tag) {
  return (std::filesystem::temp_directory_path() /
          ("ps_vnet_" + tag + "_" + std::to_string(::getpid()) + ".vnet"))
      .string();
}

// Replays kicks on a copy.
Position play(Position pos, const std::string& kicks) {
  for (char c : kicks) pos.make_kick(c - '0');
  return pos;
}

std::vector<uint8_t> digits_of(const std::string& kicks) {
  std::vector<uint8_t> k;
  for (char c : kicks) k.push_back(uint8_t(c - '0'));
  return k;
}

}  // namespace

TEST_CASE("value net: a segment has one feature per perspective from either end", "[search]") {
  for (const Pitch* p : {&Pitch::standard(), &Pitch::get(8, 12, 2), &Pitch::get(6, 8, 2)}) {
    std::vector<int> seen(size_t(ValueNet::num_features(*p)), 0);
    for (int q = 0; q < p->num_points(); ++q) {
      for (int d = 0; d < kNumDirs; ++d) {
        if (!((p->allowed_dirs(q) >> d) & 1)) continue;
        const int other = q + p->dir_offset(d);
        for (int persp = 0; persp < 2; ++persp) {
          const int f = segment_feature(*p, q, d, persp);
          REQUIRE(f >= 0);
          REQUIRE(f < 4 * p->num_points());
          REQUIRE(f == segment_feature(*p, other, opposite_dir(d), persp));
        }
        // Player 1's frame is the engine's frame rotated 180 degrees.
        REQUIRE(segment_feature(*p, q, d, 1) == segment_feature(*p, p->rotate_point(q), rotate_dir(d), 0));
        if (d >= kE && d <= kSW) ++seen[size_t(segment_feature(*p, q, d, 0))];
      }
    }
    for (int c : seen) REQUIRE(c <= 1);  // distinct segments, distinct features
  }
}

TEST_CASE("value net: fast_tanh is tanh within 1e-4 (1e-6 below 3), odd and bounded", "[search]") {
  double worst = 0, worst_inner = 0;
  for (int i = -200000; i <= 200000; ++i) {
    const float x = float(i) * 1e-4f;
    const double e = std::abs(double(fast_tanh(x)) - std::tanh(double(x)));
    worst = std::max(worst, e);
    if (std::abs(x) < 3) worst_inner = std::max(worst_inner, e);
    REQUIRE(fast_tanh(-x) == -fast_tanh(x));
  }
  CHECK(worst < 1e-4);
  CHECK(worst_inner < 1.5e-6);                       // the approximant's 1e-6 plus float rounding
  CHECK(std::abs(fast_tanh(1e30f) - 1.0f) < 1e-4f);  // saturates, never above 1
  CHECK(fast_tanh(1e30f) <= 1.0f);
  CHECK(fast_tanh(-1e30f) == -fast_tanh(1e30f));
  CHECK(fast_tanh(0.0f) == 0.0f);
}

TEST_CASE("value net: incremental accumulators equal evaluation from scratch", "[search]") {
  std::mt19937_64 rng(7);
  int compared = 0;
  for (const Pitch* pitch : {&Pitch::standard(), &Pitch::get(8, 12, 2)}) {
    for (Variant v : {Variant::kStandard, Variant::kSingleBounce, Variant::kNoBounce}) {
      // Nets with a ball window too (its columns are summed per evaluation, not kept).
      const int window = v == Variant::kSingleBounce ? 0 : v == Variant::kStandard ? 2 : 1;
      // And the window's points (touched, trap) on 8x12.
      const bool points = window > 0 && pitch->length() == 12;
      auto net = std::make_shared<ValueNet>(random_value_net(*pitch, v, {32, 32}, rng(), window, points));
      ValueNetEvaluator ev(net, "test");
      TurnGenerator gen;
      for (int game = 0; game < 4; ++game) {
        const Game g = testing::random_game(*pitch, v, int(rng() % 30), rng);
        if (g.position().game_over()) continue;
        ev.reset(g.position());
        // A random path of up to 4 turns down and back up, checking every step.
        std::vector<Position> path{g.position()};
        for (int step = 0; step < 12; ++step) {
          const Position& top = path.back();
          REQUIRE(ev.path_length() == int(path.size()) - 1);
          REQUIRE(ev.value_current(top) == Approx(net->evaluate(top)).margin(1e-5));
          ++compared;
          const auto turns = gen.generate(top);
          std::vector<const Turn*> open;
          for (const Turn& t : turns) {
            if (t.winner >= 0) continue;
            const Position child = play(top, t.kicks);
            const auto k = digits_of(t.kicks);
            REQUIRE(ev.value_child(top, k.data(), int(k.size()), child) ==
                    Approx(net->evaluate(child)).margin(1e-5));
            open.push_back(&t);
          }
          if (!open.empty() && (path.size() < 5 && rng() % 3 != 0)) {
            const std::string kicks = open[rng() % open.size()]->kicks;
            const auto k = digits_of(kicks);
            ev.push_turn(top, k.data(), int(k.size()));
            path.push_back(play(top, kicks));
          } else if (path.size() > 1) {
            ev.pop_turn();
            path.pop_back();
          }
        }
      }
    }
  }
  REQUIRE(compared >= 100);
}

// One kick from the centre of 8x10 (player 0 kicks N: (4,5) -> (4,4)); player 1 to move sees
// the board rotated, the ball at (4,6) and the segment to its north, stored at its forward end
// (4,5), which points S: cell (dx 0, dy -1) of the window, direction S.
TEST_CASE("value net: the ball window holds the segments around the ball", "[search]") {
  const Pitch& p = Pitch::standard();
  Position pos(p, Variant::kStandard);
  pos.make_kick(kN);
  REQUIRE(pos.turn_start());
  REQUIRE(pos.side_to_move() == 1);
  const int np = p.num_points(), r = 2, side = 2 * r + 1;
  std::vector<int> f;
  value_features(pos, f, r);
  const int seg = 4 * p.point(4, 5) + (kS - kE);
  const int cell = 5 * np + 4 * ((-1 + r) * side + (0 + r)) + (kS - kE);
  const int ball = 4 * np + p.point(4, 6);
  CHECK(f == std::vector<int>{seg, cell, ball});
  // A net whose only non-zero weight is that window feature's sees it in both evaluators.
  ValueNet net = random_value_net(p, Variant::kStandard, {2}, 1, r);
  for (float& w : net.layers[0].weight) w = 0;
  for (float& b : net.layers[0].bias) b = 0;
  net.layers[0].weight[size_t(cell)] = 0.5f;  // hidden unit 0
  net.layers[1].weight = {2.0f, 0.0f};
  net.layers[1].bias = {0.0f};
  net.finalize();
  CHECK(net.evaluate(pos) == Approx(std::tanh(1.0)).margin(1e-4));
  CHECK(net.evaluate(Position(p, Variant::kStandard)) == Approx(0.0).margin(1e-6));
  ValueNetEvaluator ev(std::make_shared<const ValueNet>(net), "test");
  const Position start(p, Variant::kStandard);
  ev.reset(start);
  const uint8_t kick = kN;
  CHECK(ev.value_child(start, &kick, 1, pos) == Approx(std::tanh(1.0)).margin(1e-4));
  ev.push_turn(start, &kick, 1);
  CHECK(ev.value_current(pos) == Approx(std::tanh(1.0)).margin(1e-4));
  // Radius 0 is no window: the net's inputs are as before.
  value_features(pos, f, 0);
  CHECK(f == std::vector<int>{seg, ball});
  // With the window's points a cell has 6 inputs: the segment's cell and the ball's are touched
  // (inputs 4); no point of the window is a trap (all walls are 3 or more points away).
  value_features(pos, f, r, true);
  const int up = 5 * np + 6 * ((-1 + r) * side + (0 + r)), centre = 5 * np + 6 * (r * side + r);
  CHECK(f == std::vector<int>{seg, up + (kS - kE), up + 4, centre + 4, ball});
}

// The window's point inputs against their definition, computed here from the engine's masks:
// for every cell of the window on the grid, input 4 is set when the point is touched and input 5
// when at most one of its on-pitch directions is free, in both frames, along random games.
TEST_CASE("value net: the window's points are its touched and trap points", "[search]") {
  for (const Pitch* p : {&Pitch::standard(), &Pitch::get(8, 12, 2)}) {
    const int w = p->width(), l = p->length(), np = p->num_points();
    std::mt19937 rng(5);
    Position pos(*p, Variant::kStandard);
    int traps = 0, touched = 0, compared = 0;
    for (int kick = 0; kick < 2000; ++kick) {
      std::vector<int> legal;
      for (int d = 0; d < 8; ++d)
        if (pos.is_legal(d)) legal.push_back(d);
      if (legal.empty()) {
        pos = Position(*p, Variant::kStandard);
        continue;
      }
      pos.make_kick(legal[rng() % legal.size()]);
      for (int r : {1, 2, 3}) {
        const int side = 2 * r + 1;
        for (int persp = 0; persp < 2; ++persp) {
          std::vector<int> f;
          window_features(pos, r, persp, f, true);
          const std::set<int> set(f.begin(), f.end());
          int bx = p->x_of(pos.ball()), by = p->y_of(pos.ball());
          if (persp) bx = w - bx, by = l - by;
          for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx) {
              const int x = bx + dx, y = by + dy;  // mover's frame
              const int cell = 5 * np + 6 * ((dy + r) * side + (dx + r));
              if (x < 0 || x > w || y < -1 || y > l + 1) {
                for (int k = 0; k < 6; ++k) REQUIRE(set.count(cell + k) == 0);
                continue;
              }
              const int q = persp ? p->point(w - x, l - y) : p->point(x, y);
              const unsigned drawn = pos.drawn_mask(q), free = p->allowed_dirs(q) & ~drawn & 0xFFu;
              const bool is_touched = drawn != 0, is_trap = std::bitset<8>(free).count() <= 1;
              REQUIRE(set.count(cell + 4) == size_t(is_touched));
              REQUIRE(set.count(cell + 5) == size_t(is_trap));
              touched += is_touched;
              traps += is_trap && p->is_field(q) && p->wall_dirs(q) == 0;
              ++compared;
            }
        }
      }
    }
    CHECK(compared > 10000);
    CHECK(traps > 0);  // inner points with at most one free direction were seen
    CHECK(touched > 0);
  }
}

// add_window adds one precomputed column per drawn cell (the sum of its pattern's segment
// columns) for up to 64 hidden units, one column per drawn segment above: both equal the sum of
// window_features' columns, in both frames, for the fixed widths 16 and 32 and a general one.
TEST_CASE("value net: the window's pattern sums equal its segment columns", "[search]") {
  const Pitch& p = Pitch::standard();
  for (int h1 : {16, 32, 8, 80}) {
    // r = 8 (the largest, 289 cells): the window table's cell index wrapped at 256.
    for (int r : {1, 2, 3, 8}) {
      // The window's points too (6 inputs and 64 patterns per cell) at r = 2 and 3.
      const bool points = r == 2 || r == 3;
      const ValueNet net = random_value_net(p, Variant::kStandard, {h1, 4}, uint64_t(h1 * 10 + r), r, points);
      std::mt19937 rng(uint32_t(h1 + r));
      Position pos(p, Variant::kStandard);
      int compared = 0;
      for (int kick = 0; kick < 200; ++kick) {
        std::vector<int> legal;
        for (int d = 0; d < 8; ++d)
          if (pos.is_legal(d)) legal.push_back(d);
        if (legal.empty()) {  // game over: a new game
          pos = Position(p, Variant::kStandard);
          continue;
        }
        pos.make_kick(legal[rng() % legal.size()]);
        for (int persp = 0; persp < 2; ++persp) {
          std::vector<float> sum(size_t(h1), 0.25f), want(size_t(h1), 0.25f);
          net.add_window(pos, persp, sum.data());
          std::vector<int> f;
          window_features(pos, r, persp, f, points);
          for (int feature : f)
            for (int j = 0; j < h1; ++j) want[size_t(j)] += net.column(feature)[j];
          for (int j = 0; j < h1; ++j) REQUIRE(sum[size_t(j)] == Approx(want[size_t(j)]).margin(1e-5));
          ++compared;
        }
      }
      CHECK(compared >= 300);
    }
  }
}

// value_incremental's kernels (fixed sizes 16 and 32, their AVX2 builds where the CPU has AVX2)
// do the general path's float operations in its order: the same value to the bit, for the
// children and turn starts of random paths, with and without a ball window.
TEST_CASE("value net: every kernel gives the general path's value to the bit", "[search]") {
  const Pitch& p = Pitch::standard();
  std::mt19937_64 rng(11);
  for (const std::vector<int>& hidden :
       std::vector<std::vector<int>>{{16, 16}, {32, 32}, {16, 8}, {24, 24}}) {
    for (int window : {0, 2, 3, 8, -2}) {  // -2: radius 2 with the window's points
      auto net = std::make_shared<ValueNet>(
          random_value_net(p, Variant::kStandard, hidden, rng(), std::abs(window), window < 0));
      const std::vector<std::string> kernels = net->kernels();
      REQUIRE(kernels.front() == "general");
      REQUIRE(kernels.back() == net->kernel_name());
#if defined(__GNUC__) && !defined(__clang__)
      if (hidden[0] == hidden[1] && (hidden[0] == 16 || hidden[0] == 32)) REQUIRE(kernels.size() >= 2);
#endif
      if (hidden[0] != hidden[1] || hidden[0] == 24) REQUIRE(kernels.size() == 1);
      const uint64_t games_seed = rng();
      std::vector<std::vector<float>> values;
      for (const std::string& k : kernels) {
        net->use_kernel(k);
        REQUIRE(net->kernel_name() == k);
        ValueNetEvaluator ev(net, "test");
        TurnGenerator gen;
        std::mt19937_64 games(games_seed);
        std::vector<float> v;
        for (int game = 0; game < 16; ++game) {
          const Game g = testing::random_game(p, Variant::kStandard, int(games() % 40), games);
          if (g.position().game_over()) continue;
          ev.reset(g.position());
          Position top = g.position();
          for (int depth = 0; depth < 3 && !top.game_over(); ++depth) {
            v.push_back(ev.value_current(top));
            std::string next;
            for (const Turn& t : gen.generate(top)) {
              if (t.winner >= 0) continue;
              const auto kd = digits_of(t.kicks);
              v.push_back(ev.value_child(top, kd.data(), int(kd.size()), play(top, t.kicks)));
              if (next.empty() || games() % 4 == 0) next = t.kicks;
            }
            if (next.empty()) break;
            const auto kd = digits_of(next);
            ev.push_turn(top, kd.data(), int(kd.size()));
            top = play(top, next);
          }
        }
        values.push_back(std::move(v));
      }
      REQUIRE(values.front().size() >= 200);
      for (size_t k = 1; k < values.size(); ++k) {
        INFO("kernel " << kernels[k] << ", hidden " << hidden[0] << " window " << window);
        REQUIRE(values[k].size() == values.front().size());
        for (size_t i = 0; i < values[k].size(); ++i) REQUIRE(values[k][i] == values.front()[i]);
      }
    }
  }
  ValueNet net = random_value_net(p, Variant::kStandard, {16, 16}, 1, 0);
  REQUIRE_THROWS_WITH(net.use_kernel("64x64"), Catch::Contains("no kernel '64x64'"));
}

TEST_CASE("value net: a net with a ball window round-trips as version 2, with its points as 3", "[search]") {
  const ValueNet net = random_value_net(Pitch::get(8, 12, 2), Variant::kStandard, {8, 4}, 3, 3);
  const std::string bytes = value_net_bytes(net);
  CHECK(get_le<uint32_t>(bytes.data() + 4) == 2u);
  const ValueNet back = parse_value_net("w.vnet", bytes);
  CHECK(back.window == 3);
  CHECK(value_net_bytes(back) == bytes);
  // With the window's points: version 3.
  const ValueNet pts = random_value_net(Pitch::standard(), Variant::kStandard, {8, 4}, 3, 2, true);
  const std::string pts_bytes = value_net_bytes(pts);
  CHECK(get_le<uint32_t>(pts_bytes.data() + 4) == 3u);
  const ValueNet pts_back = parse_value_net("p.vnet", pts_bytes);
  CHECK(pts_back.window == 2);
  CHECK(pts_back.window_points);
  CHECK(pts_back.layers.front().in == 585 + 6 * 25);
  CHECK(value_net_bytes(pts_back) == pts_bytes);
  // Without a window the file stays version 1 (older builds read it).
  CHECK(get_le<uint32_t>(
            value_net_bytes(random_value_net(Pitch::standard(), Variant::kStandard, {4}, 3)).data() + 4) ==
        1u);
}

TEST_CASE("value net: file round trip", "[search]") {
  const ValueNet net = random_value_net(Pitch::standard(), Variant::kSingleBounce, {16, 8}, 3);
  const std::string path = temp_path("roundtrip");
  save_value_net(net, path);
  const ValueNet back = load_value_net(path);
  // The format is canonical: a loaded net writes its file's bytes again (relabel's manifest
  // checksums the loaded net as the file).
  CHECK(value_net_bytes(back) == read_file(path));
  std::remove(path.c_str());
  REQUIRE(back.width == 8);
  REQUIRE(back.length == 10);
  REQUIRE(back.goal == 2);
  REQUIRE(back.variant == Variant::kSingleBounce);
  REQUIRE(back.value_scale == net.value_scale);
  REQUIRE(back.layers.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    REQUIRE(back.layers[i].weight == net.layers[i].weight);
    REQUIRE(back.layers[i].bias == net.layers[i].bias);
  }
  std::mt19937_64 rng(1);
  const Game g = testing::random_game(Pitch::standard(), Variant::kSingleBounce, 10, rng);
  REQUIRE(back.evaluate(g.position()) == net.evaluate(g.position()));
}

TEST_CASE("value net: corrupt files are errors naming the file, never a crash", "[search]") {
  // A small pitch keeps every truncation cheap.
  const ValueNet net = random_value_net(Pitch::get(4, 4, 2), Variant::kStandard, {4, 3}, 5);
  const std::string good = value_net_bytes(net);
  REQUIRE_NOTHROW(parse_value_net("x.vnet", good));
  SECTION("every truncation") {
    for (size_t n = 0; n < good.size(); ++n)
      REQUIRE_THROWS_AS(parse_value_net("x.vnet", good.substr(0, n)), ValueNetError);
    CHECK_THROWS_WITH(parse_value_net("x.vnet", good.substr(0, good.size() - 1)),
                      Catch::Contains("x.vnet") && Catch::Contains("checksum"));
    CHECK_THROWS_WITH(parse_value_net("x.vnet", good.substr(0, 2)), Catch::Contains("truncated"));
  }
  SECTION("bit flips") {
    std::mt19937_64 rng(9);
    for (int i = 0; i < 2000; ++i) {
      std::string bad = good;
      bad[rng() % bad.size()] ^= char(1 << (rng() % 8));
      REQUIRE_THROWS_AS(parse_value_net("x.vnet", bad), ValueNetError);
    }
  }
  // Well-formed checksums around bad contents: the field is named.
  auto resum = [](std::string s) {
    s.resize(s.size() - 8);
    const uint64_t h = fnv1a64_bytes(s.data(), s.size());
    for (int i = 0; i < 8; ++i) s.push_back(char((h >> (8 * i)) & 0xff));
    return s;
  };
  auto set_u32 = [](std::string& s, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) s[at + size_t(i)] = char((v >> (8 * i)) & 0xff);
  };
  SECTION("ball window headers") {
    const std::string w = value_net_bytes(random_value_net(Pitch::standard(), Variant::kStandard, {4}, 3, 2));
    std::string s = w;
    set_u32(s, 24, 0);  // a version-2 file has a window
    CHECK_THROWS_WITH(parse_value_net("x.vnet", resum(s)),
                      Catch::Contains("ball window 0 out of range [1, 8]"));
    set_u32(s, 24, 9);
    CHECK_THROWS_WITH(parse_value_net("x.vnet", resum(s)), Catch::Contains("ball window 9 out of range"));
    set_u32(s, 24, 3);  // the first layer is radius 2's
    CHECK_THROWS_WITH(parse_value_net("x.vnet", resum(s)), Catch::Contains("with ball window 3 needs 781"));
    s = w;
    set_u32(s, 4, 1);  // read as version 1: the window field is read as value_scale and so on
    CHECK_THROWS_AS(parse_value_net("x.vnet", resum(s)), ValueNetError);
    s = good;
    set_u32(s, 4, 2);
    CHECK_THROWS_AS(parse_value_net("x.vnet", resum(s)), ValueNetError);
  }
  SECTION("weights that are not finite, or huge, with a valid checksum") {
    // The weights are the file's last floats before the checksum; the last is a bias of the
    // output layer (layer 2: the net has two hidden layers).
    const size_t last = good.size() - 8 - 4;
    for (float bad :
         {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), 3e38f}) {
      std::string s = good;
      std::memcpy(&s[last], &bad, 4);
      CHECK_THROWS_WITH(parse_value_net("x.vnet", resum(s)),
                        Catch::Contains("x.vnet") && Catch::Contains("layer 2: biases holds") &&
                            Catch::Contains("not finite, or above 1e6 in magnitude"));
    }
  }
  SECTION("bad headers") {
    std::string s = good;
    s[0] = 'X';
    CHECK_THROWS_WITH(parse_value_net("x.vnet", s), Catch::Contains("bad magic"));
    // Regression: any file under 4 bytes was "truncated", a 3-byte text file too.
    CHECK_THROWS_WITH(parse_value_net("x.vnet", "abc"), Catch::Contains("bad magic"));
    CHECK_THROWS_WITH(parse_value_net("x.vnet", good.substr(0, 3)),
                      Catch::Contains("truncated (shorter than the magic)"));
    // Regression: an empty file was "truncated (shorter than the magic)"; it is named empty.
    CHECK_THROWS_WITH(parse_value_net("x.vnet", ""), Catch::Contains("empty file (0 bytes)"));
    s = good;
    set_u32(s, 4, 99);
    CHECK_THROWS_WITH(parse_value_net("x.vnet", resum(s)), Catch::Contains("unsupported version 99"));
    s = good;
    set_u32(s, 8, 5);  // width 5: odd
    CHECK_THROWS_AS(parse_value_net("x.vnet", resum(s)), ValueNetError);
    s = good;
    set_u32(s, 20, 7);  // variant 7
    CHECK_THROWS_WITH(parse_value_net("x.vnet", resum(s)), Catch::Contains("unknown variant"));
    s = good;
    set_u32(s, 28, 1000);  // num_layers
    CHECK_THROWS_WITH(parse_value_net("x.vnet", resum(s)), Catch::Contains("num_layers"));
    s = good;
    set_u32(s, 32, 100);  // first layer's inputs: not the pitch's feature count
    CHECK_THROWS_AS(parse_value_net("x.vnet", resum(s)), ValueNetError);
    s = good;
    s.insert(s.size() - 8, "abcd");
    CHECK_THROWS_WITH(parse_value_net("x.vnet", resum(s)), Catch::Contains("trailing bytes"));
    s = good;
    set_u32(s, s.size() - 12, 0x7fc00000u);  // a NaN bias
    CHECK_THROWS_WITH(parse_value_net("x.vnet", resum(s)), Catch::Contains("not finite"));
  }
  SECTION("missing file") {
    CHECK_THROWS_WITH(load_value_net("/nonexistent/dir/v.vnet"), Catch::Contains("/nonexistent/dir/v.vnet"));
  }
  // Regression: a FIFO blocked the reader, /dev/zero grew it past 2 GB.
  SECTION("special files") {
    CHECK_THROWS_WITH(load_value_net("/dev/zero"),
                      Catch::Contains("/dev/zero") && Catch::Contains("not a regular file"));
    const std::string fifo =
        (std::filesystem::temp_directory_path() / ("ps-vnet-fifo-" + std::to_string(::getpid()))).string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THROWS_WITH(load_value_net(fifo), Catch::Contains("not a regular file"));
    std::filesystem::remove(fifo);
  }
}

TEST_CASE("alphabeta with eval nnue plays legal turns within time", "[search]") {
  auto net =
      std::make_shared<ValueNet>(random_value_net(Pitch::standard(), Variant::kStandard, {32, 32}, 11));
  AlphaBetaPlayer::Options o;
  AlphaBetaPlayer nnue(o, std::make_unique<ValueNetEvaluator>(net, "random.vnet"), 1);
  AlphaBetaPlayer hand(o, nullptr, 2);
  Game g(Pitch::standard(), Variant::kStandard);
  int turns = 0;
  while (!g.position().game_over() && turns < 60) {
    AlphaBetaPlayer& p = turns % 2 ? hand : nnue;
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = ps::test::thread_cpu_ms();
    const std::string t = p.choose_turn(g, TurnBudget{40, -1});
    const double cpu = ps::test::thread_cpu_ms() - cpu0;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    REQUIRE(ps::test::is_legal_turn(g, t));
    INFO("limit 40 ms, took " << ms << " ms wall, " << cpu << " ms CPU");
    CHECK(cpu < 40 + 250);  // no runaway (as test_alphabeta: wall time measures the load)
    CHECK(ms < 40 + 5000);
    g.play_turn(t);
    ++turns;
  }
  REQUIRE(turns >= 4);
  // A game the net was not trained for is refused, naming the file.
  Game other(Pitch::get(8, 12, 2), Variant::kStandard);
  CHECK_THROWS_WITH(nnue.choose_turn(other, TurnBudget{20, -1}),
                    Catch::Contains("random.vnet") && Catch::Contains("8x12"));
}

TEST_CASE("leaf evaluations by name, a value net of other rules is refused before the first search",
          "[search]") {
  const std::string path = temp_path("rules");
  save_value_net(random_value_net(Pitch::standard(), Variant::kSingleBounce, {8, 8}, 5), path);
  CHECK_NOTHROW(check_value_net_rules(path, Pitch::standard(), Variant::kSingleBounce));
  CHECK_THROWS_WITH(check_value_net_rules(path, Pitch::standard(), Variant::kStandard),
                    "value net " + path + ": trained for 8x10 single-bounce, the games are 8x10 standard");
  LeafEvalSpec spec;
  spec.eval = "nnue";
  spec.value_net = path;
  CHECK(make_leaf_evaluator(spec, 1)->name() == "nnue");
  // The alpha-beta player with it says so at new_game, not at its first search (the mcts
  // player's endgame search starts at turn 20).
  AlphaBetaPlayer ab(AlphaBetaPlayer::Options{}, make_leaf_evaluator(spec, 1), 1);
  CHECK_NOTHROW(ab.new_game(Pitch::standard(), Variant::kSingleBounce));
  CHECK_THROWS_WITH(ab.new_game(Pitch::get(8, 12, 2), Variant::kSingleBounce),
                    Catch::Contains("trained for 8x10 single-bounce, the game is 8x12 single-bounce"));
  spec.value_net = path + ".missing";
  try {
    (void)make_leaf_evaluator(spec, 1);
    FAIL("no error");
  } catch (const LeafEvalError& e) {
    CHECK(e.field() == "value_net");
    CHECK_THAT(e.what(), Catch::Contains(".missing"));
  }
  spec = LeafEvalSpec{};
  spec.eval = "mobility";
  CHECK_THROWS_WITH(make_leaf_evaluator(spec, 1), "unknown evaluation 'mobility' (known: hand, noise, nnue)");
  // A misspelt name beside a value net is the name's error, not value_net's (it said
  // "value_net: is only read with eval: nnue (the evaluation is nnu)").
  spec.eval = "nnu";
  spec.value_net = path;
  try {
    (void)make_leaf_evaluator(spec, 1);
    FAIL("no error");
  } catch (const LeafEvalError& e) {
    CHECK(e.field() == "eval");
    CHECK(std::string(e.what()) == "unknown evaluation 'nnu' (known: hand, noise, nnue)");
  }
  spec.value_net.clear();
  spec.eval = "hand";
  spec.value_net = path;
  CHECK_THROWS_WITH(make_leaf_evaluator(spec, 1), Catch::Contains("is only read with eval: nnue"));
  std::remove(path.c_str());
}

TEST_CASE("leaf_eval_from_name: the names of --value-net", "[search]") {
  // One reading for bot, ladder, serve and analyse (the sentinel string "hand" used to travel
  // in fields named value_net).
  CHECK(leaf_eval_from_name("hand").eval == "hand");
  CHECK(leaf_eval_from_name("hand").value_net.empty());
  CHECK(leaf_eval_from_name("none").eval == "noise");
  CHECK(leaf_eval_from_name("none").value_net.empty());
  const LeafEvalSpec net = leaf_eval_from_name("models/8x10-standard.vnet");
  CHECK(net.eval == "nnue");
  CHECK(net.value_net == "models/8x10-standard.vnet");
  CHECK(describe_leaf_eval(net) == "value net models/8x10-standard.vnet");
  CHECK_THROWS_AS(leaf_eval_from_name(""), LeafEvalError);
  CHECK_THROWS_WITH(leaf_eval_from_name(""), "an empty name: give a .vnet file, none or hand");
}

TEST_CASE("the endgame's evaluation in SearchParams: one mapping both ways, and its description",
          "[search]") {
  SearchParams sp;
  sp.endgame_from_turn = 0;
  LeafEvalSpec net = leaf_eval_from_name("v.vnet");
  net.eval_noise = 150;
  set_endgame_leaf_eval(sp, net);
  CHECK(sp.endgame_eval == "nnue");
  CHECK(sp.endgame_value_net == "v.vnet");
  CHECK(sp.endgame_eval_noise == 150);
  const LeafEvalSpec back = endgame_leaf_eval(sp);
  CHECK(back.eval == net.eval);
  CHECK(back.value_net == net.value_net);
  CHECK(back.eval_noise == net.eval_noise);
  CHECK(describe_play_search(sp) ==
        "alpha-beta from the first turn (evaluation: value net v.vnet + noise 150)");
  CHECK(describe_play_search(sp, true) == "puct all game");
}

// Plays 12 random turns and checks that `added` scores each turn start (evaluate_current) and a
// child through the incremental path (evaluate_child) as `plain` plus term(position). Returns the
// number of turn starts where the term was not 0.
static int check_term_added(LeafEvaluator& plain, LeafEvaluator& added,
                            const std::function<int(const Position&)>& term, uint64_t seed) {
  RandomPlayer rp(seed);
  Game g(Pitch::standard(), Variant::kStandard);
  int differ = 0;
  for (int t = 0; t < 12 && !g.position().game_over(); ++t) {
    const Position& p = g.position();
    plain.reset(p);
    added.reset(p);
    INFO("turn " << t);
    CHECK(added.evaluate_current(p) == plain.evaluate_current(p) + term(p));
    differ += term(p) != 0;
    const std::string turn = rp.choose_turn(g, {});
    std::vector<uint8_t> kicks;
    for (char c : turn) kicks.push_back(uint8_t(c - '0'));
    Position child = p;
    for (uint8_t k : kicks) child.make_kick(k);
    if (!child.game_over())
      CHECK(added.evaluate_child(p, kicks.data(), int(kicks.size()), child) ==
            plain.evaluate_child(p, kicks.data(), int(kicks.size()), child) + term(child));
    g.play_turn(turn);
  }
  return differ;
}

TEST_CASE("eval_noise adds the noise evaluation to the hand or learned score", "[search]") {
  const std::shared_ptr<const ValueNet> net =
      std::make_shared<const ValueNet>(random_value_net(Pitch::standard(), Variant::kStandard, {8, 8}, 3));
  const std::string path = temp_path("noise-added");
  save_value_net(*net, path);
  for (const char* eval : {"hand", "nnue"}) {
    LeafEvalSpec spec;
    spec.eval = eval;
    if (spec.eval == "nnue") spec.value_net = path;
    std::unique_ptr<LeafEvaluator> plain = make_leaf_evaluator(spec, 7);
    spec.eval_noise = 250;
    std::unique_ptr<LeafEvaluator> noisy = make_leaf_evaluator(spec, 7);
    CHECK(noisy->name() == std::string(eval) + "+noise");
    NoiseEvaluator noise(250, 7);
    INFO(eval);
    const int differ = check_term_added(
        *plain, *noisy, [&](const Position& p) { return noise.evaluate(p); }, 4);
    CHECK(differ > 0);
  }
  LeafEvalSpec spec;
  spec.eval = "noise";
  spec.eval_noise = 5;
  CHECK_THROWS_WITH(make_leaf_evaluator(spec, 1), Catch::Contains("is only added to eval: hand or nnue"));
  spec.eval = "hand";
  spec.eval_noise = -1;
  try {
    (void)make_leaf_evaluator(spec, 1);
    FAIL("no error");
  } catch (const LeafEvalError& e) {
    CHECK(e.field() == "eval_noise");
  }
  std::remove(path.c_str());
}
