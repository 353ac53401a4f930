// Properties over thousands of random games per variant and pitch, checked against a slow,
// independent reference model of the rules written straight from RULES.md.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <tuple>

#include "engine/record.h"
#include "engine/turns.h"
#include "tests/common/random_games.h"

using namespace ps;

namespace {

// Reference model: segments as a set of ordered coordinate pairs, geometry from the text.
struct Reference {
  int W, L, G;
  Variant variant;
  std::set<std::tuple<int, int, int, int>> segs;
  int bx, by, side = 0, kicks_in_turn = 0, winner = -1;

  static std::tuple<int, int, int, int> key(int x1, int y1, int x2, int y2) {
    if (std::make_pair(x1, y1) > std::make_pair(x2, y2)) {
      std::swap(x1, x2);
      std::swap(y1, y2);
    }
    return {x1, y1, x2, y2};
  }
  bool is_field(int x, int y) const { return x >= 0 && x <= W && y >= 0 && y <= L; }
  bool is_goal(int x, int y) const {
    return (y == -1 || y == L + 1) && x >= W / 2 - G / 2 && x <= W / 2 + G / 2;
  }
  Reference(int w, int l, int g, Variant v) : W(w), L(l), G(g), variant(v), bx(w / 2), by(l / 2) {
    const int a = W / 2 - G / 2, b = W / 2 + G / 2;
    for (int x = 0; x < W; ++x) {
      bool mouth = x >= a && x < b;
      if (!mouth) {
        segs.insert(key(x, 0, x + 1, 0));
        segs.insert(key(x, L, x + 1, L));
      }
    }
    for (int y = 0; y < L; ++y) {
      segs.insert(key(0, y, 0, y + 1));
      segs.insert(key(W, y, W, y + 1));
    }
    for (int x : {a, b}) {
      segs.insert(key(x, 0, x, -1));
      segs.insert(key(x, L, x, L + 1));
    }
    for (int x = a; x < b; ++x) {
      segs.insert(key(x, -1, x + 1, -1));
      segs.insert(key(x, L + 1, x + 1, L + 1));
    }
  }
  bool touched(int x, int y) const {
    for (auto& s : segs)
      if ((std::get<0>(s) == x && std::get<1>(s) == y) || (std::get<2>(s) == x && std::get<3>(s) == y))
        return true;
    return false;
  }
  bool legal(int d) const {
    int nx = bx + kDirDx[d], ny = by + kDirDy[d];
    if (!is_field(nx, ny) && !is_goal(nx, ny)) return false;
    if (segs.count(key(bx, by, nx, ny))) return false;
    // Diagonal from an end-line point outside the mouth into the pocket cuts around a post.
    if (kDirDx[d] != 0 && kDirDy[d] != 0 && is_goal(nx, ny) && !is_goal(bx, by)) {
      int a = W / 2 - G / 2, b = W / 2 + G / 2;
      if (bx < a || bx > b) return false;
    }
    return true;
  }
  unsigned legal_mask() const {
    unsigned m = 0;
    if (winner >= 0) return 0;
    for (int d = 0; d < 8; ++d)
      if (legal(d)) m |= 1u << d;
    return m;
  }
  void kick(int d) {
    int nx = bx + kDirDx[d], ny = by + kDirDy[d];
    bool bounced = touched(nx, ny);
    segs.insert(key(bx, by, nx, ny));
    bx = nx;
    by = ny;
    if (is_goal(nx, ny)) {
      winner = ny < 0 ? 0 : 1;
      return;
    }
    bool again = variant == Variant::kStandard       ? bounced
                 : variant == Variant::kSingleBounce ? bounced && kicks_in_turn == 0
                                                     : false;
    if (again) {
      ++kicks_in_turn;
    } else {
      kicks_in_turn = 0;
      side ^= 1;
    }
    if (legal_mask() == 0) winner = side ^ 1;
  }
};

struct Config {
  int w, l, g;
  Variant v;
};
const Config kConfigs[] = {
    {8, 10, 2, Variant::kStandard}, {8, 10, 2, Variant::kSingleBounce}, {8, 10, 2, Variant::kNoBounce},
    {8, 12, 2, Variant::kStandard}, {8, 12, 2, Variant::kSingleBounce}, {8, 12, 2, Variant::kNoBounce},
    {6, 8, 2, Variant::kStandard},  {10, 14, 4, Variant::kSingleBounce},
};

}  // namespace

