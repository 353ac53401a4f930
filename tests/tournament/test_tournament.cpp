#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/fileutil.h"
#include "tests/tournament/test_players.h"
#include "tournament/openings.h"
#include "tournament/results.h"
#include "tournament/tournament.h"
#include "tournament/tournament_config.h"

using namespace ps;
using namespace ps::tour;

namespace {

std::string temp_dir(const std::string& tag) {
  std::string d = "/tmp/ps_tour_test_" + tag + "_" + std::to_string(getpid());
  return d;
}

PlayerSpec reg(const std::string& name, const std::string& type) {
  PlayerSpec p;
  p.name = name;
  p.type = type;
  return p;
}

}  // namespace

TEST_CASE("openings are seeded, distinct, unfinished and not immediately decided", "[openings]") {
  OpeningOptions o;
  o.count = 6;
  o.turns = 3;
  o.seed = 11;
  auto a = generate_openings(Pitch::standard(), Variant::kStandard, o);
  auto b = generate_openings(Pitch::standard(), Variant::kStandard, o);
  REQUIRE(a.size() == 6);
  CHECK(a == b);
  o.seed = 12;
  CHECK(generate_openings(Pitch::standard(), Variant::kStandard, o) != a);
  std::set<uint64_t> ends;
  TurnGenerator gen;
  for (const auto& op : a) {
    CHECK(op.size() == 3);
    Game g = parse_record(Pitch::standard(), Variant::kStandard, opening_record(op));
    CHECK_FALSE(g.position().game_over());
    CHECK_FALSE(gen.find_winning_turn(g.position()));
    ends.insert(g.position().hash());
  }
  CHECK(ends.size() == a.size());
  o.turns = 0;
  CHECK(generate_openings(Pitch::standard(), Variant::kStandard, o).size() == 1);
  o.turns = 2;
  o.balance_rollouts = 16;
  o.count = 2;
  CHECK(generate_openings(Pitch::standard(), Variant::kStandard, o).size() == 2);
}

TEST_CASE("round robin: schedule, colours, cross-table, ratings and files", "[tournament]") {
  test::register_test_players();
  TournamentSpec spec;
  spec.name = "rr-test";
  spec.games_per_pairing = 4;
  spec.openings = 2;
  spec.opening_turns = 2;
  spec.seed = 5;
  spec.concurrency = 3;
  spec.out_dir = temp_dir("rr");
  std::vector<PlayerSpec> players{reg("first", "test-first"), reg("rand-a", "test-random"),
                                  reg("rand-b", "test-random")};
  PlayerSpec coded;
  coded.name = "coded";
  coded.make = [](const PlayerContext& c) { return std::make_unique<test::RandomTurnPlayer>(c.seed, c.name); };
  players.push_back(coded);
  std::atomic<int> calls{0};
  int last_done = 0;
  TournamentResult r = run_tournament(spec, players, [&](const GameResult&, int done, int total) {
    ++calls;
    CHECK(total == 24);
    CHECK(done == last_done + 1);  // calls are serialised
    last_done = done;
  });
  CHECK(calls == 24);
  REQUIRE(r.games.size() == 24);  // 6 pairings x 4 games
  CHECK_FALSE(r.cancelled);
  for (int i = 0; i < 4; ++i) {
    CHECK(r.cross.total_games(i) == 12);
    for (int j = 0; j < 4; ++j)
      if (i != j) CHECK(r.cross.games(i, j) == 4);
  }
  int wins = 0;
  for (int i = 0; i < 4; ++i) wins += r.cross.total_wins(i);
  CHECK(wins == 24);
  // Each opening is played with both colours by each pairing.
  std::map<std::tuple<int, int, int>, int> seen;  // (seat0, seat1, opening)
  for (const GameResult& g : r.games) {
    CHECK((g.termination == "goal" || g.termination == "blocked"));
    CHECK(g.opening >= 0);
    seen[{g.seat[0], g.seat[1], g.opening}]++;
    Game replay = parse_record(Pitch::standard(), Variant::kStandard, g.record);
    CHECK(replay.position().winner() == g.winner_seat);
    CHECK(g.seat[g.winner_seat] == g.winner);
  }
  for (auto& [k, v] : seen) {
    auto [a, b, o] = k;
    CHECK(seen.count({b, a, o}) == 1);
  }
  // No "random" type here: the anchor is the first player.
  CHECK(r.ratings.anchor == 0);
  CHECK(r.ratings.players[0].elo == Approx(0.0).margin(1e-9));
  const std::string table = format_results(r);
  CHECK_THAT(table, Catch::Contains("Cross-table"));
  CHECK_THAT(table, Catch::Contains("rand-b"));
  CHECK_THAT(table, Catch::Contains("24/24 games, 2 openings"));

  // Files.
  auto json = nlohmann::json::parse(read_file(spec.out_dir + "/results.json"));
  CHECK(json["played_games"] == 24);
  CHECK(json["players"].size() == 4);
  std::ifstream pgn(spec.out_dir + "/games.pgn");
  auto pgns = read_pgn(pgn, "games.pgn", Pitch::standard(), Variant::kStandard);
  CHECK(pgns.size() == 24);
  CHECK(pgns[0].tags.count("Player0") == 1);
  std::istringstream tsv(read_file(spec.out_dir + "/games.tsv"));
  std::string line;
  int lines = 0;
  while (std::getline(tsv, line)) ++lines;
  CHECK(lines == 25);
  CHECK_THAT(read_file(spec.out_dir + "/ratings.csv"), Catch::StartsWith("rank,player,type,elo"));
  CHECK_THAT(read_file(spec.out_dir + "/crosstable.csv"), Catch::Contains("4/4") || Catch::Contains("/4"));
  CHECK_THAT(read_file(spec.out_dir + "/games.csv"), Catch::StartsWith("game,player0"));
}

