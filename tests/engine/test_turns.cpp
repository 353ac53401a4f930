// Turn generation: listing vs counting, representatives, best-first priors, win/lose checks.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <set>

#include "engine/record.h"
#include "engine/turns.h"
#include "tests/common/random_games.h"

using namespace ps;

namespace {

Position play(const Position& pos, const std::string& kicks) {
  Position p = pos;
  for (char c : kicks) {
    REQUIRE(p.is_legal(c - '0'));
    REQUIRE(!(p.turn_start() && p.num_kicks() != pos.num_kicks()));  // no turn boundary inside
    p.make_kick(c - '0');
  }
  return p;
}

std::vector<Position> random_positions(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  const Pitch* pitches[] = {&Pitch::get(8, 10, 2), &Pitch::get(8, 12, 2)};
  const Variant variants[] = {Variant::kStandard, Variant::kSingleBounce, Variant::kNoBounce};
  while (int(out.size()) < n) {
    const Pitch& pitch = *pitches[rng() % 2];
    Variant v = variants[rng() % 3];
    Game g = testing::random_game(pitch, v, int(rng() % 40), rng);
    if (!g.position().game_over()) out.push_back(g.position());
  }
  return out;
}

}  // namespace

TEST_CASE("representative kick strings replay to their turn's end position") {
  TurnGenerator gen;
  for (const Position& pos : random_positions(60, 1)) {
    TurnGenerator::Stats st;
    auto turns = gen.generate(pos, &st);
    REQUIRE(turns.size() == st.distinct);
    REQUIRE(st.chains >= st.distinct);
    std::set<uint64_t> hashes;
    std::string prev;
    for (auto& t : turns) {
      Position end = play(pos, t.kicks);
      CHECK((end.game_over() || end.turn_start()));
      CHECK(end.hash() == t.hash);
      CHECK(end.winner() == t.winner);
      hashes.insert(t.hash);
      CHECK(prev < t.kicks);  // depth-first in direction order: lexicographic
      prev = t.kicks;
    }
    CHECK(hashes.size() == turns.size());
    CHECK(perft(pos, 1) == st.distinct);
  }
}

TEST_CASE("best-first with a full budget finds every turn, priors sum to 1") {
  std::mt19937_64 rng(5);
  TurnGenerator gen;
  for (const Position& pos : random_positions(40, 2)) {
    std::vector<float> logits(size_t(pos.pitch().num_points()) * 8);
    for (auto& x : logits) x = float(std::normal_distribution<double>(0, 1.5)(rng));
    auto all = gen.generate(pos);
    BestFirstOptions opt;
    opt.max_turns = 1 << 30;
    auto res = best_first_turns(pos, logits.data(), opt);
    REQUIRE(res.complete);
    REQUIRE(res.turns.size() == all.size());
    double sum = 0;
    std::set<uint64_t> a, b;
    for (auto& t : res.turns) {
      sum += t.prior;
      b.insert(t.hash);
    }
    for (auto& t : all) a.insert(t.hash);
    CHECK(a == b);
    // Mass of chains through already expanded mid-turn positions is dropped, the rest is
    // accounted for.
    CHECK(std::abs(sum + res.dropped_mass - 1.0) < 1e-5);
  }
}

TEST_CASE("best-first emits turns in non-increasing probability and stops on budget") {
  std::mt19937_64 rng(6);
  for (const Position& pos : random_positions(30, 3)) {
    std::vector<float> logits(size_t(pos.pitch().num_points()) * 8);
    for (auto& x : logits) x = float(std::normal_distribution<double>(0, 2.0)(rng));
    BestFirstOptions opt;
    opt.sum_chains = false;         // priors are then the best chain, emitted in order
    opt.greedy_completion = false;  // strict best-first
    opt.max_turns = 10;
    auto res = best_first_turns(pos, logits.data(), opt);
    REQUIRE(!res.turns.empty());
    CHECK(res.turns.size() <= 10);
    for (size_t i = 1; i < res.turns.size(); ++i)
      CHECK(res.turns[i].prior <= res.turns[i - 1].prior * (1 + 1e-6f));
    double emitted = 0;
    for (auto& t : res.turns) emitted += t.prior;
    CHECK(emitted + res.remaining_mass <= 1.0 + 1e-6);
    // Mass threshold: stop once less than 50% is left unexplored.
    BestFirstOptions half;
    half.max_turns = 1 << 30;
    half.min_remaining_mass = 0.5;
    auto h = best_first_turns(pos, logits.data(), half);
    CHECK((h.complete || h.remaining_mass < 0.5));
    // Greedy completion: the first turn is the chain of most probable kicks.
    BestFirstOptions greedy;
    greedy.max_turns = 1;
    auto g = best_first_turns(pos, logits.data(), greedy);
    REQUIRE(g.turns.size() == 1);
    Position p = pos;
    std::string expect;
    while (!(p.num_kicks() > pos.num_kicks() && (p.game_over() || p.turn_start()))) {
      int best = -1;
      for (unsigned m = p.legal_kicks(); m; m &= m - 1) {
        int d = __builtin_ctz(m);
        if (best < 0 || logits[size_t(p.ball()) * 8 + size_t(d)] > logits[size_t(p.ball()) * 8 + size_t(best)])
          best = d;
      }
      expect.push_back(char('0' + best));
      p.make_kick(best);
    }
    CHECK(g.turns[0].kicks == expect);
  }
}

TEST_CASE("win check and all-turns-lose agree with the full turn list") {
  TurnGenerator gen, check;
  int wins = 0, losses = 0;
  for (const Position& pos : random_positions(400, 4)) {
    auto turns = gen.generate(pos);
    const int mover = pos.side_to_move();
    bool any_win = false, all_lose = true;
    for (auto& t : turns) {
      any_win |= t.winner == mover;
      all_lose &= t.winner >= 0 && t.winner != mover;
    }
    std::string kicks;
    REQUIRE(check.find_winning_turn(pos, &kicks) == any_win);
    if (any_win) {
      ++wins;
      CHECK(play(pos, kicks).winner() == mover);
    }
    REQUIRE(check.all_turns_lose(pos) == all_lose);
    losses += all_lose;
  }
  CHECK(wins > 5);  // the sample must exercise the positive case
}

TEST_CASE("perft from the start positions") {
  CHECK(perft(Position(Pitch::standard(), Variant::kStandard), 1) == 8);
  CHECK(perft(Position(Pitch::standard(), Variant::kStandard), 3) == 512);
  CHECK(perft(Position(Pitch::standard(), Variant::kNoBounce), 3) == 392);
  CHECK(perft(Position(Pitch::standard(), Variant::kStandard), 0) == 1);
}
