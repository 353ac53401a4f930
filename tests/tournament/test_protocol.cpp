// The CodinGame protocol: the referee (ExternalEnginePlayer + play_game) against a scripted
// fake engine that misbehaves in each way, and against ProtocolBot run as a subprocess; and
// ProtocolBot on its own.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "tests/tournament/test_players.h"
#include "tournament/external_engine.h"
#include "tournament/protocol.h"
#include "tournament/tournament.h"

using namespace ps;
using namespace ps::tour;

namespace {

// Children of this process that are zombies (exited, not reaped).
int zombie_children() {
  int count = 0;
  DIR* d = opendir("/proc");
  if (!d) return 0;
  const std::string me = std::to_string(getpid());
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream f(std::string("/proc/") + e->d_name + "/stat");
    std::string stat;
    std::getline(f, stat);
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string state, ppid;
    rest >> state >> ppid;
    if (ppid == me && state == "Z") ++count;
  }
  closedir(d);
  return count;
}

ExternalEngineOptions fake(const std::string& mode, int64_t first_ms = 1500, int64_t turn_ms = 1000) {
  ExternalEngineOptions o;
  o.command = {PS_FAKE_ENGINE, "--mode", mode};
  o.name = "fake-" + mode;
  o.first_turn_ms = first_ms;
  o.turn_ms = turn_ms;
  return o;
}

// The fake engine plays seat 1 after the opening 2 2 2: the ball is on (7,5) beside the east
// wall, so a bounce (for "incomplete") and a drawn segment (for "illegal") are at hand.
GameResult referee_fake(const ExternalEngineOptions& o) {
  ExternalEnginePlayer engine(o);
  test::FirstTurnPlayer first;
  return play_game(first, engine, Pitch::standard(), Variant::kStandard, {"2", "2", "2"}, {}, {});
}

}  // namespace

TEST_CASE("protocol input lines", "[protocol]") {
  CHECK(protocol_turn_input("") == "1\n-\n");
  CHECK(protocol_turn_input("435") == "3\n435\n");
}

TEST_CASE("referee scores each kind of bad answer as a loss with its reason", "[protocol]") {
  struct Case {
    std::string mode, termination, words;
  };
  const Case cases[] = {
      {"illegal", "illegal turn", "answered '6'"},
      {"incomplete", "incomplete turn", "turn not finished"},
      {"garbage", "garbage output", "hello world"},
      {"crash", "engine crash", "signal 6"},
      {"exit", "engine crash", "exit status 3"},
      {"partial", "engine crash", "partial line '0'"},
  };
  for (const Case& c : cases) {
    SECTION(c.mode) {
      GameResult r = referee_fake(fake(c.mode));
      CHECK(r.winner_seat == 0);
      CHECK(r.termination == c.termination);
      CHECK_THAT(r.detail, Catch::Contains(c.words));
      CHECK(r.record == "2 2 2");  // the bad answer is not part of the record
      CHECK_THAT(r.pgn, Catch::Contains("[Result \"1-0\"]"));
      CHECK_THAT(r.pgn, Catch::Contains("[Termination \"" + c.termination));
      CHECK(zombie_children() == 0);
    }
  }
}