namespace {

// Two games per pairing from openings of 2 turns (seed 9).
TournamentSpec two_game_spec(int openings) {
  TournamentSpec spec;
  spec.games_per_pairing = 2;
  spec.openings = openings;
  spec.opening_turns = 2;
  spec.seed = 9;
  return spec;
}

// Two random players of the test registry.
std::vector<PlayerSpec> two_random_players() {
  test::register_test_players();
  return {reg("a", "test-random"), reg("b", "test-random")};
}

}  // namespace

TEST_CASE("a tournament lists only the openings its games play", "[tournament]") {
  // The exact input: a 2-game ladder (games_per_pairing 2, openings 10) printed "10 openings"
  // and balanced ten of them, one of which was played.
  TournamentSpec spec = two_game_spec(10);
  const std::vector<PlayerSpec> players = two_random_players();
  auto r = run_tournament(spec, players);
  CHECK(r.openings.size() == 1);
  CHECK_THAT(format_results(r), Catch::Contains("2/2 games, 1 opening,"));
  spec.games_per_pairing = 6;  // 3 openings, each with colours swapped
  const auto three = run_tournament(spec, players).openings;
  spec.games_per_pairing = 20;  // all 10
  const auto ten = run_tournament(spec, players).openings;
  REQUIRE(three.size() == 3);
  REQUIRE(ten.size() == 10);
  // The generator is sequential: fewer openings are the first ones of more, in order.
  CHECK(std::equal(three.begin(), three.end(), ten.begin()));
  CHECK(ten[0] == r.openings[0]);
}

TEST_CASE("without an openings count every pair of games has its own opening", "[tournament]") {
  // The exact input: a gauntlet of two deterministic players (a first-turn player and a
  // network's search at 48 visits), games_per_pairing 100, opening_turns 2 and no openings
  // key, played one opening 50 times each way: 2 distinct games counted as 100.
  test::register_test_players();
  TournamentSpec spec;
  CHECK(spec.openings == 0);
  spec.format = Format::kGauntlet;
  spec.games_per_pairing = 100;
  spec.opening_turns = 2;
  spec.seed = 11;
  const std::vector<PlayerSpec> players = {reg("a", "test-first"), reg("b", "test-first")};
  const TournamentResult r = run_tournament(spec, players);
  REQUIRE(r.openings.size() == 50);
  // Two copies of one deterministic player: a game and its colour swap are the same record, so
  // 50 distinct records (one opening gave 1).
  std::set<std::string> records;
  for (const GameResult& g : r.games) records.insert(g.record);
  CHECK(records.size() == 50);
  // Where opening_turns cannot give one opening per pair, the error says how to mend it.
  spec.opening_turns = 1;
  CHECK_THROWS_WITH(run_tournament(spec, players),
                    Catch::Contains("100 games of a pairing play one opening per pair of games") &&
                        Catch::Contains("raise opening_turns, or set openings"));
  // A count of openings is kept as given: two openings, each played twice with each colour.
  spec.opening_turns = 2;
  spec.openings = 2;
  spec.games_per_pairing = 8;
  CHECK(run_tournament(spec, players).openings.size() == 2);
}

