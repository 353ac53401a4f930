// Input planes, mover frame, mirror and policy targets against the engine.
#include <catch2/catch.hpp>

#include <random>

#include "engine/random_positions.h"
#include "engine/record.h"
#include "engine/turns.h"
#include "nn/encoder.h"

using namespace ps;
using namespace ps::nn;

namespace {

float plane_at(const std::vector<float>& planes, const Pitch& pitch, int plane, int x, int y) {
  return planes[size_t(plane) * pitch.num_points() + pitch.point(x, y)];
}

std::vector<float> encode(const Position& pos) {
  std::vector<float> v(planes_size(pos.pitch()), -1.0f);
  encode_position(pos, v.data());
  return v;
}

}  // namespace

TEST_CASE("start position planes on 8x10", "[nn]") {
  const Pitch& pitch = Pitch::standard();
  Position pos(pitch, Variant::kStandard);
  std::vector<float> v = encode(pos);
  REQUIRE(v.size() == size_t(kNumPlanes) * 13 * 9);
  // Every float is written, and is 0 or 1.
  for (float f : v) REQUIRE((f == 0.0f || f == 1.0f));
  // Ball on the centre point only.
  CHECK(plane_at(v, pitch, kPlaneBall, 4, 5) == 1.0f);
  float balls = 0;
  for (int q = 0; q < pitch.num_points(); ++q) balls += v[size_t(kPlaneBall) * pitch.num_points() + q];
  CHECK(balls == 1.0f);
  // Walls: the west side line at (0, 3) is drawn northwards and southwards, not eastwards.
  CHECK(plane_at(v, pitch, kPlaneDrawn0 + kN, 0, 3) == 1.0f);
  CHECK(plane_at(v, pitch, kPlaneDrawn0 + kS, 0, 3) == 1.0f);
  CHECK(plane_at(v, pitch, kPlaneDrawn0 + kE, 0, 3) == 0.0f);
  // The goal mouth's middle point (4, 0) is untouched; the post (3, 0) is touched.
  CHECK(plane_at(v, pitch, kPlaneTouched, 4, 0) == 0.0f);
  CHECK(plane_at(v, pitch, kPlaneTouched, 3, 0) == 1.0f);
  CHECK(plane_at(v, pitch, kPlaneTouched, 4, 5) == 0.0f);
  // Masks.
  CHECK(plane_at(v, pitch, kPlaneField, 0, 0) == 1.0f);
  CHECK(plane_at(v, pitch, kPlaneField, 4, -1) == 0.0f);
  CHECK(plane_at(v, pitch, kPlaneGoalAttacked, 4, -1) == 1.0f);
  CHECK(plane_at(v, pitch, kPlaneGoalAttacked, 4, 11) == 0.0f);
  CHECK(plane_at(v, pitch, kPlaneGoalDefended, 4, 11) == 1.0f);
  CHECK(plane_at(v, pitch, kPlaneGoalAttacked, 0, -1) == 0.0f);
  CHECK(plane_at(v, pitch, kPlaneOnes, 0, -1) == 1.0f);
  CHECK(plane_at(v, pitch, kPlaneVariant0 + 0, 2, 2) == 1.0f);
  CHECK(plane_at(v, pitch, kPlaneVariant0 + 1, 2, 2) == 0.0f);
  CHECK(plane_at(v, pitch, kPlanePending, 2, 2) == 0.0f);
  // Counts: 99 field points, 3 + 3 goal points, 13 * 9 grid points.
  auto sum = [&](int plane) {
    float s = 0;
    for (int q = 0; q < pitch.num_points(); ++q) s += v[size_t(plane) * pitch.num_points() + q];
    return s;
  };
  CHECK(sum(kPlaneField) == 99.0f);
  CHECK(sum(kPlaneGoalAttacked) == 3.0f);
  CHECK(sum(kPlaneGoalDefended) == 3.0f);
  CHECK(sum(kPlaneOnes) == 117.0f);
}

