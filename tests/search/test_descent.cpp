// UBFM / Descent (search/descent.h) behind the Search interface: minimax backups, proofs,
// descents to the end of the game, budgets, and legal play through the MCTS player.
#include <catch2/catch.hpp>

#include <algorithm>

#include "search/baselines.h"
#include "search/fixed_cost_evaluator.h"
#include "search/mcts.h"
#include "search/mcts_player.h"
#include "tests/search/helpers.h"

using namespace ps;
using namespace ps::test;

namespace {

SearchParams params_for(const std::string& algorithm) {
  SearchParams p;
  p.algorithm = algorithm;
  p.reuse_tree = false;
  return p;
}

Game midgame(uint64_t seed, int turns) {
  Game g(Pitch::standard(), Variant::kStandard);
  RandomPlayer rp(seed);
  for (int i = 0; i < turns && !g.position().game_over(); ++i) g.play_turn(rp.choose_turn(g, {}));
  return g;
}

}  // namespace

TEST_CASE("descent: the root value is the minimax of its children", "[search]") {
  FixedCostEvaluator ev(0, 0.8f, 1.0f, 3);
  for (const char* algo : {"ubfm", "descent"}) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      const Game g = midgame(seed, 6);
      if (g.position().game_over()) continue;
      Search s(ev, params_for(algo), seed);
      const SearchResult r = s.run(g.position(), SearchLimits{60, -1});
      INFO(algo << " " << g.record());
      REQUIRE(!r.children.empty());
      REQUIRE(r.new_visits <= 60);
      float best = -2;
      for (const RootChild& c : r.children) best = std::max(best, c.q);
      if (r.root_proven == 0) REQUIRE(r.root_value == best);
      // The best turn is the best-valued child, and leads the principal variation.
      const auto it = std::find_if(r.children.begin(), r.children.end(),
                                   [&](const RootChild& c) { return c.kicks == r.best_turn; });
      REQUIRE(it != r.children.end());
      REQUIRE(it->q == best);
      REQUIRE(r.principal_variation.front() == r.best_turn);
      REQUIRE(is_legal_turn(g, r.best_turn));
      // Selections of the root's children add up to the descents that passed the root.
      int64_t selections = 0;
      for (const RootChild& c : r.children) selections += c.visits;
      REQUIRE(selections >= 1);
    }
  }
}

TEST_CASE("descent: a descent reaches the end of the game, UBFM grows one leaf at a time", "[search]") {
  FixedCostEvaluator ev(0, 0.5f, 1.0f, 9);
  const Game g = midgame(21, 10);
  REQUIRE(!g.position().game_over());
  {
    // The first descent goes on to the end of the game: at 40 expansions it is far deeper
    // than UBFM's tree, which grows one leaf per iteration around the root.
    Search d(ev, params_for("descent"), 1);
    const SearchResult rd = d.run(g.position(), SearchLimits{40, -1});
    Search u(ev, params_for("ubfm"), 1);
    const SearchResult ru = u.run(g.position(), SearchLimits{40, -1});
    INFO(g.record() << ": depth descent " << rd.max_depth << ", ubfm " << ru.max_depth);
    REQUIRE(rd.new_visits == 40);
    REQUIRE(ru.new_visits == 40);  // one expansion per iteration
    REQUIRE(rd.max_depth >= 8);
    REQUIRE(rd.max_depth > ru.max_depth);
  }
}

TEST_CASE("descent: bad settings are rejected and games are legal", "[search]") {
  SearchParams p = params_for("descent");
  p.num_threads = 2;
  REQUIRE_THROWS_WITH(p.validate(), Catch::Contains("num_threads"));
  p = params_for("minimax");
  REQUIRE_THROWS_WITH(p.validate(), Catch::Contains("algorithm"));
  p = params_for("ubfm");
  p.ubfm_exploration = -0.5;
  REQUIRE_THROWS_WITH(p.validate(), Catch::Contains("ubfm_exploration"));
  p = params_for("puct");
  p.ubfm_exploration = 0.4;  // was ignored by PUCT without a word
  REQUIRE_THROWS_WITH(p.validate(),
                      Catch::Contains("ubfm_exploration: is only read by algorithm ubfm or descent"));

  FixedCostEvaluator ev(0, 0.5f, 1.0f, 5);
  for (const char* algo : {"ubfm", "descent"}) {
    MctsPlayer player(ev, params_for(algo), 3);
    RandomPlayer rp(4);
    Game g(Pitch::standard(), Variant::kStandard);
    while (!g.position().game_over()) {
      Player& p0 = g.position().side_to_move() == 0 ? static_cast<Player&>(player)
                                                    : static_cast<Player&>(rp);
      const std::string t = p0.choose_turn(g, TurnBudget{-1, 30});
      REQUIRE(is_legal_turn(g, t));
      g.play_turn(t);
    }
  }
}

// UCB1 over minimax values (ubfm_exploration): the descents visit more of the root's turns than
// pure UBFM, which follows the best-valued child, and the turn played stays the best-valued.
TEST_CASE("descent: ubfm_exploration spreads the descents, the best-valued turn is played", "[search]") {
  FixedCostEvaluator ev(0, 0.8f, 1.0f, 7);
  int spread_pure = 0, spread_ucb = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const Game g = midgame(seed + 30, 8);
    if (g.position().game_over()) continue;
    auto visited = [](const SearchResult& r) {
      return int(std::count_if(r.children.begin(), r.children.end(),
                               [](const RootChild& c) { return c.visits > 0; }));
    };
    Search pure(ev, params_for("ubfm"), seed);
    const SearchResult a = pure.run(g.position(), SearchLimits{150, -1});
    SearchParams p = params_for("ubfm");
    p.ubfm_exploration = 1.0;
    Search ucb(ev, p, seed);
    const SearchResult b = ucb.run(g.position(), SearchLimits{150, -1});
    spread_pure += visited(a);
    spread_ucb += visited(b);
    float best = -2;
    for (const RootChild& c : b.children) best = std::max(best, c.q);
    const auto it = std::find_if(b.children.begin(), b.children.end(),
                                 [&](const RootChild& c) { return c.kicks == b.best_turn; });
    REQUIRE(it != b.children.end());
    CHECK(it->q == best);
  }
  INFO("root turns visited: pure " << spread_pure << ", exploration 1.0 " << spread_ucb);
  CHECK(spread_ucb > spread_pure);
}
