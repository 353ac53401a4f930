// Record notation, flat kick lists and PGN-like files: round trips and every error class with
// its exact message content.
#include <catch2/catch.hpp>

#include <sstream>

#include "engine/record.h"
#include "engine/tsv.h"
#include "engine/render.h"

using namespace ps;

namespace {
const Pitch& std8x10() { return Pitch::standard(); }
}  // namespace

TEST_CASE("record round trip") {
  const std::string rec = "0 3 66 5 3 4 1 66 06 1 3 536 10607 53344 47 212 00 7413 63 05253 45";
  Game g = parse_record(std8x10(), Variant::kStandard, rec);
  CHECK(g.record() == rec);
  CHECK(g.num_complete_turns() == 21);
  // Runs of blanks and tabs between turns are tolerated.
  Game h = parse_record(std8x10(), Variant::kStandard, "  0 \t3   66 ");
  CHECK(h.record() == "0 3 66");
}

TEST_CASE("bad character: names turn, kick and the character") {
  CHECK_THROWS_WITH(parse_record(std8x10(), Variant::kStandard, "4 2x"),
                    "turn 2 ('2x'), kick 2: bad character 'x' (expected a direction digit 0-7)");
  CHECK_THROWS_WITH(parse_record(std8x10(), Variant::kStandard, "8"),
                    Catch::StartsWith("turn 1 ('8'), kick 1: bad character '8'"));
  try {
    parse_record(std8x10(), Variant::kStandard, "4 2x");
    FAIL("no error");
  } catch (const RecordError& e) {
    CHECK(e.turn() == 2);
    CHECK(e.kick() == 2);
  }
}

TEST_CASE("illegal segment: already drawn, wall, or off the pitch") {
  CHECK_THROWS_WITH(parse_record(std8x10(), Variant::kStandard, "4 0"),
                    "turn 2 ('0'), kick 1: illegal kick 0 (N) from (4,6) to (4,5): segment "
                    "already drawn");
  // Player 1 walks to the east wall and bounces; kicking along the wall is illegal.
  CHECK_THROWS_WITH(parse_record(std8x10(), Variant::kStandard, "0 2 2 2 24"),
                    "turn 5 ('24'), kick 2: illegal kick 4 (S) from (8,4) to (8,5): segment "
                    "already drawn (wall)");
  CHECK_THROWS_WITH(parse_record(std8x10(), Variant::kStandard, "0 2 2 2 22"),
                    Catch::Contains("illegal kick 2 (E) from (8,4): (9,4) is off the pitch"));
}

TEST_CASE("turn ended early") {
  CHECK_THROWS_WITH(parse_record(std8x10(), Variant::kStandard, "44"),
                    "turn 1 ('44'), kick 2: turn ended early: after kick 1 the ball rests on "
                    "(4,6) and the turn passed to player 1");
}

TEST_CASE("turn not finished") {
  CHECK_THROWS_WITH(parse_record(std8x10(), Variant::kStandard, "2 2 2 2"),
                    "turn 4 ('2'): turn not finished: after kick 1 the ball bounced on (8,5) and "
                    "player 1 must kick again");
}

TEST_CASE("kick after the end, between turns and inside a turn") {
  // "4 4 3 4 45" ends with a goal on its 6th kick (games.tsv).
  CHECK_THROWS_WITH(parse_record(std8x10(), Variant::kStandard, "4 4 3 4 45 1"),
                    "turn 6 ('1'), kick 1: kick after the end: the game already ended (player 1 "
                    "won by goal)");
  CHECK_THROWS_WITH(parse_record(std8x10(), Variant::kStandard, "4 4 3 4 451"),
                    Catch::StartsWith("turn 5 ('451'), kick 3: kick after the end"));
}

TEST_CASE("flat kick lists are split into turns by the rules") {
  const char* kicks =
      "13064113570225017036575014630745741422243523574227742164435274617703502106741745431672745757"
      "134661453130361";
  Game g = parse_kicks(std8x10(), Variant::kStandard, kicks);
  CHECK(g.position().num_kicks() == 107);
  CHECK(g.num_complete_turns() == 43);
  Game again = parse_record(std8x10(), Variant::kStandard, g.record());
  CHECK(again.position() == g.position());
  CHECK_THROWS_WITH(parse_kicks(std8x10(), Variant::kStandard, "40"),
                    "turn 2, kick 1 (character 2): illegal kick 0 (N) from (4,6) to (4,5): "
                    "segment already drawn");
  // The last turn may be unfinished in a flat list.
  Game partial = parse_kicks(std8x10(), Variant::kStandard, "2222");
  CHECK(partial.position().kicks_in_turn() == 1);
  CHECK(partial.num_complete_turns() == 3);
}

