// Hand-checked rule cases from RULES.md ("Which kicks are legal", "Consequences worth a test").
#include <catch2/catch.hpp>

#include <tuple>

#include "engine/record.h"
#include "engine/turns.h"

using namespace ps;

namespace {
unsigned bit(int d) { return 1u << d; }
}  // namespace

TEST_CASE("standard pitch geometry: points, goals, posts and the examples of RULES.md") {
  const Pitch& p = Pitch::standard();
  int field = 0, goal = 0;
  for (int i = 0; i < p.num_points(); ++i) {
    field += p.is_field(i);
    goal += p.is_goal(i);
  }
  CHECK(field == 99);
  CHECK(goal == 6);
  Position pos(p, Variant::kStandard);
  CHECK(pos.ball() == p.point(4, 5));
  // Post (3,0): NE into the goal legal, N (goal side wall) illegal, W wall, E open goal line.
  const int post = p.point(3, 0);
  const unsigned post_free = p.allowed_dirs(post) & ~pos.drawn_mask(post);
  CHECK((post_free & bit(kNE)) != 0);
  CHECK((post_free & bit(kN)) == 0);
  CHECK((post_free & bit(kW)) == 0);
  CHECK((post_free & bit(kE)) != 0);
  // (4,0), the middle of the goal line: all three goal points.
  const int mid = p.point(4, 0);
  const unsigned mid_free = p.allowed_dirs(mid) & ~pos.drawn_mask(mid);
  CHECK((mid_free & (bit(kNW) | bit(kN) | bit(kNE))) == (bit(kNW) | bit(kN) | bit(kNE)));
  // (2,0): nothing northwards (the NE diagonal would cut around the post).
  const int out = p.point(2, 0);
  const unsigned out_free = p.allowed_dirs(out) & ~pos.drawn_mask(out);
  CHECK((out_free & (bit(kNW) | bit(kN) | bit(kNE))) == 0);
  // Touched from the start: the whole boundary including posts; not (4,0), (4,10), the centre.
  CHECK(pos.touched(p.point(0, 0)));
  CHECK(pos.touched(p.point(3, 0)));
  CHECK(pos.touched(p.point(8, 7)));
  CHECK_FALSE(pos.touched(p.point(4, 0)));
  CHECK_FALSE(pos.touched(p.point(4, 10)));
  CHECK_FALSE(pos.touched(p.point(4, 5)));
  // A corner has exactly one way out.
  CHECK((p.allowed_dirs(p.point(0, 0)) & ~pos.drawn_mask(p.point(0, 0))) == bit(kSE));
  // Goal owners: north goal won by player 0, south by player 1.
  CHECK(p.goal_winner(p.point(4, -1)) == 0);
  CHECK(p.goal_winner(p.point(4, 11)) == 1);
}

TEST_CASE("pitch parameters are validated with a clear message") {
  CHECK_THROWS_WITH(Pitch::get(7, 10, 2), Catch::Contains("width must be even"));
  // Regression: a width or length error named a goal (`--pitch 7x8 --goal 3` said "goal 2").
  CHECK_THROWS_WITH(Pitch::get(7, 8, 3), "pitch 7x8: width must be even and >= 4");
  CHECK_THROWS_WITH(Pitch::get(8, 10, 9), "pitch 8x10 goal 9: goal must be in 1..W-2");
  CHECK_THROWS_WITH(Pitch::get(20, 20, 4), "pitch 20x20: grid (W+1)*(L+3) exceeds 256 points");
  CHECK_THROWS_WITH(Pitch::get(8, 9, 2), Catch::Contains("length must be even"));
  CHECK_THROWS_WITH(Pitch::get(8, 10, 7), Catch::Contains("goal must be in 1..W-2"));
  CHECK_THROWS_WITH(Pitch::get(8, 10, 3), Catch::Contains("W - G must be even"));
  CHECK_THROWS_WITH(Pitch::get(20, 20, 2), Catch::Contains("exceeds"));
  CHECK_NOTHROW(Pitch::get(6, 8, 2));
  CHECK_NOTHROW(Pitch::get(8, 12, 2));
  CHECK_THROWS_WITH(parse_variant("double"), Catch::Contains("unknown variant 'double'"));
}