TEST_CASE("random games agree kick by kick with the reference model of the rules") {
  std::mt19937_64 rng(12345);
  for (const Config& c : kConfigs) {
    const Pitch& pitch = Pitch::get(c.w, c.l, c.g);
    for (int game = 0; game < 40; ++game) {
      Reference ref(c.w, c.l, c.g, c.v);
      Position pos(pitch, c.v);
      while (!pos.game_over()) {
        INFO(pitch.name() << " " << variant_name(c.v) << " game " << game << " kick "
                          << pos.num_kicks());
        REQUIRE(unsigned(pos.legal_kicks()) == ref.legal_mask());
        int d = testing::random_kick(pos, rng);
        pos.make_kick(d);
        ref.kick(d);
        REQUIRE(pos.ball() == pitch.point(ref.bx, ref.by));
        REQUIRE(pos.side_to_move() == ref.side);
        REQUIRE(pos.winner() == ref.winner);
        if (ref.winner < 0) REQUIRE(pos.kicks_in_turn() == ref.kicks_in_turn);
      }
    }
  }
}

TEST_CASE("thousands of random games: legal kicks only, a winner always, hash always exact") {
  std::mt19937_64 rng(99);
  int games = 0;
  for (const Config& c : kConfigs) {
    const Pitch& pitch = Pitch::get(c.w, c.l, c.g);
    for (int game = 0; game < 500; ++game, ++games) {
      Position pos(pitch, c.v);
      std::vector<KickUndo> undo;
      std::vector<Position> history;
      int kicks = 0;
      while (!pos.game_over()) {
        const unsigned legal = pos.legal_kicks();
        REQUIRE(legal != 0);
        // Legal kicks are allowed by geometry and not drawn yet.
        REQUIRE((legal & ~unsigned(pitch.allowed_dirs(pos.ball()))) == 0);
        REQUIRE((legal & unsigned(pos.drawn_mask(pos.ball()))) == 0);
        if (game < 20) history.push_back(pos);
        undo.push_back(pos.make_kick(testing::random_kick(pos, rng)));
        REQUIRE(pos.hash() == pos.compute_hash());
        REQUIRE(++kicks <= 4 * pitch.num_points());  // every kick draws a new segment
      }
      REQUIRE((pos.winner() == 0 || pos.winner() == 1));
      REQUIRE(pos.reason() != Reason::kNone);
      // Unmaking every kick walks back through the same positions to the start.
      for (size_t i = undo.size(); i-- > 0;) {
        pos.unmake_kick(undo[i]);
        if (game < 20) REQUIRE(pos == history[i]);
      }
      REQUIRE(pos == Position(pitch, c.v));
    }
  }
  CHECK(games == 4000);
}

TEST_CASE("left-right mirrored records give mirrored positions and equal turn counts") {
  std::mt19937_64 rng(2024);
  TurnGenerator gen;
  for (const Config& c : kConfigs) {
    const Pitch& pitch = Pitch::get(c.w, c.l, c.g);
    for (int game = 0; game < 30; ++game) {
      Game g = testing::random_game(pitch, c.v, 2 + int(rng() % 25), rng);
      std::string mirrored;
      for (char ch : g.record()) mirrored += ch == ' ' ? ' ' : char('0' + mirror_dir(ch - '0'));
      Game m = parse_record(pitch, c.v, mirrored);
      INFO(g.record());
      REQUIRE(m.position() == g.position().mirrored());
      REQUIRE(m.position().mirrored() == g.position());
      auto a = gen.count(g.position());
      auto b = gen.count(m.position());
      CHECK(a.distinct == b.distinct);
      CHECK(a.chains == b.chains);
    }
  }
}
