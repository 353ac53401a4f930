// Teacher self-play (selfplay/teacher.h): alphabeta's games as training data.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <random>

#include "core/fileutil.h"
#include "selfplay/teacher.h"
#include "tests/common/random_games.h"

using namespace ps;
namespace fs = std::filesystem;

namespace {

// 3 games of 6x8 on 2 threads, 2 per chunk; a teacher of 1,500 nodes per turn whose games
// start with 2 random turns and have no other random turn.
SelfplayConfig small_config() {
  auto r = ConfigReader::from_string("games: 3\nconcurrent_games: 2\ngames_per_chunk: 2\npitches: [6x8]\n",
                                     "test");
  return parse_selfplay_config(r);
}

TeacherOptions small_teacher() {
  auto r =
      ConfigReader::from_string("nodes: 1500\ntt_mb: 1\nopening_turns: 2\nrandom_turn_prob: 0\n", "test");
  return parse_teacher_options(r);
}

// The position before turn `turns` of a game's record.
Game replay_turns(const GameData& g, int turns) {
  const Game whole = parse_record(Pitch::get(g.width, g.length, g.goal), g.variant, g.record);
  Game part(Pitch::get(g.width, g.length, g.goal), g.variant);
  for (int k = 0; k < turns; ++k) part.play_turn(whole.turns()[size_t(k)]);
  return part;
}

}  // namespace

TEST_CASE("teacher games: chunks read back, samples legal, the policy turn is the teacher's") {
  const fs::path dir = fs::temp_directory_path() / ("ps_teacher_" + std::to_string(::getpid()));
  ps::remove_tree(dir.string());
  const SelfplayConfig cfg = small_config();
  const TeacherOptions t = small_teacher();
  const TeacherRunStats st = run_teacher_selfplay(cfg, t, dir.string(), "teacher");
  CHECK(st.games.games == 3);
  std::vector<GameData> games;
  for (const char* name : {"teacher-000000.psd", "teacher-000001.psd"}) {
    std::vector<std::string> warnings;
    for (GameData& g : read_chunk((dir / name).string(), &warnings)) games.push_back(std::move(g));
    CHECK(warnings.empty());  // read_chunk skips, with a warning, games with illegal samples
  }
  REQUIRE(games.size() == 3);
  int64_t samples = 0, proven = 0;
  for (const GameData& g : games) {
    REQUIRE(g.winner >= 0);
    CHECK(g.network == "teacher:alphabeta");
    const Game whole = parse_record(Pitch::get(g.width, g.length, g.goal), g.variant, g.record);
    // The teacher's choices, by a player that searches the game's positions in the same order
    // (its transposition table carries over from turn to turn, and with late move reductions
    // the answer depends on it).
    std::vector<std::string> choices;
    {
      AlphaBetaPlayer replayer(AlphaBetaPlayer::Options{}, nullptr);
      replayer.new_game(Pitch::get(g.width, g.length, g.goal), g.variant);
      for (int i = 0; i < whole.num_complete_turns(); ++i)
        choices.push_back(teacher_choose(replayer, replay_turns(g, i), t).turn);
    }
    for (const TrainingSample& s : g.samples) {
      ++samples;
      CHECK(s.full_search);
      CHECK(s.root_value >= -1.0f);
      CHECK(s.root_value <= 1.0f);
      CHECK(s.turns_left == whole.num_complete_turns() - s.turn_index);
      CHECK(s.result == (sample_position(g, s).side_to_move() == g.winner ? 1 : -1));
      REQUIRE(s.policy.size() == 1);  // one-hot: the teacher's choice
      CHECK(s.policy[0].visits == 1);
      // After the random opening the teacher's choice is the turn played; before it, the
      // sample still holds the teacher's own choice for that position.
      Game before = replay_turns(g, s.turn_index);
      const std::string expected =
          s.turn_index >= t.opening_turns ? whole.turns()[s.turn_index] : choices[s.turn_index];
      CHECK(s.policy[0].kicks == expected);
      CHECK_NOTHROW(before.play_turn(s.policy[0].kicks));
      // A proven win is a won game: the teacher that proved it plays it out.
      if (s.root_value == 1.0f) {
        ++proven;
        CHECK(s.result == 1);
      }
    }
  }
  CHECK(st.games.samples == samples);
  // Regression: the teacher's progress lines said "0.0 root turns/search" (alpha-beta does not
  // count its root turns); the summary leaves the field out.
  CHECK(st.games.searches > 0);
  CHECK(st.games.root_turns == 0);
  CHECK_THAT(st.games.summary(), !Catch::Contains("root turns/search"));
  CHECK_THAT(st.games.summary(), Catch::Contains("games 3 (") && Catch::Contains(", wins p0/p1 "));
  CHECK(proven >= 3);  // every game ends with the winner's proven last turn at least
  CHECK(st.scores.size() <= size_t(samples - proven));
  // Resuming: the games are there, none is played again.
  CHECK(run_teacher_selfplay(cfg, t, dir.string(), "teacher").games.games == 0);
  ps::remove_tree(dir.string());
}