TEST_CASE("results do not depend on the number of concurrent games", "[tournament]") {
  TournamentSpec spec = two_game_spec(1);
  const std::vector<PlayerSpec> players = two_random_players();
  spec.concurrency = 1;
  auto r1 = run_tournament(spec, players);
  spec.concurrency = 2;
  auto r2 = run_tournament(spec, players);
  REQUIRE(r1.games.size() == r2.games.size());
  for (size_t i = 0; i < r1.games.size(); ++i) CHECK(r1.games[i].record == r2.games[i].record);
}

// A gauntlet of the first player against the rest, 2 games per pairing, openings of 2 turns.
static TournamentSpec gauntlet_of_first(int openings) {
  TournamentSpec spec;
  spec.format = Format::kGauntlet;
  spec.gauntlet_size = 1;
  spec.games_per_pairing = 2;
  spec.openings = openings;
  spec.opening_turns = 2;
  return spec;
}

TEST_CASE("gauntlet: only the gauntlet players meet the field, external engines take part", "[tournament]") {
  test::register_test_players();
  TournamentSpec spec = gauntlet_of_first(1);
  spec.concurrency = 2;
  PlayerSpec bot = reg("bot", "external");
  bot.options = YAML::Load(std::string("{command: [") + PS_TEST_BOT +
                           ", random, --turn-ms, '500'], first_turn_ms: 3000, turn_ms: 1500, "
                           "opening_history: true}");
  std::vector<PlayerSpec> players{bot, reg("first", "test-first"), reg("rand", "test-random")};
  TournamentResult r = run_tournament(spec, players);
  REQUIRE(r.games.size() == 4);
  CHECK(r.cross.games(1, 2) == 0);
  CHECK(r.cross.total_games(0) == 4);
  for (const GameResult& g : r.games) {
    INFO(g.termination << ": " << g.detail);
    CHECK((g.termination == "goal" || g.termination == "blocked"));
    CHECK(g.opening == 0);  // opening_history: openings are used with the engine
  }
}

TEST_CASE("a player's own games count: more games against one opponent of a gauntlet", "[tournament]") {
  const TournamentSpec spec = gauntlet_of_first(10);
  test::register_test_players();
  std::vector<PlayerSpec> players{reg("cand", "test-random"), reg("gen0", "test-random"),
                                  reg("other", "test-random")};
  players[1].games = 6;
  TournamentResult r = run_tournament(spec, players);
  REQUIRE(r.games.size() == 8);
  CHECK(r.scheduled_games == 8);
  CHECK(r.cross.games(0, 1) == 6);
  CHECK(r.cross.games(0, 2) == 2);
  CHECK(r.openings.size() == 3);  // the most games of a pairing / 2
  std::map<int, int> gen0_openings;
  for (const GameResult& g : r.games)
    if (g.seat[0] == 1 || g.seat[1] == 1) ++gen0_openings[g.opening];
  CHECK(gen0_openings == std::map<int, int>{{0, 2}, {1, 2}, {2, 2}});
  players[1].games = 3;
  CHECK_THROWS_WITH(run_tournament(spec, players), Catch::Contains("player gen0: games 3 must be even"));
}

TEST_CASE("an engine without opening_history plays from the start position", "[tournament]") {
  test::register_test_players();
  TournamentSpec spec;
  spec.games_per_pairing = 2;
  spec.opening_turns = 3;
  PlayerSpec bot = reg("bot", "external");
  bot.options = YAML::Load(std::string("{command: [") + PS_TEST_BOT + ", first], first_turn_ms: 3000, turn_ms: 1500}");
  TournamentResult r = run_tournament(spec, {bot, reg("first", "test-first")});
  REQUIRE(r.games.size() == 2);
  REQUIRE(r.notes.size() == 1);
  CHECK_THAT(r.notes[0], Catch::Contains("opening_history"));
  for (const GameResult& g : r.games) {
    CHECK(g.opening == -1);
    CHECK(g.termination != "illegal turn");
  }
}

