// Turn priors from one evaluation sum to 1 over the distinct turns, on both pitches.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "engine/random_positions.h"
#include "engine/turns.h"
#include "nn/turn_priors.h"

using namespace ps;
using namespace ps::nn;

TEST_CASE("turn priors sum to 1 over the distinct turns", "[nn]") {
  std::mt19937_64 rng(11);
  std::normal_distribution<float> noise(0.0f, 1.5f);
  int checked = 0;
  for (const Pitch* pitch : {&Pitch::get(8, 10, 2), &Pitch::get(8, 12, 2)}) {
    for (int i = 0; i < 12; ++i) {
      const Variant variant = Variant(i % kNumVariants);
      Position pos = random_position(*pitch, variant, int(rng() % 14), rng);
      if (pos.game_over()) continue;
      Evaluation ev;
      ev.policy_logits.resize(size_t(pitch->num_points()) * 8);
      for (float& f : ev.policy_logits) f = noise(rng);
      TurnGenerator gen;
      const size_t distinct = gen.generate(pos).size();
      for (bool sum_chains : {true, false}) {
        BestFirstOptions opt;
        opt.sum_chains = sum_chains;
        opt.max_turns = 1 << 20;
        BestFirstResult res = turn_priors(pos, ev, opt);
        if (!res.complete) continue;  // a combinatorial chain explosion hit max_expansions
        REQUIRE(res.turns.size() == distinct);
        double total = 0;
        for (const auto& t : res.turns) {
          REQUIRE(t.prior > 0.0f);
          total += t.prior;
        }
        REQUIRE(std::abs(total - 1.0) < 1e-5);
        ++checked;
      }
    }
  }
  CHECK(checked >= 30);
}

TEST_CASE("turn priors: a wrong logits size is an error", "[nn]") {
  Position pos(Pitch::standard(), Variant::kStandard);
  Evaluation ev;
  ev.policy_logits.resize(10);
  CHECK_THROWS_WITH(turn_priors(pos, ev), Catch::Contains("policy logits"));
}