TEST_CASE("player 1 sees the board rotated 180 degrees", "[nn]") {
  const Pitch& pitch = Pitch::standard();
  // Player 0 kicks north-east from (4, 5) to (5, 4): untouched, so player 1 is to move.
  Game g = parse_record(pitch, Variant::kSingleBounce, "1");
  const Position& pos = g.position();
  REQUIRE(pos.side_to_move() == 1);
  std::vector<float> v = encode(pos);
  // Engine ball (5, 4) -> mover (3, 6).
  CHECK(plane_at(v, pitch, kPlaneBall, 3, 6) == 1.0f);
  // The drawn segment (4,5)-(5,4): engine NE from (4,5) is mover SW from (4,5); engine SW from
  // (5,4) is mover NE from (3,6).
  CHECK(plane_at(v, pitch, kPlaneDrawn0 + kSW, 4, 5) == 1.0f);
  CHECK(plane_at(v, pitch, kPlaneDrawn0 + kNE, 3, 6) == 1.0f);
  CHECK(plane_at(v, pitch, kPlaneDrawn0 + kNE, 4, 5) == 0.0f);
  // Player 1 attacks the engine's south goal, shown at the mover's north.
  CHECK(plane_at(v, pitch, kPlaneGoalAttacked, 4, -1) == 1.0f);
  CHECK(plane_at(v, pitch, kPlaneGoalDefended, 4, 11) == 1.0f);
  CHECK(plane_at(v, pitch, kPlaneVariant0 + int(Variant::kSingleBounce), 0, 0) == 1.0f);
  // Against the engine for every point and direction.
  for (int p = 0; p < pitch.num_points(); ++p)
    for (int d = 0; d < kNumDirs; ++d)
      REQUIRE(v[size_t(kPlaneDrawn0 + rotate_dir(d)) * pitch.num_points() + pitch.rotate_point(p)] ==
              (pos.is_drawn(p, d) ? 1.0f : 0.0f));
}

TEST_CASE("extra kick pending plane", "[nn]") {
  const Pitch& pitch = Pitch::standard();
  // A bounce off the west wall: kicks W from (4,5) four times reach (0,5) (touched) -> bounce.
  Game g = parse_kicks(pitch, Variant::kStandard, "6666");
  const Position& pos = g.position();
  REQUIRE(!pos.turn_start());
  REQUIRE(pos.side_to_move() == 1);
  std::vector<float> v = encode(pos);
  CHECK(plane_at(v, pitch, kPlanePending, 3, 3) == 1.0f);
  CHECK(plane_at(v, pitch, kPlaneBall, 8, 5) == 1.0f);  // engine (0, 5) rotated
}

TEST_CASE("mirror of planes equals the encoding of the mirrored position", "[nn]") {
  std::mt19937_64 rng(7);
  for (const Pitch* pitch : {&Pitch::get(8, 10, 2), &Pitch::get(8, 12, 2)}) {
    for (int i = 0; i < 6; ++i) {
      Position pos = random_position(*pitch, Variant(i % kNumVariants), 2 + i * 3, rng);
      std::vector<float> v = encode(pos), m(v.size()), back(v.size());
      mirror_planes(*pitch, v.data(), m.data());
      REQUIRE(m == encode(pos.mirrored()));
      mirror_planes(*pitch, m.data(), back.data());
      REQUIRE(back == v);
    }
  }
}

TEST_CASE("mirror of a record: planes and policy targets agree with the engine", "[nn]") {
  const Pitch& pitch = Pitch::standard();
  // Mirror a record digit by digit (mirror_dir) and replay it.
  const std::string record = "1 2 3";
  std::string mirrored;
  for (char c : record) mirrored += c == ' ' ? ' ' : char('0' + mirror_dir(c - '0'));
  Game a = parse_record(pitch, Variant::kStandard, record);
  Game b = parse_record(pitch, Variant::kStandard, mirrored);
  REQUIRE(b.position() == a.position().mirrored());
  std::vector<float> va = encode(a.position()), m(va.size());
  mirror_planes(pitch, va.data(), m.data());
  CHECK(m == encode(b.position()));

  // Policy targets: mirror(target(pos)) == target(mirrored pos with mirrored turns).
  TurnGenerator gen;
  std::vector<Turn> turns = gen.generate(a.position());
  REQUIRE(turns.size() >= 2);
  std::vector<WeightedTurn> wa, wb;
  for (size_t i = 0; i < turns.size(); ++i) {
    std::string mk;
    for (char c : turns[i].kicks) mk += char('0' + mirror_dir(c - '0'));
    wa.push_back({turns[i].kicks, float(i + 1)});
    wb.push_back({mk, float(i + 1)});
  }
  PolicyTarget ta = make_policy_target(a.position(), wa);
  PolicyTarget tb = make_policy_target(b.position(), wb);
  mirror_policy_target(pitch, ta);
  std::vector<float> da(policy_size(pitch)), db(policy_size(pitch)), dm(policy_size(pitch));
  dense_policy_target(pitch, ta, da.data());
  dense_policy_target(pitch, tb, db.data());
  for (size_t i = 0; i < da.size(); ++i) REQUIRE(da[i] == Approx(db[i]).margin(1e-6));
  // mirror_policy on the dense map is the same transform.
  dense_policy_target(pitch, make_policy_target(a.position(), wa), dm.data());
  std::vector<float> dmm(dm.size());
  mirror_policy(pitch, dm.data(), dmm.data());
  for (size_t i = 0; i < da.size(); ++i) REQUIRE(dmm[i] == Approx(db[i]).margin(1e-6));
}