TEST_CASE("a forfeiting engine loses and the tournament goes on", "[tournament]") {
  test::register_test_players();
  TournamentSpec spec;
  spec.games_per_pairing = 2;
  spec.opening_turns = 0;
  PlayerSpec bad = reg("garbler", "external");
  bad.options = YAML::Load(std::string("{command: [") + PS_FAKE_ENGINE + ", --mode, garbage]}");
  TournamentResult r = run_tournament(spec, {bad, reg("random", "test-random")});
  REQUIRE(r.games.size() == 2);
  CHECK(r.cross.wins[1][0] == 2);
  for (const GameResult& g : r.games) CHECK(g.termination == "garbage output");
  // The player of type "random" would be the anchor only with the registry type "random";
  // test-random is not, so the first player is.
  CHECK(r.ratings.anchor == 0);
  CHECK(r.ratings.prior_draws_used > 0);  // 0-2: no finite MLE without the prior
}

TEST_CASE("bad specs and configs fail with clear messages", "[tournament]") {
  test::register_test_players();
  TournamentSpec spec;
  CHECK_THROWS_WITH(run_tournament(spec, {reg("a", "test-first")}), Catch::Contains("at least 2 players"));
  CHECK_THROWS_WITH(run_tournament(spec, {reg("a", "test-first"), reg("a", "test-random")}),
                    Catch::Contains("two players are named 'a'"));
  CHECK_THROWS_WITH(run_tournament(spec, {reg("a", "test-first"), reg("b", "nope")}),
                    Catch::Contains("unknown player type 'nope'"));
  spec.games_per_pairing = 3;
  CHECK_THROWS_WITH(run_tournament(spec, {reg("a", "test-first"), reg("b", "test-first")}),
                    Catch::Contains("games_per_pairing"));
  spec.games_per_pairing = 2;
  spec.anchor = "zed";
  CHECK_THROWS_WITH(run_tournament(spec, {reg("a", "test-first"), reg("b", "test-first")}),
                    Catch::Contains("anchor 'zed'"));
  spec.anchor = "";
  PlayerSpec typo = reg("t", "test-random");
  typo.options = YAML::Load("{saltt: 3}");
  CHECK_THROWS_WITH(run_tournament(spec, {reg("a", "test-first"), typo}), Catch::Contains("saltt"));
  PlayerSpec missing = reg("m", "external");
  missing.options = YAML::Load("{command: [/no/such/engine]}");
  CHECK_THROWS_WITH(run_tournament(spec, {reg("a", "test-first"), missing}),
                    Catch::Contains("/no/such/engine"));

  auto load = [](const std::string& yaml) {
    ConfigReader r = ConfigReader::from_string(yaml, "t.yaml");
    return parse_tournament_config(r);
  };
  const std::string players = "players:\n  - {name: a, type: test-first}\n  - {name: b, type: test-random, salt: 4}\n";
  TournamentConfig c = load("games_per_pairing: 4\nformat: gauntlet\npitch: 8x12\nvariant: no-bounce\ntime_ms: 50\n" + players);
  CHECK(c.spec.games_per_pairing == 4);
  CHECK(c.spec.format == Format::kGauntlet);
  CHECK(c.spec.length == 12);
  CHECK(c.spec.variant == Variant::kNoBounce);
  CHECK(c.spec.budget.time_ms == 50);
  CHECK(c.players.size() == 2);
  CHECK(c.players[1].where == "players[1]");
  CHECK_THROWS_WITH(load("gamez_per_pairing: 4\n" + players), Catch::Contains("t.yaml: gamez_per_pairing (line 1): unknown key"));
  CHECK_THROWS_WITH(
      load("format: swiss\n" + players),
      "t.yaml: format (line 1): unknown tournament format 'swiss' (expected round-robin or gauntlet)");
  CHECK_THROWS_WITH(load("variant: bouncy\n" + players), Catch::StartsWith("t.yaml: variant (line 1): "));
  // Regression: a variant of the wrong type was said twice ("t.yaml: variant (line 1): t.yaml:
  // variant (line 1): wrong type ..."), the reader's error caught as the converter's.
  CHECK_THROWS_WITH(load("variant: [standard]\n" + players),
                    "t.yaml: variant (line 1): wrong type: cannot read a list: expected a string");
  CHECK_THROWS_WITH(load("players:\n  - {name: a, type: test-first}\n  - {name: b, type: nope}\n"),
                    Catch::Contains("t.yaml: players[1].type (line 3): unknown player type 'nope'"));
  CHECK_THROWS_WITH(load("players:\n  - {name: a, type: test-first}\n"), Catch::Contains("at least 2"));
  // Regression: time_ms 0 was accepted (only -1 means no limit).
  CHECK_THROWS_WITH(load("time_ms: 0\n" + players), Catch::Contains("time_ms") && Catch::Contains("-1 for no limit"));
  CHECK_THROWS_WITH(
      load("players:\n  - {name: a, type: test-first, visits: 0}\n  - {name: b, type: test-first}\n"),
      "t.yaml: players[0].visits (line 2): must be >= 1, or -1 for no limit");
  CHECK(load("time_ms: -1\nvisits: 10\n" + players).spec.budget.visits == 10);
  // The pitch key is read by parse_pitch_spec: WxLgG too (only WxL before), the goal key for a
  // spec without one, and a goal key that disagrees with the spec's is an error.
  const TournamentSpec g4 = load("pitch: 10x14g4\n" + players).spec;
  CHECK((g4.width == 10 && g4.length == 14 && g4.goal == 4));
  CHECK(load("pitch: 10x14\ngoal: 4\n" + players).spec.goal == 4);
  CHECK(load("pitch: 8X10\n" + players).spec.width == 8);
  CHECK_THROWS_WITH(load("pitch: 10x14g4\ngoal: 2\n" + players),
                    "t.yaml: goal (line 2): differs from the goal of pitch '10x14g4'");
  CHECK_THROWS_WITH(load("pitch: 8x10x\n" + players),
                    Catch::StartsWith("t.yaml: pitch (line 1): bad pitch '8x10x'"));
  CHECK_THROWS_WITH(load("pitch: 9x10\n" + players), Catch::Contains("width must be even"));
  // Range rules name the key's line (TournamentSpec::validate through finish_validated).
  CHECK_THROWS_WITH(load("seed: 3\ngames_per_pairing: 3\n" + players),
                    "t.yaml: games_per_pairing (line 2): must be even and >= 2");
  // Regressions: these were refused by run_tournament without the file and
  // line, or (the last two) accepted.
  CHECK_THROWS_WITH(
      load("format: gauntlet\ngauntlet_size: 2\n" + players),
      "t.yaml: gauntlet_size (line 2): must be in [1, 1] (the players minus at least one opponent)");
  CHECK_THROWS_WITH(load("anchor: zed\n" + players),
                    "t.yaml: anchor (line 1): 'zed' is not the name of a player");
  CHECK_THROWS_WITH(load("players:\n  - {name: a, type: test-first}\n  - {name: a, type: test-random}\n"),
                    "t.yaml: players (line 2): two players are named 'a' (names must be unique)");
  CHECK_THROWS_WITH(load("pitch: 8x10\ngoal: 20\n" + players), Catch::StartsWith("t.yaml: goal (line 2): "));
  CHECK_THROWS_WITH(load("prior_draws: -5\n" + players),
                    "t.yaml: prior_draws (line 1): must be >= 0 and finite, or -1 for the automatic prior");
  CHECK(load("prior_draws: -1\n" + players).spec.prior_draws == -1);
  CHECK_THROWS_WITH(load("opening_balance_rollouts: -1\n" + players),
                    "t.yaml: opening_balance_rollouts (line 1): must be >= 0 (0: openings are not balanced)");
}

