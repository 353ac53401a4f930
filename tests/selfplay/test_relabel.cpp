// Relabelled games (selfplay/relabel.h): finished games' positions with a deeper alpha-beta
// search's score as the value target.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "selfplay/data.h"
#include "selfplay/relabel.h"
#include "tests/common/random_games.h"
#include "tests/common/temp_dir.h"
#include "valuenet/value_net.h"
#include "valuenet/value_net_file.h"

using namespace ps;
namespace fs = std::filesystem;

namespace {

// Finished random games of 8x10 standard (random turns until the game ends).
std::vector<Game> finished_games(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Game> out;
  while (int(out.size()) < count) {
    Game g = testing::random_game(Pitch::standard(), Variant::kStandard, 400, rng);
    if (g.position().game_over() && g.position().winner() >= 0) out.push_back(g);
  }
  return out;
}

}  // namespace

TEST_CASE("relabel: samples hold the search's score and the result, chunks resume") {
  test::TempDir dir("relabel");
  const std::string vnet = (dir.path / "v.vnet").string();
  save_value_net(random_value_net(Pitch::standard(), Variant::kStandard, {8, 8}, 3), vnet);
  std::vector<Game> games = finished_games(3, 5);
  std::mt19937_64 rng(9);
  games.push_back(testing::random_game(Pitch::standard(), Variant::kStandard, 3, rng));       // unfinished
  games.push_back(testing::random_game(Pitch::get(8, 12, 2), Variant::kStandard, 400, rng));  // other rules
  RelabelOptions o;
  o.value_net = vnet;
  o.nodes = 300;
  o.from_turn = 2;
  o.every = 2;
  o.threads = 2;
  o.games_per_chunk = 2;
  o.tt_mb = 1;
  const std::string out = (dir.path / "data").string();
  const RelabelStats st = relabel_games(games, o, out, "rl");
  CHECK(st.games == 3);
  CHECK(st.skipped_games == 2);
  CHECK(st.written_chunks == 3);
  CHECK(st.positions > 0);
  int64_t samples = 0;
  for (int c = 0; c < 3; ++c) {
    const std::string path = (fs::path(out) / ("rl-00000" + std::to_string(c) + ".psd")).string();
    REQUIRE(fs::is_regular_file(path));
    for (const GameData& g : read_chunk(path)) {
      const Game whole = parse_record(Pitch::get(g.width, g.length, g.goal), g.variant, g.record);
      REQUIRE(g.winner == whole.position().winner());
      for (const TrainingSample& s : g.samples) {
        ++samples;
        CHECK(s.turn_index >= 2);
        CHECK((s.turn_index - 2) % 2 == 0);
        CHECK_FALSE(s.full_search);
        CHECK(s.policy.empty());
        CHECK(s.root_value >= -1.0f);
        CHECK(s.root_value <= 1.0f);
        const Position pos = sample_position(g, s);
        CHECK(s.result == (pos.side_to_move() == g.winner ? 1 : -1));
        CHECK(s.turns_left == int(whole.turns().size()) - s.turn_index);
      }
    }
  }
  CHECK(samples == st.positions);
  // The same games again: every chunk is there, nothing is searched or written.
  const RelabelStats again = relabel_games(games, o, out, "rl");
  CHECK(again.kept_chunks == 3);
  CHECK(again.written_chunks == 0);
  CHECK(again.positions == 0);
  // Other settings into the same folder are refused (a rerun with more nodes kept the
  // old chunks without a word).
  RelabelOptions other = o;
  other.nodes = 5000;
  CHECK_THROWS_WITH(relabel_games(games, other, out, "rl"),
                    Catch::Contains("holds chunks made with other settings") &&
                        Catch::Contains("nodes (now 5000) differs"));
  // Other games, and another net under the same file name: refused too (they
  // kept the old chunks, matched by file name only).
  {
    std::vector<Game> fewer(games.begin(), games.end() - 1);
    CHECK_THROWS_WITH(relabel_games(fewer, o, out, "rl"), Catch::Contains("games (now 4 fnv1a64"));
    const std::string moved = (dir.path / "other" / "v.vnet").string();
    std::filesystem::create_directories(dir.path / "other");
    save_value_net(random_value_net(Pitch::standard(), Variant::kStandard, {8, 8}, 99), moved);
    RelabelOptions renet = o;
    renet.value_net = moved;
    CHECK_THROWS_WITH(relabel_games(games, renet, out, "rl"),
                      Catch::Contains("value_net (now v.vnet fnv1a64"));
  }
  // One node completes no iteration: the positions are counted as dropped, not lost silently.
  RelabelOptions one = o;
  one.nodes = 1;
  const RelabelStats few = relabel_games(games, one, (dir.path / "one").string(), "rl");
  CHECK(few.dropped > 0);
}

TEST_CASE("relabel: a position won at once is +1, and bad options name their field") {
  test::TempDir dir("relabel-won");
  const std::string vnet = (dir.path / "v.vnet").string();
  save_value_net(random_value_net(Pitch::standard(), Variant::kStandard, {8, 8}, 4), vnet);
  // A game whose last turn scores for its mover (not an own goal, not a blocked ball): the
  // position before it is won at once.
  Game g(Pitch::standard(), Variant::kStandard);
  bool found = false;
  for (const Game& c : finished_games(40, 21)) {
    Game before(Pitch::standard(), Variant::kStandard);
    for (size_t t = 0; t + 1 < c.turns().size(); ++t) before.play_turn(c.turns()[t]);
    if (c.position().reason() == Reason::kGoal && c.position().winner() == before.position().side_to_move()) {
      g = c;
      found = true;
      break;
    }
  }
  REQUIRE(found);
  RelabelOptions o;
  o.value_net = vnet;
  o.nodes = 200;
  o.from_turn = int(g.turns().size()) - 1;
  o.tt_mb = 1;
  const RelabelStats st = relabel_games({g}, o, (dir.path / "d").string(), "rl");
  REQUIRE(st.positions == 1);
  const std::vector<GameData> back = read_chunk((dir.path / "d" / "rl-000000.psd").string());
  REQUIRE(back.size() == 1);
  REQUIRE(back[0].samples.size() == 1);
  CHECK(back[0].samples[0].root_value == 1.0f);
  CHECK(back[0].samples[0].result == 1);

  // Only unfinished games (and one of other rules): refused before anything is written (the run
  // wrote an empty chunk that marked them done).
  {
    std::mt19937_64 rng(2);
    const std::vector<Game> none = {testing::random_game(Pitch::standard(), Variant::kStandard, 3, rng),
                                    testing::random_game(Pitch::get(8, 12, 2), Variant::kStandard, 400, rng)};
    CHECK_THROWS_WITH(relabel_games(none, o, (dir.path / "none").string(), "rl"),
                      "relabel: none of the 2 games is a finished game of the value net's rules (8x10 "
                      "standard): nothing to label");
    CHECK_FALSE(fs::exists(dir.path / "none"));
  }
  o.every = 0;
  CHECK_THROWS_WITH(relabel_games({g}, o, (dir.path / "e").string(), "rl"), "relabel: every: must be >= 1");
  o.every = 1;
  o.value_net = (dir.path / "missing.vnet").string();
  CHECK_THROWS_WITH(relabel_games({g}, o, (dir.path / "e").string(), "rl"),
                    Catch::StartsWith("relabel: value net " + o.value_net + ": "));
}