TEST_CASE("landing on an untouched point ends the turn, a touched point bounces") {
  Game g(Pitch::standard(), Variant::kStandard);
  g.kick(kN);  // (4,4): untouched
  CHECK(g.position().side_to_move() == 1);
  CHECK(g.position().turn_start());
  // Player 1 walks east to the side wall: (5,4), (6,4), (7,4) pass the turn, (8,4) bounces.
  g.kick(kE);
  g.kick(kE);
  g.kick(kE);
  CHECK(g.position().side_to_move() == 0);
  g.kick(kE);
  CHECK(g.position().side_to_move() == 0);
  CHECK_FALSE(g.position().turn_start());
}

TEST_CASE("the shortest bounce off one's own trail is a triangle of three kicks") {
  // Player 0: N to (4,4); player 1: E to (5,4); player 0: SW to (4,5), the start point, which
  // the first kick touched: it bounces and player 0 kicks again.
  Game g(Pitch::standard(), Variant::kStandard);
  g.play_turn("0");
  g.play_turn("2");
  g.kick(kSW);
  CHECK(g.position().ball() == Pitch::standard().point(4, 5));
  CHECK(g.position().side_to_move() == 0);
  CHECK(g.position().kicks_in_turn() == 1);
  // Kicking back along a drawn segment is never legal.
  CHECK_FALSE(g.position().is_legal(kNE));
}

TEST_CASE("standard: kicked into a dead end, the kicker loses") {
  // Down the diagonal into the south-east corner (8,10): it bounces and has no way out.
  Game g = parse_record(Pitch::standard(), Variant::kStandard, "3 4 3 3 3");
  CHECK(g.position().game_over());
  CHECK(g.position().reason() == Reason::kBlocked);
  CHECK(g.kicks().back().player == 0);
  CHECK(g.position().winner() == 1);
}

TEST_CASE("single-bounce: an extra kick into a dead end passes the turn and the opponent loses") {
  // Turn 5 is player 0's: "4" bounces, the extra kick "7" lands on a dead end and, never
  // bouncing, passes the turn to player 1, who cannot kick.
  Game g = parse_record(Pitch::standard(), Variant::kSingleBounce, "5 5 5 52");
  g.kick(4);
  CHECK(g.position().side_to_move() == 0);
  CHECK(g.position().kicks_in_turn() == 1);
  const int target = g.position().ball() + Pitch::standard().dir_offset(7);
  CHECK(g.position().touched(target));
  g.kick(7);
  CHECK(g.position().game_over());
  CHECK(g.position().reason() == Reason::kBlocked);
  CHECK(g.position().side_to_move() == 1);
  CHECK(g.position().winner() == 0);
}

TEST_CASE("single-bounce: a first kick into a dead end bounces, so the kicker loses") {
  Game g = parse_record(Pitch::standard(), Variant::kSingleBounce, "3 4 3 3 3");
  CHECK(g.position().reason() == Reason::kBlocked);
  CHECK(g.position().winner() == 1);  // player 0 kicked into the corner
}

TEST_CASE("no-bounce: every turn is one kick, a dead end blocks the opponent") {
  Game g = parse_record(Pitch::standard(), Variant::kNoBounce, "7 0 7 7 7");
  CHECK(g.position().reason() == Reason::kBlocked);
  CHECK(g.kicks().back().player == 0);
  CHECK(g.position().winner() == 0);
  Game c = parse_record(Pitch::standard(), Variant::kNoBounce, "3 4 3 3 3");
  CHECK(c.position().winner() == 0);  // the same corner kick blocks player 1 here
  TurnGenerator gen;
  for (auto& t : gen.generate(Position(Pitch::standard(), Variant::kNoBounce)))
    CHECK(t.kicks.size() == 1);
}

TEST_CASE("an own goal loses, whoever kicked it in") {
  Game g = parse_record(Pitch::standard(), Variant::kStandard, "4 5 5 3 43");
  CHECK(g.position().reason() == Reason::kGoal);
  CHECK(g.kicks().back().player == 0);
  CHECK(g.position().winner() == 1);  // into the south goal, which player 1 attacks
}

