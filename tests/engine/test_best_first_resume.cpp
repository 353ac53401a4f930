// Resumable best-first turn generation (BestFirstState): a generation continued call after
// call, as progressive widening continues a node's turn list, returns bit for bit what a fresh
// generation of the same size returns from the same turn on, on seeded random positions of both
// pitch sizes and all three variants; and it starts over (never continues wrongly) when the
// position, the logits, the options or its size cap do not allow it to go on.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "engine/random_positions.h"
#include "engine/turns.h"

using namespace ps;

namespace {

std::vector<float> random_logits(const Position& pos, std::mt19937_64& rng, double spread) {
  std::vector<float> logits(size_t(pos.pitch().num_points()) * 8);
  std::normal_distribution<double> normal(0, spread);
  for (auto& x : logits) x = float(normal(rng));
  return logits;
}

// r (a resumed call) must hold fresh's turns from r.first_turn on, and the same counters.
void require_same_tail(const BestFirstResult& r, const BestFirstResult& fresh) {
  REQUIRE(r.first_turn <= int64_t(fresh.turns.size()));
  REQUIRE(r.turns.size() == fresh.turns.size() - size_t(r.first_turn));
  for (size_t k = 0; k < r.turns.size(); ++k) {
    const Turn& a = r.turns[k];
    const Turn& b = fresh.turns[size_t(r.first_turn) + k];
    REQUIRE(a.kicks == b.kicks);
    REQUIRE(a.hash == b.hash);
    REQUIRE(a.winner == b.winner);
    REQUIRE(a.reason == b.reason);
    REQUIRE(a.prior == b.prior);  // bit for bit, summed chains included
  }
  REQUIRE(r.remaining_mass == fresh.remaining_mass);
  REQUIRE(r.dropped_mass == fresh.dropped_mass);
  REQUIRE(r.expansions == fresh.expansions);
  REQUIRE(r.complete == fresh.complete);
}

struct Step {
  int max_turns;
  double min_mass;
};

// The search's schedule (mcts.cpp): an expansion of initial_turns with the widening mass cut,
// widenings to at least twice as many, a root's list without the cut, then everything.
const Step kSchedule[] = {{12, 1e-3}, {24, 1e-3}, {48, 1e-3}, {64, 0.0}, {200, 0.0}, {1 << 30, 0.0}};

}  // namespace

TEST_CASE("a resumed best-first generation equals a fresh one of the same size") {
  const Pitch* pitches[] = {&Pitch::get(8, 10, 2), &Pitch::get(8, 12, 2)};
  const Variant variants[] = {Variant::kStandard, Variant::kSingleBounce, Variant::kNoBounce};
  std::mt19937_64 rng(2026);
  int resumed_calls = 0, merged_generations = 0, positions_seen = 0;
  for (const Pitch* pitch : pitches) {
    for (Variant variant : variants) {
      const auto positions = random_positions(*pitch, variant, 12, 77 + uint64_t(variant), 60);
      for (const Position& pos : positions) {
        ++positions_seen;
        const auto logits = random_logits(pos, rng, positions_seen % 2 ? 1.0 : 2.5);
        for (bool sum_chains : {true, false}) {
          for (bool greedy : {true, false}) {
            INFO(pitch->name() << " " << variant_name(variant) << " sum_chains " << sum_chains << " greedy "
                               << greedy << " position " << positions_seen);
            BestFirstOptions opt;
            opt.sum_chains = sum_chains;
            opt.greedy_completion = greedy;
            opt.max_expansions = 20000;
            BestFirstState state;
            BestFirstResult r;
            int64_t returned = 0;
            for (const Step& step : kSchedule) {
              opt.max_turns = step.max_turns;
              opt.min_remaining_mass = step.min_mass;
              const bool could_resume = !state.empty();
              best_first_turns(pos, logits.data(), opt, &state, size_t(64) << 20, &r);
              const BestFirstResult fresh = best_first_turns(pos, logits.data(), opt);
              if (could_resume) {
                // The schedule only loosens the rules, so a saved generation always goes on.
                REQUIRE(r.first_turn == returned);
                ++resumed_calls;
              } else {
                REQUIRE(r.first_turn == 0);
              }
              require_same_tail(r, fresh);
              returned = r.first_turn + int64_t(r.turns.size());
              REQUIRE(state.empty() == r.complete);
              if (!state.empty()) CHECK(state.turns() == returned);
              if (r.complete) {
                if (sum_chains && r.dropped_mass > 0) ++merged_generations;
                break;
              }
            }
          }
        }
      }
    }
  }
  // The comparison covered many continued generations, with chains merging mid-turn.
  CHECK(positions_seen == 72);
  CHECK(resumed_calls >= 300);
  CHECK(merged_generations >= 20);
}

