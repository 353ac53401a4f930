// Turn generation: listing vs counting, representatives, best-first priors, win/lose checks.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <map>
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
    // With sum_chains the chains through already expanded mid-turn positions are merged into
    // the turns below them: the priors of a complete enumeration sum to 1.
    CHECK(std::abs(sum - 1.0) < 1e-5);
    // Without, the first chain's probability only: the merged mass is what is missing.
    BestFirstOptions first = opt;
    first.sum_chains = false;
    auto f = best_first_turns(pos, logits.data(), first);
    double fsum = 0;
    for (auto& t : f.turns) fsum += t.prior;
    CHECK(std::abs(fsum + f.dropped_mass - 1.0) < 1e-5);
  }
}

namespace {

// Reference: every kick chain from `pos` by plain recursion, each turn's summed and best chain
// probability under the per-kick softmax of `logits` (independent of best_first_turns).
void all_chains(Position& pos, const std::vector<float>& logits, double p, int kicks,
                std::map<uint64_t, std::pair<double, double>>& out) {
  if (kicks > 0 && (pos.game_over() || pos.turn_start())) {
    auto& e = out[pos.hash()];
    e.first += p;
    e.second = std::max(e.second, p);
    return;
  }
  const float* lg = logits.data() + size_t(pos.ball()) * 8;
  double z = 0;
  for (unsigned m = pos.legal_kicks(); m; m &= m - 1) z += std::exp(double(lg[__builtin_ctz(m)]));
  for (unsigned m = pos.legal_kicks(); m; m &= m - 1) {
    const int d = __builtin_ctz(m);
    const KickUndo u = pos.make_kick(d);
    all_chains(pos, logits, p * std::exp(double(lg[d])) / z, kicks + 1, out);
    pos.unmake_kick(u);
  }
}

}  // namespace

TEST_CASE("best-first priors: summed chains equal the exact turn probabilities") {
  std::mt19937_64 rng(15);
  int merged_positions = 0;
  TurnGenerator gen;
  for (const Position& start : random_positions(60, 4)) {
    if (gen.count(start).chains > 100000) continue;  // keep the plain recursion quick
    std::vector<float> logits(size_t(start.pitch().num_points()) * 8);
    for (auto& x : logits) x = float(std::normal_distribution<double>(0, 1.0)(rng));
    std::map<uint64_t, std::pair<double, double>> exact;
    Position pos = start;
    all_chains(pos, logits, 1.0, 0, exact);
    BestFirstOptions opt;
    opt.max_turns = 1 << 30;
    for (bool greedy : {true, false}) {
      opt.greedy_completion = greedy;
      opt.sum_chains = true;
      auto res = best_first_turns(start, logits.data(), opt);
      REQUIRE(res.complete);
      REQUIRE(res.turns.size() == exact.size());
      if (res.dropped_mass > 0) ++merged_positions;
      for (const auto& t : res.turns) CHECK(t.prior == Approx(exact.at(t.hash).first).epsilon(1e-4));
    }
    // Strict best-first without summing: the first chain found is the best one.
    opt.greedy_completion = false;
    opt.sum_chains = false;
    auto best = best_first_turns(start, logits.data(), opt);
    for (const auto& t : best.turns) CHECK(t.prior == Approx(exact.at(t.hash).second).epsilon(1e-4));
  }
  // Positions where chains really merge mid-turn were among them (else this proves little).
  CHECK(merged_positions >= 10);
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