TEST_CASE("teacher: a won position is +1, a forced turn is not sampled") {
  std::mt19937_64 rng(5);
  const Pitch& pitch = Pitch::get(6, 8, 2);
  TurnGenerator gen;
  int found = 0;
  for (int tries = 0; tries < 400 && found < 3; ++tries) {
    Game g = testing::random_game(pitch, Variant::kStandard, int(rng() % 60), rng);
    if (g.position().game_over() || !gen.find_winning_turn(g.position(), nullptr)) continue;
    ++found;
    AlphaBetaPlayer ab;
    const TeacherChoice c = teacher_choose(ab, g, small_teacher());
    CHECK(c.proven);
    CHECK(c.sampled);
    CHECK(teacher_value(c.score, 400) == 1.0f);
    const int me = g.position().side_to_move();
    g.play_turn(c.turn);
    CHECK(g.position().winner() == me);  // the turn wins at once
  }
  CHECK(found == 3);
  CHECK(teacher_value(-AlphaBetaPlayer::kWin + 7, 400) == -1.0f);
  CHECK(teacher_value(400, 400) == Approx(std::tanh(1.0)));
  CHECK(teacher_value(-200, 400) == Approx(std::tanh(-0.5)));
  CHECK(teacher_value(0, 400) == 0.0f);
}

TEST_CASE("teacher: random turns neither lose at once nor allow an immediate goal") {
  std::mt19937_64 rng(9);
  const Pitch& pitch = Pitch::get(8, 10, 2);
  TurnGenerator win;
  int checked = 0;
  for (int i = 0; i < 60; ++i) {
    Game g = testing::random_game(pitch, Variant::kStandard, int(rng() % 20), rng);
    if (g.position().game_over()) continue;
    const std::string turn = safe_random_turn(g.position(), rng);
    if (turn.empty()) continue;
    const int me = g.position().side_to_move();
    g.play_turn(turn);
    ++checked;
    const bool safe = g.position().game_over() ? g.position().winner() == me
                                               : !win.find_winning_turn(g.position(), nullptr);
    CHECK(safe);
  }
  CHECK(checked >= 40);
}

TEST_CASE("teacher: the value scale that fits the results best is found") {
  // Results drawn so that E[result | score] = tanh(score / 300): the fit lands near 300.
  std::mt19937_64 rng(3);
  std::vector<ScoredResult> scores;
  for (int i = 0; i < 20000; ++i) {
    const int score = int(rng() % 2001) - 1000;
    const double p_win = (1 + std::tanh(score / 300.0)) / 2;
    scores.push_back({score, int8_t(std::uniform_real_distribution<double>(0, 1)(rng) < p_win ? 1 : -1)});
  }
  const TeacherCalibration c = teacher_calibration(scores);
  CHECK(c.positions == 20000);
  CHECK(c.best_scale > 220);
  CHECK(c.best_scale < 400);
  CHECK(c.best_mse <= c.mse_at(100));
  CHECK(c.best_mse <= c.mse_at(3000));
  CHECK(teacher_calibration({}).positions == 0);
}