TEST_CASE("referee enforces the time limit and kills an engine that hangs", "[protocol]") {
  SECTION("late answer") {
    auto o = fake("late", 300, 300);
    const auto t0 = std::chrono::steady_clock::now();
    GameResult r = referee_fake(o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(r.termination == "time forfeit");
    CHECK_THAT(r.detail, Catch::Contains("300 ms"));
    CHECK(r.winner_seat == 0);
    CHECK(s < 2.5);  // did not wait for the 3 s sleep
  }
  SECTION("late on a later answer: the 200 ms-style limit applies after the first") {
    auto o = fake("late", 1500, 300);
    o.command.insert(o.command.end(), {"--at", "2"});
    GameResult r = referee_fake(o);
    CHECK(r.termination == "time forfeit");
    CHECK(r.turns >= 5);  // the first answer went through
  }
  SECTION("an engine that never answers and ignores EOF") {
    GameResult r = referee_fake(fake("hang", 200, 200));
    CHECK(r.termination == "time forfeit");
  }
  CHECK(zombie_children() == 0);
}

TEST_CASE("a missing executable is a clear error, not a crash", "[protocol]") {
  ExternalEngineOptions o;
  o.command = {"/nonexistent/engine-binary"};
  CHECK_THROWS_WITH(ExternalEnginePlayer(o), Catch::Contains("/nonexistent/engine-binary"));
  o.command = {"no-such-engine-in-path-xyz"};
  CHECK_THROWS_WITH(ExternalEnginePlayer(o), Catch::Contains("not found in PATH"));
}

TEST_CASE("the fake engine in ok mode finishes games by the rules", "[protocol]") {
  GameResult r = referee_fake(fake("ok"));
  CHECK((r.termination == "goal" || r.termination == "blocked"));
  CHECK(r.detail.empty());
  CHECK(zombie_children() == 0);
}

TEST_CASE("ProtocolBot as a subprocess plays full games against the referee", "[protocol]") {
  for (int bot_seat = 0; bot_seat < 2; ++bot_seat) {
    ExternalEngineOptions o;
    o.command = {PS_TEST_BOT, "random", "--seed", std::to_string(7 + bot_seat), "--turn-ms", "500"};
    o.first_turn_ms = 3000;
    o.turn_ms = 1500;
    ExternalEnginePlayer bot(o);
    test::RandomTurnPlayer random(42);
    GameResult r = bot_seat == 0
        ? play_game(bot, random, Pitch::standard(), Variant::kStandard, {}, {}, {})
        : play_game(random, bot, Pitch::standard(), Variant::kStandard, {}, {}, {});
    INFO("bot seat " << bot_seat << ": " << r.termination << " " << r.detail << " " << r.record);
    CHECK((r.termination == "goal" || r.termination == "blocked"));
    // The record replays to the same result.
    Game replay = parse_record(Pitch::standard(), Variant::kStandard, r.record);
    CHECK(replay.position().winner() == r.winner_seat);
  }
  CHECK(zombie_children() == 0);
}

TEST_CASE("ProtocolBot accepts an opening sent as one catch-up line", "[protocol]") {
  ExternalEngineOptions o;
  o.command = {PS_TEST_BOT, "first"};
  o.first_turn_ms = 3000;
  o.turn_ms = 1500;
  o.opening_history = true;
  ExternalEnginePlayer bot(o);
  test::FirstTurnPlayer first;
  // Bot is seat 0; the opening holds its own turns too (2 and 2) and seat 1's (2 and 27).
  GameResult r = play_game(bot, first, Pitch::standard(), Variant::kStandard, {"2", "2", "2", "27"}, {}, {});
  INFO(r.termination << " " << r.detail);
  CHECK((r.termination == "goal" || r.termination == "blocked"));
  CHECK(r.record.rfind("2 2 2 27 ", 0) == 0);
}

TEST_CASE("ProtocolBot answers legal turns and reports bad input", "[protocol]") {
  test::FirstTurnPlayer first;
  SECTION("first turn of player 0") {
    ProtocolBot bot(first);
    std::istringstream in("0\n1\n-\n");
    std::ostringstream out;
    bot.run(in, out);
    CHECK(out.str() == "0\n");  // the first distinct turn from the centre: kick north
    CHECK(bot.fallback_turns() == 0);
  }
  SECTION("player 1 answers after the opponent's turn") {
    ProtocolBot bot(first);
    std::istringstream in("1\n1\n4\n");
    std::ostringstream out;
    bot.run(in, out);
    Game g(Pitch::standard(), Variant::kStandard);
    g.play_turn("4");
    REQUIRE(!out.str().empty());
    CHECK_NOTHROW(g.play_turn(out.str().substr(0, out.str().size() - 1)));
  }
  SECTION("after the first answer, a line holding a kick of ours is refused") {
    ProtocolBot bot(first);
    // We (seat 0) answer 0; the opponent's line then holds its turn 2 and a kick 2 of ours.
    std::istringstream in("0\n1\n-\n2\n22\n");
    std::ostringstream out;
    CHECK_THROWS_WITH(bot.run(in, out),
                      Catch::Contains("protocol line 5: opponent turn '22' is not legal here") &&
                          Catch::Contains("kick 2 would be ours"));
    CHECK(out.str() == "0\n");
  }
  SECTION("bad id") {
    ProtocolBot bot(first);
    std::istringstream in("2\n");
    std::ostringstream out;
    CHECK_THROWS_AS(bot.run(in, out), ProtocolError);
  }
  SECTION("illegal opponent turn") {
    ProtocolBot bot(first);
    std::istringstream in("1\n2\n40\n");  // kicks back along the drawn segment
    std::ostringstream out;
    CHECK_THROWS_WITH(bot.run(in, out), Catch::Contains("protocol line 3"));
  }
  SECTION("a bad length line right before the end of input is reported, not ignored") {
    // Regression: `printf '0\nfoo bar\n' | papersoccer bot MODEL` exited 0 without a word.
    ProtocolBot bot(first);
    std::istringstream in("0\nfoo bar\n");
    std::ostringstream out;
    CHECK_THROWS_WITH(bot.run(in, out),
                      "protocol line 2: expected the length of the opponent's turn, got 'foo bar'");
  }
  SECTION("an empty turn line is an error, not a pass") {
    // Regression (fuzz_protocol, a slow unit): an empty opponent turn was taken as no kicks, so
    // the bot answered twice in a row, and the game went on from there. The exact input:
    ProtocolBot bot(first);
    std::istringstream in(std::string("0\n126\n\n2\n6544114\n44\n6541414\n44\x01\x9a" "3\x01\x9a" "3;", 37));
    std::ostringstream out;
    CHECK_THROWS_WITH(bot.run(in, out),
                      "protocol line 3: expected the opponent's turn (digits 0-7, or '-'), got an "
                      "empty line");
    CHECK(out.str().empty());
  }
  SECTION("a line without an end is refused at the bound, not read into memory") {
    // Regression: a 300 MB turn line took the bot to 818 MB of RSS before
    // the error. Now it stops at kMaxProtocolLine characters, naming the line.
    ProtocolBot bot(first);
    std::istringstream in("1\n3\n" + std::string(kMaxProtocolLine + 10, '4'));
    std::ostringstream out;
    CHECK_THROWS_WITH(bot.run(in, out), "protocol line 3: longer than 1048576 characters, starting '" +
                                            std::string(40, '4') + "...'");
    std::istringstream id(std::string(kMaxProtocolLine + 1, '0'));
    CHECK_THROWS_WITH(bot.run(id, out), Catch::StartsWith("protocol line 1: longer than"));
    CHECK(out.str().empty());
  }
  SECTION("the last line may lack its newline, as with std::getline") {
    ProtocolBot bot(first);
    std::istringstream in("0\n1\n-");
    std::ostringstream out;
    bot.run(in, out);
    CHECK(out.str() == "0\n");
    std::string line;
    std::istringstream two("ab\ncd");
    CHECK(read_protocol_line(two, line, 1));
    CHECK(line == "ab");
    CHECK(read_protocol_line(two, line, 2));
    CHECK(line == "cd");
    CHECK_FALSE(read_protocol_line(two, line, 3));
  }
  SECTION("'-' is only for player 0's first turn") {
    ProtocolBot bot(first);
    std::istringstream in("1\n1\n-\n");
    std::ostringstream out;
    CHECK_THROWS_AS(bot.run(in, out), ProtocolError);
  }
}

TEST_CASE("ProtocolBot enforces its own time budget with a fallback turn", "[protocol]") {
  test::SlowPlayer slow(600);
  ProtocolBotOptions o;
  o.first_turn_ms = 200;
  o.turn_ms = 200;
  o.safety_ms = 50;
  ProtocolBot bot(slow, o);
  std::istringstream in("0\n1\n-\n");
  std::ostringstream out;
  const auto t0 = std::chrono::steady_clock::now();
  // run() returns at EOF, after the answer; measure the time to that point.
  bot.run(in, out);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - t0).count();
  CHECK(ms < 400);
  CHECK(bot.fallback_turns() == 1);
  Game g(Pitch::standard(), Variant::kStandard);
  REQUIRE(out.str().size() >= 2);
  CHECK_NOTHROW(g.play_turn(out.str().substr(0, out.str().size() - 1)));
}