TEST_CASE("cancelling skips the games not yet started", "[tournament]") {
  test::register_test_players();
  TournamentSpec spec;
  spec.games_per_pairing = 10;
  spec.opening_turns = 0;
  std::atomic<bool> cancel{false};
  TournamentResult r = run_tournament(spec, {reg("a", "test-random"), reg("b", "test-random")},
                                      [&](const GameResult&, int done, int) {
                                        if (done == 3) cancel = true;
                                      },
                                      &cancel);
  CHECK(r.games.size() == 3);
  CHECK(r.cancelled);
  CHECK(r.scheduled_games == 10);
}

TEST_CASE("format_results: an Elo that rounds to zero prints as 0.0, never -0.0", "[tournament]") {
  // Regression: two players with 2 wins each; the second's rating came out of the Newton
  // steps as a tiny negative number and printed as "-0.0" (also in ratings.csv as "-0.00").
  TournamentResult r;
  r.spec.name = "t";
  r.players = {"a", "b", "c"};
  r.cross.wins = {{0, 2, 1}, {2, 0, 1}, {1, 1, 0}};
  r.openings = {{"0"}};
  r.ratings.players.assign(3, PlayerRating{});
  r.ratings.players[1].elo = -1e-12;
  r.ratings.players[2].elo = -0.04;
  const std::string table = format_results(r);
  CHECK_THAT(table, Catch::Contains("1 opening,"));
  CHECK_THAT(table, !Catch::Contains("-0.0"));
  CHECK_THAT(table, Catch::Contains("0.0"));
}