TEST_CASE("undo of kicks and turns") {
  Game g = parse_record(std8x10(), Variant::kStandard, "0 2 2 2");
  g.kick(2);  // bounce at the wall, turn unfinished
  CHECK(g.record() == "0 2 2 2 2");
  g.undo_turn();
  CHECK(g.record() == "0 2 2 2");
  g.undo_turn();
  CHECK(g.record() == "0 2 2");
  g.undo_kick();
  g.undo_kick();
  g.undo_kick();
  CHECK(g.position() == g.start());
  g.undo_kick();  // at the start: no-op
  CHECK(g.kicks().empty());
}

TEST_CASE("PGN-like files: tags, numbered turn pairs, comments, results") {
  std::istringstream in(
      "[Event \"club\"]\n"
      "[Result \"0-1\"]\n"
      "\n"
      "1. 0 3 2. 66 5 {a comment}\n"
      "3. 3 4 4. 1 66 5. 06 1 6. 3 536 7. 10607 53344 8. 47 212 9. 00 7413 10. 63 05253\n"
      "11. 45 0-1\n"
      "\n"
      "[Pitch \"8x12\"]\n"
      "[Variant \"no-bounce\"]\n"
      "1. 4 4 2. 4 *\n");
  auto games = read_pgn(in, "t.pgn", std8x10(), Variant::kStandard);
  REQUIRE(games.size() == 2);
  CHECK(games[0].tags.at("Event") == "club");
  CHECK(games[0].game.position().winner() == 1);
  CHECK(games[0].game.position().num_kicks() == 47);
  CHECK(games[1].game.start().pitch().length() == 12);
  CHECK(games[1].game.start().variant() == Variant::kNoBounce);
  CHECK(games[1].game.record() == "4 4 4");
  CHECK(games[1].line == 8);
  // Write and read back.
  std::istringstream back(write_pgn(games[0].game, {{"Event", "club"}}));
  auto again = read_pgn(back, "back.pgn", std8x10(), Variant::kStandard);
  REQUIRE(again.size() == 1);
  CHECK(again[0].game.position() == games[0].game.position());
  CHECK(again[0].tags.at("Result") == "0-1");
}

TEST_CASE("PGN errors name the file and line") {
  std::istringstream wrong("[Result \"1-0\"]\n1. 4 4 2. 3 4 3. 45\n");
  CHECK_THROWS_WITH(read_pgn(wrong, "w.pgn", std8x10(), Variant::kStandard),
                    Catch::StartsWith("w.pgn:1: Result \"1-0\" disagrees with the record"));
  std::istringstream bad("[Event \"x\"]\n\n1. 4 4\n2. 4x 3\n");
  CHECK_THROWS_WITH(read_pgn(bad, "b.pgn", std8x10(), Variant::kStandard),
                    "b.pgn:4: turn 3 ('4x'), kick 2: bad character 'x' (expected a direction "
                    "digit 0-7)");
  std::istringstream tag("[Event\n");
  CHECK_THROWS_WITH(read_pgn(tag, "t.pgn", std8x10(), Variant::kStandard),
                    Catch::StartsWith("t.pgn:1: malformed tag line"));
  std::istringstream pitch("[Pitch \"9x10\"]\n1. 4\n");
  CHECK_THROWS_WITH(read_pgn(pitch, "p.pgn", std8x10(), Variant::kStandard),
                    Catch::Contains("width must be even"));
  // Regression: a non-numeric Goal tag gave the bare message "stoi".
  std::istringstream goal("[Goal \"x\"]\n1. 4\n");
  CHECK_THROWS_WITH(read_pgn(goal, "g.pgn", std8x10(), Variant::kStandard),
                    Catch::StartsWith("g.pgn:1: bad Goal tag 'x'"));
  std::istringstream goal2("[Goal \"2x\"]\n1. 4\n");
  CHECK_THROWS_WITH(read_pgn(goal2, "g.pgn", std8x10(), Variant::kStandard),
                    Catch::Contains("bad Goal tag"));
  // The Pitch tag is read to its end (it had no end-of-input check: "8x12junk" read as 8x12).
  std::istringstream junk("[Pitch \"8x12junk\"]\n1. 4\n");
  CHECK_THROWS_WITH(read_pgn(junk, "j.pgn", std8x10(), Variant::kStandard),
                    Catch::StartsWith("j.pgn:1: bad Pitch tag: bad pitch '8x12junk'"));
  // A Pitch tag may name its goal (Pitch::name()'s form); a Goal tag beside it must agree.
  std::istringstream named("[Pitch \"10x14g4\"]\n1. 4\n");
  CHECK(read_pgn(named, "n.pgn", std8x10(), Variant::kStandard)[0].game.start().pitch().goal() == 4);
  std::istringstream both("[Pitch \"10x14\"]\n[Goal \"4\"]\n1. 4\n");
  CHECK(read_pgn(both, "b.pgn", std8x10(), Variant::kStandard)[0].game.start().pitch().goal() == 4);
  std::istringstream clash("[Pitch \"10x14g4\"]\n[Goal \"2\"]\n1. 4\n");
  CHECK_THROWS_WITH(read_pgn(clash, "c.pgn", std8x10(), Variant::kStandard),
                    Catch::Contains("name different goals"));
}

