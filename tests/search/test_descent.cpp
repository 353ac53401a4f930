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

TEST_CASE("descent: a descent reaches the end of the game; UBFM grows one leaf at a time", "[search]") {
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