TEST_CASE("policy frame conversion round-trips and follows the rotation", "[nn]") {
  const Pitch& pitch = Pitch::get(8, 12, 2);
  std::vector<float> mover(policy_size(pitch)), engine(policy_size(pitch)), back(policy_size(pitch));
  for (size_t i = 0; i < mover.size(); ++i) mover[i] = float(i);
  for (int side = 0; side < 2; ++side) {
    policy_to_engine(pitch, side, mover.data(), engine.data());
    policy_to_mover(pitch, side, engine.data(), back.data());
    REQUIRE(back == mover);
    const int p = pitch.point(1, 2);
    const int q = side ? pitch.point(7, 10) : p;
    const int d = kNE, md = side ? kSW : kNE;
    CHECK(engine[size_t(p) * 8 + d] == mover[size_t(md) * pitch.num_points() + q]);
  }
}

TEST_CASE("policy targets: per-kick rows of a chain and clear errors", "[nn]") {
  const Pitch& pitch = Pitch::standard();
  Position start(pitch, Variant::kStandard);
  // From the start every first kick lands on an untouched point: 8 one-kick turns.
  PolicyTarget t = make_policy_target(start, {{"0", 3.0f}, {"2", 1.0f}});
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].point == pitch.start_point());
  CHECK(t.rows[0].legal == 0xFF);
  CHECK(t.rows[0].target[kN] == Approx(0.75f));
  CHECK(t.rows[0].target[kE] == Approx(0.25f));

  // Player 1 at (1, 5) next to the west wall can bounce: the longest chain's rows follow it in
  // the mover frame, one row per kick, each holding the chain's weight.
  Game g = parse_kicks(pitch, Variant::kStandard, "666");
  TurnGenerator gen;
  std::vector<Turn> turns = gen.generate(g.position());
  const Turn* longest = &turns[0];
  for (const auto& tr : turns)
    if (tr.kicks.size() > longest->kicks.size()) longest = &tr;
  PolicyTarget t2 = make_policy_target(g.position(), {{longest->kicks, 1.0f}});
  REQUIRE(longest->kicks.size() >= 2);
  CHECK(t2.rows.size() == longest->kicks.size());
  for (const auto& r : t2.rows) {
    float s = 0;
    for (float x : r.target) s += x;
    CHECK(s == Approx(1.0f));
  }
  CHECK(t2.rows[0].point == pitch.rotate_point(g.position().ball()));

  CHECK_THROWS_WITH(make_policy_target(start, {{"9", 1.0f}}), Catch::Contains("bad character"));
  CHECK_THROWS_WITH(make_policy_target(start, {{"00", 1.0f}}), Catch::Contains("already ended"));
  CHECK_THROWS_WITH(make_policy_target(start, {{"0", -1.0f}}), Catch::Contains("weight"));
  CHECK_THROWS_WITH(make_policy_target(start, {{"0", 0.0f}}), Catch::Contains("sum to 0"));
  Game bounce = parse_kicks(pitch, Variant::kStandard, "666");
  CHECK_THROWS_WITH(make_policy_target(bounce.position(), {{"6", 1.0f}}),
                    Catch::Contains("not finished"));
}