TEST_CASE("PGN: move numbers are checked and a tag may appear once per game") {
  // Regressions: "1. 4 4 5. 4" was read without a word, and of two [Pitch] tags the second won.
  std::istringstream skipped("[Event \"x\"]\n1. 4 4\n5. 4\n");
  CHECK_THROWS_WITH(read_pgn(skipped, "m.pgn", std8x10(), Variant::kStandard),
                    "m.pgn:3: move number '5' where 2 was expected (turn 3)");
  std::istringstream repeated("1. 4 4 1. 4\n");
  CHECK_THROWS_WITH(read_pgn(repeated, "m.pgn", std8x10(), Variant::kStandard),
                    Catch::StartsWith("m.pgn:1: move number '1' where 2 was expected"));
  std::istringstream black("1. 4 1... 4 2. 4\n");  // "N..." before player 1's turn N
  CHECK(read_pgn(black, "m.pgn", std8x10(), Variant::kStandard)[0].game.record() == "4 4 4");
  std::istringstream two("[Pitch \"8x10\"]\n[Pitch \"8x12\"]\n1. 4\n");
  CHECK_THROWS_WITH(read_pgn(two, "p.pgn", std8x10(), Variant::kStandard),
                    "p.pgn:2: a second 'Pitch' tag in one game");
}

TEST_CASE("TSV: only the exact header is a header, an out-of-range number says so") {
  CHECK(is_tsv_header("W\tL\tG\tvariant\trecord\twinner\treason\tkicks"));
  CHECK(is_tsv_header("W\tL\tG\tvariant\trecord\r"));
  CHECK(is_tsv_header("W\tL\tG\tvariant"));
  // Regression: any line starting with W<TAB> was skipped as a header.
  CHECK_FALSE(is_tsv_header("W\t10\t2\tstandard\t0 3"));
  CHECK_FALSE(is_tsv_header("W\tL\tG\tvariant\t0 3"));
  // Regression: "not an integer" for a number too large for an int.
  CHECK_THROWS_WITH(parse_tsv_row("99999999999\t10\t2\tstandard\t0"),
                    "column W: '99999999999' is out of range (an int is at most 2147483647)");
  CHECK_THROWS_WITH(parse_tsv_row("8\tx\t2\tstandard\t0"), "column L: 'x' is not an integer");
}

TEST_CASE("PGN: a Pitch tag too large for an int product is an error naming the line") {
  // Regression (fuzz_pgn): (W+1)*(L+3) overflowed int in Pitch::get for L = 1201200120, wrapped
  // negative and passed the size check. The exact input the fuzzer found:
  const std::string input("\n\n[Pitch \"6x1201200120Ev\xf8" "ce[Ev\xf8\"]\n\x83#n\n\x83#nt", 42);
  std::istringstream in(input);
  // The tag has text after the length: refused as a bad tag since the tag is read by
  // parse_pitch_spec (it was read as 6x1201200120 before).
  CHECK_THROWS_WITH(read_pgn(in, "f.pgn", std8x10(), Variant::kStandard),
                    Catch::StartsWith("f.pgn:3: bad Pitch tag: bad pitch '6x1201200120"));
  std::istringstream large("\n\n[Pitch \"6x120120012\"]\n1. 4\n");
  CHECK_THROWS_WITH(read_pgn(large, "f.pgn", std8x10(), Variant::kStandard),
                    Catch::StartsWith("f.pgn:3: ") && Catch::Contains("exceeds 256 points"));
  CHECK_THROWS_AS(Pitch::get(6, 2147483647, 2), std::invalid_argument);
  CHECK_THROWS_AS(Pitch::get(2147483646, 8, 2), std::invalid_argument);
}

TEST_CASE("rendering: ASCII board and SVG picture") {
  Game g = parse_record(std8x10(), Variant::kStandard, "0 3 66");
  std::string a = render_ascii(g.position());
  CHECK(a.find('@') != std::string::npos);
  CHECK(a.find("player 1 to kick") != std::string::npos);
  std::string svg = render_svg(g);
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(svg.find("#e0457b") != std::string::npos);  // player 0's segments
  CHECK(svg.find("#2f6fd0") != std::string::npos);  // player 1's segments
}

TEST_CASE("an error about a huge turn quotes only its start") {
  // Regression: a 5 MB turn fed to `turns` produced a 5 MB error line.
  const std::string huge = "0 " + std::string(100000, '4');
  try {
    parse_record(std8x10(), Variant::kStandard, huge);
    FAIL("no error");
  } catch (const RecordError& e) {
    const std::string what = e.what();
    CHECK(what.size() < 300);
    CHECK(what.find("turn 2 ('444444") != std::string::npos);
    CHECK(what.find("...'") != std::string::npos);
  }
}