TEST_CASE("a best-first generation starts over when it cannot go on") {
  std::mt19937_64 rng(5);
  const auto positions = random_positions(Pitch::standard(), Variant::kStandard, 30, 11, 40);
  int checked = 0;
  for (size_t i = 0; i + 1 < positions.size(); ++i) {
    const Position& pos = positions[i];
    const auto logits = random_logits(pos, rng, 1.5);
    BestFirstOptions opt;
    opt.max_turns = 4;
    opt.min_remaining_mass = 1e-3;
    BestFirstState state;
    BestFirstResult r;
    best_first_turns(pos, logits.data(), opt, &state, size_t(1) << 20, &r);
    if (r.complete) {
      CHECK(state.empty());
      continue;
    }
    ++checked;
    REQUIRE(!state.empty());
    const size_t saved_bytes = state.bytes();
    auto expect_fresh = [&](const Position& p, const float* lg, const BestFirstOptions& o) {
      BestFirstState copy;
      // A copy of the saved state: each case below starts from the same one.
      best_first_turns(pos, logits.data(), opt, &copy, size_t(1) << 20, &r);
      REQUIRE(copy.bytes() == saved_bytes);
      best_first_turns(p, lg, o, &copy, size_t(1) << 20, &r);
      CHECK(r.first_turn == 0);
      require_same_tail(r, best_first_turns(p, lg, o));
    };
    // Options for 8 turns, changed by `change`.
    auto more_turns = [&](auto change) {
      BestFirstOptions o = opt;
      o.max_turns = 8;
      change(o);
      return o;
    };
    // A stricter mass cut than the one the generation went past could have stopped it earlier.
    expect_fresh(pos, logits.data(), more_turns([](BestFirstOptions& o) { o.min_remaining_mass = 1.0; }));
    // As many turns as it has already, or fewer expansions than it made.
    expect_fresh(pos, logits.data(), more_turns([](BestFirstOptions& o) { o.max_turns = 3; }));
    expect_fresh(pos, logits.data(), more_turns([](BestFirstOptions& o) { o.max_expansions = 1; }));
    // Other priors rules.
    expect_fresh(pos, logits.data(), more_turns([](BestFirstOptions& o) { o.sum_chains = !o.sum_chains; }));
    expect_fresh(pos, logits.data(),
                 more_turns([](BestFirstOptions& o) { o.greedy_completion = !o.greedy_completion; }));
    // Other logits (one value changed), another position.
    const BestFirstOptions more = more_turns([](BestFirstOptions&) {});
    auto changed = logits;
    changed[size_t(pos.ball()) * 8] += 0.25f;
    expect_fresh(pos, changed.data(), more);
    // Any one float: the first, two in the middle (other lanes of the logits' fingerprint) and
    // the last.
    for (size_t k : {size_t(0), logits.size() / 2 + 1, logits.size() / 2 + 2, logits.size() - 1}) {
      auto one = logits;
      one[k] = -one[k] - 1.0f;
      expect_fresh(pos, one.data(), more);
    }
    const Position& next = positions[i + 1];
    const auto next_logits = random_logits(next, rng, 1.5);
    expect_fresh(next, next_logits.data(), more);
    // The same call with looser rules does go on.
    best_first_turns(pos, logits.data(), more, &state, size_t(1) << 20, &r);
    CHECK(r.first_turn == 4);
  }
  CHECK(checked >= 20);
}

TEST_CASE("a best-first state over its size cap is not kept, and the next call starts over") {
  std::mt19937_64 rng(8);
  const auto positions = random_positions(Pitch::get(8, 12, 2), Variant::kSingleBounce, 20, 3, 30);
  int over = 0;
  for (const Position& pos : positions) {
    const auto logits = random_logits(pos, rng, 1.0);
    BestFirstOptions opt;
    opt.max_turns = 6;
    BestFirstState state;
    BestFirstResult r;
    best_first_turns(pos, logits.data(), opt, &state, size_t(1) << 20, &r);
    if (r.complete) continue;
    const size_t need = state.bytes();
    REQUIRE(need > 0);
    REQUIRE(need <= size_t(1) << 20);
    // One byte less than this generation's saved form: not kept.
    state.clear();
    best_first_turns(pos, logits.data(), opt, &state, need - 1, &r);
    CHECK(state.empty());
    CHECK(state.bytes() == 0);
    opt.max_turns = 12;
    best_first_turns(pos, logits.data(), opt, &state, need - 1, &r);
    CHECK(r.first_turn == 0);
    require_same_tail(r, best_first_turns(pos, logits.data(), opt));
    CHECK(state.bytes() <= need - 1);
    ++over;
  }
  CHECK(over >= 10);
}

TEST_CASE("a finished position has no turns and keeps no best-first state") {
  Position pos(Pitch::standard(), Variant::kStandard);
  // The lowest legal direction until the game ends (each kick draws a segment: it ends).
  std::mt19937_64 rng(1);
  while (!pos.game_over()) pos.make_kick(__builtin_ctz(pos.legal_kicks()));
  const auto logits = random_logits(pos, rng, 1.0);
  BestFirstState state;
  BestFirstResult r;
  best_first_turns(pos, logits.data(), BestFirstOptions{}, &state, size_t(1) << 20, &r);
  CHECK(r.complete);
  CHECK(r.turns.empty());
  CHECK(state.empty());
}
