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

TEST_CASE("best-first into a reused result equals a fresh result, call after call") {
  std::mt19937_64 rng(9);
  BestFirstResult reused;
  const auto positions = random_positions(60, 12);
  for (size_t i = 0; i < positions.size(); ++i) {
    const Position& pos = positions[i];
    std::vector<float> logits(size_t(pos.pitch().num_points()) * 8);
    for (auto& x : logits) x = float(std::normal_distribution<double>(0, 1.5)(rng));
    BestFirstOptions opt;
    opt.max_turns = i % 3 == 0 ? 200 : 4;  // large and small lists alternate
    opt.sum_chains = i % 2 == 0;
    const BestFirstResult fresh = best_first_turns(pos, logits.data(), opt);
    best_first_turns(pos, logits.data(), opt, &reused);
    REQUIRE(reused.turns.size() == fresh.turns.size());
    for (size_t k = 0; k < fresh.turns.size(); ++k) {
      CHECK(reused.turns[k].kicks == fresh.turns[k].kicks);
      CHECK(reused.turns[k].hash == fresh.turns[k].hash);
      CHECK(reused.turns[k].prior == fresh.turns[k].prior);
      CHECK(reused.turns[k].winner == fresh.turns[k].winner);
    }
    CHECK(reused.remaining_mass == fresh.remaining_mass);
    CHECK(reused.dropped_mass == fresh.dropped_mass);
    CHECK(reused.expansions == fresh.expansions);
    CHECK(reused.complete == fresh.complete);
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

// Regression: all_turns_lose returned true ("every turn loses", a proven win for the search)
// when the state budget stopped its search before it reached a turn that does not lose.
TEST_CASE("all_turns_lose proves nothing when the state budget runs out") {
  // 18 turns of a random game (8x10 standard), one turn per space-separated group.
  Position pos(Pitch::standard(), Variant::kStandard);
  for (char c : std::string("5 4 5 4 41 1 6 033 0 0 1 7 5 03 24 5610660 222 5366"))
    if (c != ' ') pos.make_kick(c - '0');
  REQUIRE_FALSE(pos.game_over());
  TurnGenerator full, small;
  REQUIRE_FALSE(full.all_turns_lose(pos));
  REQUIRE(full.last_search_complete());
  small.set_state_budget(1);
  // Standard is now decided by relaxed reachability, without a search: exact under any
  // budget. (The budget's case outside standard: the next test's positions with no plain
  // kick, at a budget of 0.)
  CHECK_FALSE(small.all_turns_lose(pos));
  CHECK(small.last_search_complete());
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

TEST_CASE("all_turns_lose tries the kicks that end the turn first: no state for a plain kick") {
  // Every position where some kick from the ball ends the turn without losing: the check
  // answers there before it holds one mid-turn position, so even a budget of 0 states proves
  // it (a depth-first search in direction order could first dive into a bounce).
  TurnGenerator check, full;
  check.set_state_budget(0);
  int plain = 0, bounce_only = 0, stopped = 0;
  for (const Position& pos : random_positions(600, 21)) {
    const int mover = pos.side_to_move();
    bool safe_plain_kick = false;
    for (unsigned m = pos.legal_kicks(); m; m &= m - 1) {
      Position p = pos;
      p.make_kick(__builtin_ctz(m));
      const bool ends = p.game_over() || p.turn_start() || p.side_to_move() != mover;
      safe_plain_kick |= ends && !(p.game_over() && p.winner() != mover);
    }
    const bool lose = check.all_turns_lose(pos);
    if (safe_plain_kick) {
      ++plain;
      CHECK_FALSE(lose);
      CHECK(check.last_search_complete());
    } else {
      ++bounce_only;
      const auto turns = full.generate(pos);
      bool all_lose = true;
      for (const auto& t : turns) all_lose &= t.winner >= 0 && t.winner != mover;
      // No plain way out: a bounce needs a state, so the budget of 0 stops the search, which
      // then proves nothing (complete only when no kick bounces) ...
      if (check.last_search_complete()) {
        CHECK(lose == all_lose);
      } else {
        ++stopped;
        CHECK(pos.variant() != Variant::kStandard);  // standard needs no search
        CHECK_FALSE(lose);
      }
      // ... and with the default budget it agrees with the full turn list.
      CHECK(full.all_turns_lose(pos) == all_lose);
      CHECK(full.last_search_complete());
    }
  }
  CHECK(plain > 100);
  CHECK(bounce_only > 5);  // the sample must exercise both cases
  CHECK(stopped > 0);
}

TEST_CASE("standard win checks are exact without a search budget, the chain legal") {
  // Relaxed reachability decides both checks in standard; with a budget of 1 state the search
  // for the first winning chain stops early and the reachability's path is the chain.
  TurnGenerator gen, tight, plain;
  tight.set_state_budget(1);
  int wins = 0, from_path = 0;
  for (const Position& pos : random_positions(1500, 33)) {
    if (pos.variant() != Variant::kStandard) continue;
    const int mover = pos.side_to_move();
    bool any_win = false, all_lose = true;
    for (const auto& t : gen.generate(pos)) {
      any_win |= t.winner == mover;
      all_lose &= t.winner >= 0 && t.winner != mover;
    }
    REQUIRE(tight.find_winning_turn(pos) == any_win);
    REQUIRE(tight.last_search_complete());
    REQUIRE(tight.all_turns_lose(pos) == all_lose);
    REQUIRE(tight.last_search_complete());
    std::string kicks, first;
    REQUIRE(tight.find_winning_turn(pos, &kicks) == any_win);
    if (!any_win) continue;
    ++wins;
    CHECK(play(pos, kicks).winner() == mover);
    REQUIRE(plain.find_winning_turn(pos, &first));
    from_path += kicks != first;
  }
  CHECK(wins > 20);
  CHECK(from_path > 0);  // the budget of 1 stopped some searches: the path was used
}

TEST_CASE("perft from the start positions") {
  CHECK(perft(Position(Pitch::standard(), Variant::kStandard), 1) == 8);
  CHECK(perft(Position(Pitch::standard(), Variant::kStandard), 3) == 512);
  CHECK(perft(Position(Pitch::standard(), Variant::kNoBounce), 3) == 392);
  CHECK(perft(Position(Pitch::standard(), Variant::kStandard), 0) == 1);
}

namespace {
// The 433,648-turn position of the engine issue (8x10 standard, flat kick list).
constexpr const char* kHeavy433648 =
    "13064113570225017036575014630745741422243523574227742164435274617703502106741745431672745757"
    "134661453130361";
}  // namespace

TEST_CASE("enumeration limit: a position over it stops early, holds at most the limit, "
          "and reports a subset of the turns") {
  const Game g = parse_kicks(Pitch::standard(), Variant::kStandard, kHeavy433648);
  TurnGenerator full;
  full.set_enumeration_limit(int64_t(1) << 26);
  const auto all = full.count(g.position());
  REQUIRE(all.complete);
  REQUIRE(all.distinct == 433648);
  TurnGenerator gen;
  gen.set_enumeration_limit(50000);
  std::set<uint64_t> ends;
  const auto st = gen.for_each_turn(g.position(), [&](const Position& end, const uint8_t* k, int n) {
    ends.insert(end.hash());
    Position p = g.position();
    for (int i = 0; i < n; ++i) p.make_kick(k[i]);
    CHECK(p.hash() == end.hash());
  });
  CHECK_FALSE(st.complete);
  CHECK(gen.states_held() <= 50000);
  CHECK(ends.size() == st.distinct);
  CHECK(st.distinct < all.distinct);
  // The same generator, back under its limit, is exact again.
  const Position start(Pitch::standard(), Variant::kStandard);
  const auto small = gen.count(start);
  CHECK(small.complete);
  CHECK(small.distinct == 8);
}

TEST_CASE("stop(): the enumeration ends at the turn that asked, and the next one is whole again") {
  // Alpha-beta's frontier cut asks for no more turns once one reaches beta.
  const Game g = parse_kicks(Pitch::standard(), Variant::kStandard, kHeavy433648);
  TurnGenerator gen;
  gen.set_enumeration_limit(int64_t(1) << 26);
  const uint64_t k0 = gen.kicks_made();
  const auto all = gen.count(g.position());
  REQUIRE(all.complete);
  const uint64_t full_kicks = gen.kicks_made() - k0;
  std::vector<std::string> seen;
  const uint64_t k1 = gen.kicks_made();
  const auto st = gen.for_each_turn(g.position(), [&](const Position&, const uint8_t* k, int n) {
    seen.emplace_back(k, k + n);
    if (seen.size() == 3) gen.stop();
  });
  CHECK(st.stopped);
  CHECK_FALSE(st.complete);
  CHECK(st.distinct == 3);
  CHECK(seen.size() == 3);
  CHECK(gen.kicks_made() - k1 < full_kicks / 100);
  // The first three turns of a whole enumeration, in the same order.
  std::vector<std::string> first;
  gen.for_each_turn(g.position(), [&](const Position&, const uint8_t* k, int n) {
    if (first.size() < 3) first.emplace_back(k, k + n);
  });
  CHECK(first == seen);
  const auto again = gen.count(g.position());
  CHECK(again.complete);
  CHECK_FALSE(again.stopped);
  CHECK(again.distinct == all.distinct);
}

TEST_CASE("perft: exact under the state limit, StateLimitError over it (never unbounded)") {
  const Position start(Pitch::standard(), Variant::kStandard);
  CHECK(perft(start, 3, nullptr, 1000) == 512);
  CHECK_THROWS_AS(perft(start, 3, nullptr, 10), StateLimitError);
  const Game g = parse_kicks(Pitch::standard(), Variant::kStandard, kHeavy433648);
  try {
    perft(g.position(), 1, nullptr, 100000);
    FAIL("no StateLimitError");
  } catch (const StateLimitError& e) {
    CHECK(std::string(e.what()).find("more than 100000 mid-turn positions") != std::string::npos);
  }
  CHECK(perft(g.position(), 1, nullptr, int64_t(1) << 26) == 433648);
}

TEST_CASE("random_turn and first_turn: one legal whole turn, avoiding a kick that loses at once") {
  std::mt19937_64 rng(11);
  TurnGenerator gen;
  for (const Position& pos : random_positions(300, 5)) {
    Position end = pos;
    const std::string r = random_turn(pos, rng, &end);
    const Position replay = play(pos, r);
    CHECK(replay.hash() == end.hash());
    CHECK((end.game_over() || end.turn_start()));
    Position fend = pos;
    const std::string f = first_turn(pos, &fend);
    CHECK(play(pos, f).hash() == fend.hash());
    // When some turn does not lose at once, neither walk ends its turn with a kick that could
    // have been avoided at its last step... checked weakly: a non-losing turn exists and the
    // first-turn walk only loses when every kick at some point of its chain loses.
    if (!gen.all_turns_lose(pos) && gen.last_search_complete() && fend.game_over() &&
        fend.winner() != pos.side_to_move()) {
      // The last kick was forced to lose: every legal kick before it lost at once.
      Position before = pos;
      for (size_t i = 0; i + 1 < f.size(); ++i) before.make_kick(f[i] - '0');
      for (unsigned m = before.legal_kicks(); m; m &= m - 1) {
        Position p = before;
        p.make_kick(__builtin_ctz(m));
        CHECK((p.game_over() && p.winner() != pos.side_to_move()));
      }
    }
  }
  const Position over = parse_record(Pitch::standard(), Variant::kStandard,
                                     "0 3 66 5 3 4 1 66 06 1 3 536 10607 53344 47 212 00 7413 63 05253 45")
                            .position();
  REQUIRE(over.game_over());
  CHECK_THROWS_AS(random_turn(over, rng), std::invalid_argument);
  CHECK_THROWS_AS(first_turn(over), std::invalid_argument);
}