TEST_CASE("a stopped tournament resumes: stored games are kept, reported first and not played again",
          "[tournament]") {
  test::register_test_players();
  TournamentSpec spec;
  spec.name = "resume-test";
  spec.games_per_pairing = 8;
  spec.openings = 4;
  spec.opening_turns = 2;
  spec.seed = 9;
  spec.out_dir = temp_dir("resume");
  remove_tree(spec.out_dir);
  ensure_directory(spec.out_dir, "test");
  spec.resume = true;
  const std::vector<PlayerSpec> players{reg("rand-a", "test-random"), reg("rand-b", "test-random")};
  // The whole tournament at once, for comparison.
  TournamentSpec whole = spec;
  whole.out_dir.clear();
  whole.resume = false;
  const TournamentResult all = run_tournament(whole, players);
  // Stopped after 3 games; then resumed.
  std::atomic<bool> stop{false};
  int played = 0;
  const TournamentResult part = run_tournament(
      spec, players,
      [&](const GameResult&, int, int) {
        if (++played == 3) stop = true;
      },
      &stop);
  CHECK(part.cancelled);
  REQUIRE(part.games.size() == 3);
  // A torn line (a kill while it was written) is dropped, and its game played again.
  {
    std::ofstream tsv(spec.out_dir + "/games.tsv", std::ios::app);
    tsv << "4\trand-b\trand";
  }
  std::vector<int> reported;
  const TournamentResult rest =
      run_tournament(spec, players, [&](const GameResult& g, int, int) { reported.push_back(g.index); });
  CHECK_FALSE(rest.cancelled);
  REQUIRE(rest.games.size() == 8);
  REQUIRE(reported.size() == 8);
  for (int i = 0; i < 3; ++i)
    CHECK(reported[size_t(i)] == part.games[size_t(i)].index);  // the stored ones first
  for (size_t i = 0; i < 8; ++i) {
    CHECK(rest.games[i].index == int(i));
    CHECK(rest.games[i].record == all.games[i].record);  // the same games as in one go
    CHECK(rest.games[i].winner == all.games[i].winner);
  }
  // games.tsv holds each game once.
  std::istringstream tsv(read_file(spec.out_dir + "/games.tsv"));
  std::string line;
  std::multiset<std::string> ids;
  std::getline(tsv, line);  // header
  while (std::getline(tsv, line)) ids.insert(line.substr(0, line.find('\t')));
  CHECK(ids.size() == 8);
  CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == 8);
  // Games of other players in the folder: an error naming the file and the line.
  const std::vector<PlayerSpec> others{reg("x", "test-random"), reg("y", "test-random")};
  CHECK_THROWS_WITH(run_tournament(spec, others), Catch::Contains("games.tsv: line 2") &&
                                                      Catch::Contains("scheduled between other players"));
  remove_tree(spec.out_dir);
}