TEST_CASE("teacher config: keys parse, bad keys and values are named with file, key and line") {
  auto top = ConfigReader::from_string(
      "selfplay:\n  teacher:\n    nodes: 5000\n    random_turn_prob: 0.2\n    value_scale: 250\n", "t.yaml");
  ConfigReader sp = top.child("selfplay");
  ConfigReader r = sp.child("teacher");
  const TeacherOptions t = parse_teacher_options(r);
  CHECK(t.nodes == 5000);
  CHECK(t.random_turn_prob == 0.2);
  CHECK(t.value_scale == 250);
  CHECK(t.player == "alphabeta");
  auto parse = [](const std::string& yaml) {
    auto top = ConfigReader::from_string("selfplay:\n  teacher:\n" + yaml, "t.yaml");
    ConfigReader sp = top.child("selfplay");
    ConfigReader r = sp.child("teacher");
    return parse_teacher_options(r);
  };
  CHECK_THROWS_WITH(parse("    nodez: 3\n"), Catch::Contains("t.yaml") &&
                                                 Catch::Contains("selfplay.teacher.nodez") &&
                                                 Catch::Contains("unknown key"));
  CHECK_THROWS_WITH(parse("    nodes: 0\n"),
                    Catch::StartsWith("t.yaml: selfplay.teacher.nodes (line 3): must be >= 1"));
  CHECK_THROWS_WITH(parse("    nodes: -1\n"), Catch::Contains("a budget is needed"));
  CHECK_NOTHROW(parse("    nodes: -1\n    time_ms: 50\n"));
  CHECK_THROWS_WITH(parse("    player: uct\n"),
                    Catch::StartsWith("t.yaml: selfplay.teacher.player (line 3): must be alphabeta"));
  CHECK_THROWS_WITH(parse("    random_turn_prob: 1.5\n"), Catch::Contains("random_turn_prob (line 3)"));
  CHECK_THROWS_WITH(parse("    value_scale: 0\n"), Catch::Contains("value_scale (line 3): must be > 0"));
  CHECK_THROWS_WITH(parse("    nodes: many\n"), Catch::Contains("selfplay.teacher.nodes (line 3)"));
  // The leaf evaluation (search/leaf_evals.h): hand by default, noise and nnue by name.
  CHECK(t.eval == "hand");
  CHECK(parse("    eval: noise\n    noise_range: 300\n").noise_range == 300);
  CHECK_THROWS_WITH(
      parse("    eval: mobility\n"),
      Catch::StartsWith("t.yaml: selfplay.teacher.eval (line 3): unknown evaluation 'mobility'"));
  CHECK_THROWS_WITH(
      parse("    eval: noise\n    noise_range: 0\n"),
      Catch::StartsWith("t.yaml: selfplay.teacher.noise_range (line 4): noise evaluation: range 0"));
  CHECK_THROWS_WITH(
      parse("    value_net: a.vnet\n"),
      Catch::StartsWith("t.yaml: selfplay.teacher.value_net (line 3): is only read with eval: nnue"));
  CHECK_THROWS_WITH(
      parse("    eval: nnue\n    value_net: /nonexistent/v.vnet\n"),
      Catch::StartsWith("t.yaml: selfplay.teacher.value_net (line 4): value net /nonexistent/v.vnet"));
}

TEST_CASE("teacher games with the random evaluation: legal samples, the result as the target") {
  auto r = ConfigReader::from_string(
      "nodes: 1500\ntt_mb: 1\nopening_turns: 2\nrandom_turn_prob: 0\neval: noise\n", "test");
  const TeacherOptions t = parse_teacher_options(r);
  SelfplayConfig cfg = small_config();
  const GameData g = play_teacher_game(cfg, t, 7);
  REQUIRE(g.winner >= 0);
  REQUIRE(!g.samples.empty());
  CHECK_NOTHROW(validate_game(g));
  for (const auto& sm : g.samples) CHECK(std::abs(int(sm.result)) == 1);
}