TEST_CASE("make and unmake restore the position exactly, hash included") {
  Position pos(Pitch::get(8, 12, 2), Variant::kSingleBounce);
  Position before = pos;
  auto u1 = pos.make_kick(kS);
  auto u2 = pos.make_kick(kSE);
  CHECK(pos.hash() == pos.compute_hash());
  pos.unmake_kick(u2);
  pos.unmake_kick(u1);
  CHECK(pos == before);
}

TEST_CASE("pitch spec: parse_pitch_spec is the exact inverse of Pitch::name()") {
  for (auto [w, l, g] : {std::tuple{8, 10, 2}, {8, 12, 2}, {6, 8, 2}, {10, 14, 4}, {8, 10, 4}, {12, 14, 2}}) {
    const Pitch& p = Pitch::get(w, l, g);
    const PitchChoice c = parse_pitch_spec(p.name());
    CHECK(&Pitch::get(c.width, c.length, c.goal) == &p);
  }
  CHECK(Pitch::get(10, 14, 4).name() == "10x14g4");
  CHECK(Pitch::get(8, 10, 2).name() == "8x10");
}

TEST_CASE("pitch spec: the forms the five old parsers accepted or refused") {
  // The old parsers: engine parse_pitch (configs, run directories, the report, serve), the
  // --pitch option (apps/commands.h), the tournament's pitch key, the PGN Pitch tag (no
  // end-of-input check) and a sscanf in the report. All read "WxL" and an upper-case X:
  const PitchChoice a = parse_pitch_spec("8x10");
  CHECK((a.width == 8 && a.length == 10 && a.goal == 2));
  const PitchChoice upper = parse_pitch_spec("8X12");
  CHECK((upper.width == 8 && upper.length == 12 && upper.goal == 2));
  // "WxLgG", which only parse_pitch read, is read everywhere now; "g2" is the default spelled.
  const PitchChoice g4 = parse_pitch_spec("10x14g4");
  CHECK((g4.width == 10 && g4.length == 14 && g4.goal == 4));
  CHECK(parse_pitch_spec("8x10g2").goal == 2);
  // The goal of a spec without one comes from the caller (a --goal option, a Goal tag).
  CHECK(parse_pitch_spec("10x14", 4).goal == 4);
  CHECK(parse_pitch_spec("10x14g4", 2).goal == 4);
  CHECK(pitch_spec_has_goal("10x14g4"));
  CHECK_FALSE(pitch_spec_has_goal("10x14"));
  // Refused by all: no length, no 'x', a bad goal part.
  for (const char* bad : {"", "8", "8x", "x10", "8y10", "8x10g", "8x10G4", "8x10gx", "axb", "8x10g4g"})
    CHECK_THROWS_WITH(parse_pitch_spec(bad),
                      Catch::StartsWith("bad pitch '") && Catch::Contains("expected WxL or WxLgG"));
  // Trailing text: the PGN tag and the report's sscanf read "8x10abc" as 8x10; refused now.
  CHECK_THROWS_WITH(parse_pitch_spec("8x10abc"), Catch::Contains("bad pitch '8x10abc'"));
  CHECK_THROWS_AS(parse_pitch_spec("8x10x12"), std::invalid_argument);
  // Spaces and signs: the stream parsers skipped spaces before each number and read "+8";
  // the one parser reads exactly what Pitch::name() writes.
  for (const char* bad : {" 8x10", "8x10 ", "8 x 10", "8x 10", "+8x10", "8x+10", "-8x10", "8x10 g4"})
    CHECK_THROWS_AS(parse_pitch_spec(bad), std::invalid_argument);
  // Numbers too long for an int are bad text, not a wrapped product.
  CHECK_THROWS_WITH(parse_pitch_spec("6x1201200120"), Catch::Contains("bad pitch"));
  CHECK_THROWS_WITH(parse_pitch_spec("6x120120012"), Catch::Contains("exceeds"));
  // Impossible pitches give Pitch::get's error.
  CHECK_THROWS_WITH(parse_pitch_spec("9x10"), Catch::Contains("width must be even"));
  CHECK_THROWS_WITH(parse_pitch_spec("8x10g3"), Catch::Contains("W - G must be even"));
}