namespace {

// Milliseconds until a ProtocolBot, as player 0 with an always-too-slow player, answers its
// first turn (so the answer is the fallback at the bot's own deadline).
int64_t first_answer_ms(const ProtocolBotOptions& o) {
  test::SlowPlayer slow(2000);
  ProtocolBot bot(slow, o);
  std::istringstream in("0\n1\n-\n");
  std::ostringstream out;
  const auto t0 = std::chrono::steady_clock::now();
  bot.run(in, out);  // returns at EOF, after the answer
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - t0).count();
  CHECK(bot.fallback_turns() == 1);
  return ms;
}

}  // namespace

TEST_CASE("ProtocolBot counts the first limit from the referee's clock start when given",
          "[protocol]") {
  // Regression: `bot` with the default 1000 ms first limit lost every game on time, because the
  // referee's clock started when it launched the engine and LibTorch + the model took ~0.5 s
  // before the bot read its first line; the bot then still thought for 960 ms.
  ProtocolBotOptions o;
  o.first_turn_ms = 1000;
  o.turn_ms = 200;
  o.safety_ms = 50;
  o.first_turn_clock_start = std::chrono::steady_clock::now() - std::chrono::milliseconds(700);
  // 1000 - 700 = 300 ms left of the first limit, less the 50 ms safety: answered after ~250 ms
  // (before the fix: after ~950 ms).
  const int64_t ms = first_answer_ms(o);
  CHECK(ms >= 200);
  CHECK(ms < 600);
}

TEST_CASE("ProtocolBot's first limit never drops below a later turn's", "[protocol]") {
  ProtocolBotOptions o;
  o.first_turn_ms = 1000;
  o.turn_ms = 300;
  o.safety_ms = 50;
  // Started long ago (player 1 waits for player 0's first answer): still a full turn_ms.
  o.first_turn_clock_start = std::chrono::steady_clock::now() - std::chrono::milliseconds(5000);
  const int64_t ms = first_answer_ms(o);
  CHECK(ms >= 200);  // 300 - 50
  CHECK(ms < 700);
}
