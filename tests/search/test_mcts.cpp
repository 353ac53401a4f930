// The PUCT search: legality over many random positions, reproducibility, backup signs against
// pure UCT, threads, tree reuse, progressive widening on a huge position, bad input.
#include <catch2/catch.hpp>

#include <chrono>
#include <map>
#include <random>
#include <stdexcept>
#include <tuple>

#include "engine/render.h"
#include "search/baselines.h"
#include "search/fixed_cost_evaluator.h"
#include "search/mcts.h"
#include "tests/search/helpers.h"

using namespace ps;
using namespace ps::test;

namespace {

struct Rules {
  int length;
  Variant variant;
};
const Rules kRules[] = {{10, Variant::kStandard},     {10, Variant::kSingleBounce},
                        {10, Variant::kNoBounce},     {12, Variant::kStandard},
                        {12, Variant::kSingleBounce}, {12, Variant::kNoBounce}};

// Turn-start positions of random games (uniformly random turns), `per_rules` of each rule set.
std::vector<Game> random_positions(int per_rules, uint64_t seed) {
  std::vector<Game> out;
  RandomPlayer rp(seed);
  for (const Rules& r : kRules) {
    int n = 0;
    while (n < per_rules) {
      Game g(Pitch::get(8, r.length, 2), r.variant);
      while (!g.position().game_over() && n < per_rules) {
        out.push_back(g);
        ++n;
        g.play_turn(rp.choose_turn(g, {}));
      }
    }
  }
  return out;
}

// The heavy position of the engine benchmark (8x10 standard): over 100,000 distinct turns.
constexpr const char* kHeavyKicks =
    "13064113570225017036575014630745741422243523574227742164435274617703502106741745431672745757"
    "134661453130361";

}  // namespace

TEST_CASE("mcts: never returns an illegal turn over thousands of random positions", "[search]") {
  const std::vector<Game> games = random_positions(350, 11);  // 2100 positions
  REQUIRE(games.size() == 2100);
  FixedCostEvaluator ev(0, 0.5f, 2.0f, 3);
  SearchParams sp;
  sp.leaf_batch = GENERATE(1, 8);
  sp.reuse_tree = false;
  sp.initial_turns = 4;  // small lists so that widening happens often
  sp.widen_per_sqrt_visit = 2.0;
  sp.root_initial_turns = 4;
  Search search(ev, sp, 1);
  int proven = 0;
  for (const Game& g : games) {
    const SearchResult r = search.run(g.position(), SearchLimits{24, -1});
    INFO(render_ascii(g.position()) << "\nplayed " << r.best_turn);
    REQUIRE(is_legal_turn(g, r.best_turn));
    REQUIRE(r.best_index() >= 0);
    for (const RootChild& c : r.children) REQUIRE(is_legal_turn(g, c.kicks));
    int64_t sum = 0;
    for (const RootChild& c : r.children) sum += c.visits;
    REQUIRE(sum == r.root_visits - 1);  // the root's own evaluation is its first visit
    proven += r.root_proven != 0;
  }
  CHECK(proven > 0);  // random games contain decided positions; the solver sees some
}

TEST_CASE("mcts: a fixed seed with one thread reproduces the search exactly", "[search]") {
  SearchParams sp;
  sp.leaf_batch = GENERATE(1, 8);  // gathered leaves too
  sp.root_noise = true;
  sp.temperature = 1.0;
  sp.temperature_turns = 100;
  FixedCostEvaluator ev(0, 0.5f, 1.0f, 5);
  auto play = [&](uint64_t seed) {
    Search s(ev, sp, seed);
    Game g(Pitch::get(8, 12, 2), Variant::kStandard);
    std::vector<std::vector<int64_t>> visits;
    std::string record;
    for (int t = 0; t < 8 && !g.position().game_over(); ++t) {
      const SearchResult r = s.run(g.position(), SearchLimits{150, -1});
      std::vector<int64_t> v;
      for (const auto& c : r.children) v.push_back(c.visits);
      visits.push_back(v);
      g.play_turn(sample_turn(r, sp.temperature_at(t), s.rng()));
    }
    return std::make_pair(visits, g.record());
  };
  const auto a = play(42), b = play(42), c = play(43);
  REQUIRE(a == b);
  CHECK(a != c);  // the seed matters (noise and sampling)
}

TEST_CASE("mcts: with a uniform prior, visits converge toward pure UCT (backup signs)", "[search]") {
  // 8x12 single-bounce: 12 turns, one of which wins within two turns (see test_tactics).
  const Game g = parse_record(Pitch::get(8, 12, 2), Variant::kSingleBounce, "3 0 64 21 0 1 16 16");
  const Position& p = g.position();
  REQUIRE(count_wins_within_two(p) == 1);
  UniformEvaluator uniform;
  SearchParams sp;
  sp.solver = false;  // pure PUCT statistics, no early stop
  Search search(uniform, sp, 1);
  const SearchResult r = search.run(p, SearchLimits{3000, -1});
  REQUIRE(r.new_visits == 3000);
  UctPlayer uct(UctPlayer::Options{}, 2);
  const std::string uct_turn = uct.choose_turn(g, TurnBudget{-1, 3000});
  std::map<std::string, double> puct_share, uct_share;
  for (const auto& c : r.children) puct_share[c.kicks] = double(c.visits) / 3000.0;
  for (const auto& c : uct.last_root()) uct_share[c.kicks] = double(c.visits) / 3000.0;
  REQUIRE(puct_share.size() == uct_share.size());  // the same 12 turns
  INFO("PUCT best " << r.best_turn << " share " << puct_share[r.best_turn] << ", UCT best "
                    << uct_turn << " share " << uct_share[uct_turn]);
  REQUIRE(r.best_turn == uct_turn);
  REQUIRE(wins_within_two(p, r.best_turn));
  // Both put most of their visits on it, and rate the position as won for the side to move.
  REQUIRE(puct_share[r.best_turn] > 0.5);
  REQUIRE(uct_share[uct_turn] > 0.5);
  REQUIRE(r.root_value > 0.5f);
  // A wrong sign anywhere in the backup would push PUCT's visits away from the winning turn.
  double l1 = 0;
  for (const auto& [k, s] : puct_share) l1 += std::abs(s - uct_share[k]);
  CHECK(l1 < 0.8);
}

TEST_CASE("mcts: several threads on one tree keep the statistics consistent", "[search]") {
  const std::vector<Game> games = random_positions(4, 99);
  FixedCostEvaluator ev(20, 0.5f, 1.0f, 1);
  SearchParams sp;
  sp.num_threads = 4;
  sp.virtual_loss = 2;
  sp.leaf_batch = GENERATE(1, 4);
  Search search(ev, sp, 1);
  for (const Game& g : games) {
    const SearchResult r = search.run(g.position(), SearchLimits{400, -1});
    REQUIRE(is_legal_turn(g, r.best_turn));
    int64_t sum = 0;
    for (const auto& c : r.children) sum += c.visits;
    if (r.root_proven == 0) REQUIRE(r.new_visits == 400);
    REQUIRE(sum == r.root_visits - 1);
  }
}

TEST_CASE("mcts: tree reuse keeps the subtree of the position reached", "[search]") {
  FixedCostEvaluator ev(0, 0.5f, 1.0f, 2);
  SearchParams sp;
  Search search(ev, sp, 1);
  Game g(Pitch::standard(), Variant::kStandard);
  g.play_turn("4");
  const SearchResult r1 = search.run(g.position(), SearchLimits{600, -1});
  REQUIRE(r1.principal_variation.size() >= 2);
  g.play_turn(r1.principal_variation[0]);
  g.play_turn(r1.principal_variation[1]);
  const SearchResult r2 = search.run(g.position(), SearchLimits{100, -1});
  REQUIRE(r2.new_visits == 100);
  REQUIRE(r2.root_visits > 101);  // visits from the first search were kept
  int64_t sum = 0;
  for (const auto& c : r2.children) sum += c.visits;
  REQUIRE(sum == r2.root_visits - 1);
  // Without reuse the tree starts afresh.
  sp.reuse_tree = false;
  Search fresh(ev, sp, 1);
  fresh.run(g.position(), SearchLimits{50, -1});
  REQUIRE(fresh.run(g.position(), SearchLimits{100, -1}).root_visits == 101);
}

TEST_CASE("mcts: progressive widening keeps a 100,000-turn position cheap", "[search]") {
  const Game g = parse_kicks(Pitch::standard(), Variant::kStandard, kHeavyKicks);
  TurnGenerator gen;
  const uint64_t distinct = gen.count(g.position()).distinct;
  REQUIRE(distinct > 100000);
  FixedCostEvaluator ev(0, 0.5f, 1.0f, 4);
  SearchParams sp;
  Search search(ev, sp, 1);
  const auto t0 = std::chrono::steady_clock::now();
  const SearchResult r = search.run(g.position(), SearchLimits{200, -1});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(is_legal_turn(g, r.best_turn));
  REQUIRE(r.children.size() >= size_t(sp.root_initial_turns));
  REQUIRE(r.children.size() < 2000);
  CHECK(s < 5.0);
  // Priors come best-first: the generated turns carry non-increasing best-chain mass, so the
  // first root turn has the largest prior.
  for (const auto& c : r.children) REQUIRE(c.prior <= r.children.front().prior + 1e-6f);
}

TEST_CASE("mcts: bad input gives clear errors and leaves the search usable", "[search]") {
  UniformEvaluator uniform;
  Search search(uniform, SearchParams{}, 1);
  // A finished game.
  const Game over = parse_record(Pitch::standard(), Variant::kStandard,
                                 "0 6 1 7 5 332 3 4 6 12 16 364 275276 072 745 24 105366 5 4 5 31");
  Game done = over;
  std::string win;
  TurnGenerator gen;
  REQUIRE(gen.find_winning_turn(done.position(), &win));
  done.play_turn(win);
  REQUIRE_THROWS_AS(search.run(done.position()), std::invalid_argument);
  // The middle of a turn: a bounce off the trail.
  Position mid(Pitch::standard(), Variant::kStandard);
  mid.make_kick(kN);
  mid.make_kick(kE);
  mid.make_kick(kSW);  // lands back on the centre: bounces, same player kicks again
  REQUIRE(!mid.turn_start());
  REQUIRE_THROWS_AS(search.run(mid), std::invalid_argument);
  // Invalid parameters.
  SearchParams bad;
  bad.num_threads = 0;
  REQUIRE_THROWS_AS(Search(uniform, bad), std::invalid_argument);
  bad = SearchParams{};
  bad.dirichlet_fraction = 1.5;
  REQUIRE_THROWS_WITH(Search(uniform, bad), Catch::Contains("dirichlet_fraction"));

  // An evaluator that breaks: the error propagates, and the search works once it is fixed.
  struct Flaky : Evaluator {
    bool broken = true;
    void evaluate(const Position& pos, Evaluation& out) override {
      out.value = 0;
      out.policy_logits.assign(broken ? 5 : size_t(pos.pitch().num_points()) * 8, 0.0f);
    }
    std::string name() const override { return "flaky"; }
  } flaky;
  Search s2(flaky, SearchParams{}, 1);
  const Position start(Pitch::standard(), Variant::kStandard);
  REQUIRE_THROWS_WITH(s2.run(start, SearchLimits{10, -1}), Catch::Contains("policy logits"));
  flaky.broken = false;
  const SearchResult r = s2.run(start, SearchLimits{10, -1});
  REQUIRE(r.root_visits == 11);
  // Same with several threads.
  SearchParams mt;
  mt.num_threads = 3;
  Search s3(flaky, mt, 1);
  flaky.broken = true;
  REQUIRE_THROWS(s3.run(start, SearchLimits{50, -1}));
  flaky.broken = false;
  REQUIRE(s3.run(start, SearchLimits{50, -1}).root_visits == 51);
}

TEST_CASE("mcts: time budget is respected", "[search]") {
  FixedCostEvaluator ev(200, 0.5f, 1.0f, 4);  // 0.2 ms per evaluation
  Search search(ev, SearchParams{}, 1);
  const Position start(Pitch::standard(), Variant::kStandard);
  const auto t0 = std::chrono::steady_clock::now();
  const SearchResult r = search.run(start, SearchLimits{-1, 50});
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(r.new_visits > 10);
  REQUIRE(ms < 50 + 30);
}

TEST_CASE("mcts: sample_turn follows visits^(1/T) and never plays a proven loss", "[search]") {
  SearchResult r;
  r.children = {{"0", 100, 0.1f, 0.4f, 0}, {"1", 50, 0.0f, 0.3f, 0}, {"2", 0, 0.0f, 0.2f, 0},
                {"3", 300, -1.0f, 0.1f, -1}};
  r.best_turn = "0";
  std::mt19937_64 rng(1);
  REQUIRE(sample_turn(r, 0.0, rng) == "0");
  std::map<std::string, int> n;
  for (int i = 0; i < 3000; ++i) n[sample_turn(r, 1.0, rng)]++;
  REQUIRE(n["2"] == 0);
  REQUIRE(n["3"] == 0);
  CHECK(std::abs(n["0"] / 3000.0 - 2.0 / 3.0) < 0.05);
  n.clear();
  for (int i = 0; i < 1000; ++i) n[sample_turn(r, 0.25, rng)]++;  // (100/50)^4 = 16 : 1
  CHECK(n["0"] > 900);
  r.children.clear();
  REQUIRE_THROWS_AS(sample_turn(r, 1.0, rng), std::invalid_argument);
}

TEST_CASE("mcts: a reused root proven at its creation plays its scoring turn", "[search]") {
  // Regression: 6431 is proven lost when created (the opponent scores at once after it), so it
  // was never expanded and held no winning turn. Reached by tree reuse, the search listed the
  // root's turns by prior, skipped the search because the root was proven, and played 71467,
  // which does not score.
  FixedCostEvaluator ev(0, 0.5f, 2.0f, 3);
  Game g = parse_record(Pitch::standard(), Variant::kStandard,
                        "6 6 0 1 7 4 434 76 0 2561123 50 32 7600 53570 527211 43 3 5022 500 656772 0 "
                        "132 13 5 450175670533601 143 46120");
  SearchParams sp;
  Search search(ev, sp, 1);
  const SearchResult r1 = search.run(g.position(), SearchLimits{50, -1});
  bool proven_lost = false;
  for (const auto& c : r1.children)
    if (c.kicks == "6431") proven_lost = c.proven == -1 && c.visits == 0;
  REQUIRE(proven_lost);
  g.play_turn("6431");
  const int mover = g.position().side_to_move();
  const SearchResult r2 = search.run(g.position(), SearchLimits{50, -1});
  CHECK(r2.root_proven == 1);
  const Position end = after(g.position(), r2.best_turn);
  CHECK(end.game_over());
  CHECK(end.winner() == mover);
}

TEST_CASE("mcts: root_turn_options lists exactly the turns and priors a fresh root gets", "[search]") {
  // Regression: analyse said it generated turns as the search's root does, but cut them at
  // widen_min_remaining_mass and renormalised the priors; on the heavy position its list and
  // priors differed from the root's.
  const Game g = parse_kicks(Pitch::standard(), Variant::kStandard, kHeavyKicks);
  FixedCostEvaluator ev(0, 0.5f, 1.0f, 2);
  SearchParams sp;
  REQUIRE_FALSE(TurnGenerator().find_winning_turn(g.position()));
  Search search(ev, sp, 1);
  const SearchResult r = search.run(g.position(), SearchLimits{0, -1});
  Evaluation e;
  ev.evaluate(g.position(), e);
  const BestFirstResult listed = best_first_turns(g.position(), e.policy_logits.data(), root_turn_options(sp));
  REQUIRE(listed.turns.size() == r.children.size());
  double sum = 0;
  for (size_t i = 0; i < listed.turns.size(); ++i) {
    CHECK(listed.turns[i].kicks == r.children[i].kicks);
    CHECK(listed.turns[i].prior == r.children[i].prior);
    sum += listed.turns[i].prior;
  }
  CHECK(sum < 0.999);  // renormalising would have changed every prior
}

namespace {

// Counts evaluate() calls per position hash (forwards to a FixedCostEvaluator).
class CountingEvaluator final : public Evaluator {
 public:
  explicit CountingEvaluator(Evaluator& inner) : inner_(inner) {}
  void evaluate(const Position& pos, Evaluation& out) override {
    ++calls[pos.hash()];
    ++batch_sizes[1];
    inner_.evaluate(pos, out);
  }
  void evaluate_many(const Position* const* positions, size_t n, Evaluation* out) override {
    for (size_t i = 0; i < n; ++i) ++calls[positions[i]->hash()];
    ++batch_sizes[n];
    for (size_t i = 0; i < n; ++i) inner_.evaluate(*positions[i], out[i]);
  }
  std::string name() const override { return "counting"; }
  /// Checks that no position was evaluated twice; returns the number of positions evaluated.
  int64_t require_each_once() const {
    int64_t total = 0;
    for (const auto& [hash, n] : calls) {
      CHECK(n == 1);
      total += n;
    }
    return total;
  }
  std::map<uint64_t, int> calls;
  std::map<size_t, int> batch_sizes;  // calls by number of positions

 private:
  Evaluator& inner_;
};

}  // namespace

TEST_CASE("mcts: widening reuses the node's stored network output (one evaluation per position)",
          "[search]") {
  // Widening used to evaluate its node again for the logits of the extra turns: on a position
  // with many turns per node, every visit past the first asked the network again. The same
  // holds when leaves are gathered in batches (leaf_batch).
  const int leaf_batch = GENERATE(1, 8);
  INFO("leaf_batch " << leaf_batch);
  FixedCostEvaluator inner(0, 0.5f, 1.0f, 5);
  CountingEvaluator ev(inner);
  SearchParams sp;
  sp.initial_turns = 4;  // widen early and often
  sp.root_initial_turns = 8;
  sp.widen_min_remaining_mass = 0.0;
  sp.leaf_batch = leaf_batch;
  Search search(ev, sp, 1);
  Game g = parse_kicks(Pitch::standard(), Variant::kStandard, kHeavyKicks);
  const SearchResult r1 = search.run(g.position(), SearchLimits{400, -1});
  REQUIRE(r1.children.size() > size_t(sp.root_initial_turns));  // the root widened
  REQUIRE(ev.require_each_once() == r1.evaluations);
  REQUIRE(r1.evaluations <= r1.new_visits);
  REQUIRE(r1.new_visits == 400);  // gathering keeps the visit budget exact
  if (leaf_batch > 1) {
    // Most leaves went to the evaluator in batches of leaf_batch.
    int64_t batched = 0;
    for (const auto& [n, k] : ev.batch_sizes) {
      CHECK(n <= size_t(leaf_batch));
      if (n == size_t(leaf_batch)) batched += int64_t(n) * k;
    }
    CHECK(batched > r1.evaluations / 2);
  }
  // Tree reuse: the promoted root gets its root-sized turn list from its stored logits too.
  REQUIRE(r1.principal_variation.size() >= 3);
  g.play_turn(r1.principal_variation[0]);
  g.play_turn(r1.principal_variation[1]);
  ev.calls.clear();
  const SearchResult r2 = search.run(g.position(), SearchLimits{200, -1});
  CHECK(ev.calls.count(g.position().hash()) == 0);
  ev.require_each_once();
}

TEST_CASE("mcts: every root turn gets the win checks, lazily checked interior turns included",
          "[search]") {
  // Interior children get the opponent-win and all-replies-lose checks only at their first
  // visit; a root (fresh, or promoted by tree reuse) checks all of its turns, so a root turn
  // after which the opponent scores is proven lost without a visit and is never played.
  FixedCostEvaluator ev(0, 0.5f, 2.0f, 3);
  Game g = parse_record(Pitch::standard(), Variant::kStandard,
                        "6 6 0 1 7 4 434 76 0 2561123 50 32 7600 53570 527211 43 3 5022 500 656772 0 "
                        "132 13 5");
  SearchParams sp;
  Search search(ev, sp, 7);
  for (int move = 0; move < 6 && !g.position().game_over(); ++move) {
    const SearchResult r = search.run(g.position(), SearchLimits{120, -1});
    bool any_safe = false;
    for (const auto& c : r.children) {
      const Position end = after(g.position(), c.kicks);
      const bool hands_over = !end.game_over() && TurnGenerator().find_winning_turn(end);
      if (!hands_over && !(end.game_over() && end.winner() != g.position().side_to_move()))
        any_safe = true;
      if (c.visits == 0 && !end.game_over()) CHECK((c.proven == -1) == hands_over);
      if (hands_over) CHECK(c.proven == -1);
    }
    if (any_safe && r.root_proven != -1) CHECK(is_safe(g.position(), r.best_turn));
    g.play_turn(r.best_turn);
  }
}

TEST_CASE("mcts: a search without root noise uses the plain priors on a noisy search's tree",
          "[search]") {
  // Self-play's cheap searches (playout cap randomization) share the full searches' tree and
  // pass SearchLimits::root_noise = false: their visits must follow the same priors as a
  // search whose params have no noise at all.
  FixedCostEvaluator ev(0, 0.5f, 1.0f, 5);
  const Game g(Pitch::standard(), Variant::kStandard);
  SearchParams noisy = SearchParams{};
  noisy.root_noise = true;
  noisy.reuse_tree = false;
  SearchParams plain = noisy;
  plain.root_noise = false;
  Search a(ev, noisy, 3), b(ev, plain, 3);
  SearchLimits no_noise{200, -1};
  no_noise.root_noise = false;
  const SearchResult ra = a.run(g.position(), no_noise);
  const SearchResult rb = b.run(g.position(), SearchLimits{200, -1});
  REQUIRE(ra.children.size() == rb.children.size());
  for (size_t i = 0; i < ra.children.size(); ++i) REQUIRE(ra.children[i].visits == rb.children[i].visits);
  // With noise the visits differ.
  Search c(ev, noisy, 3);
  const SearchResult rc = c.run(g.position(), SearchLimits{200, -1});
  bool differ = false;
  for (size_t i = 0; i < rc.children.size() && i < rb.children.size(); ++i)
    differ = differ || rc.children[i].visits != rb.children[i].visits;
  CHECK(differ);
}

TEST_CASE("mcts: a game of full and cheap searches on one reused tree evaluates no position twice",
          "[search]") {
  // Self-play's layout (selfplay/selfplay.cpp): one Search per game, full searches with root
  // noise and cheap ones without, each turn reusing the tree of the one before. A root that
  // was a node of the previous tree, or a leaf evaluated there, must not go to the network
  // again; every call a search makes is counted in its SearchResult::evaluations.
  SearchParams sp;
  sp.root_noise = true;
  sp.leaf_batch = GENERATE(1, 8);
  INFO("leaf_batch " << sp.leaf_batch);
  FixedCostEvaluator inner(0, 0.5f, 1.0f, 11);
  CountingEvaluator ev(inner);
  Search search(ev, sp, 5);
  Game g(Pitch::standard(), Variant::kStandard);
  std::mt19937_64 rng(9);
  int64_t reported = 0;
  int searches = 0;
  for (; searches < 24 && !g.position().game_over(); ++searches) {
    SearchLimits lim;
    const bool full = searches % 4 == 0;
    lim.visits = full ? 64 : 16;
    lim.root_noise = full;
    const SearchResult r = search.run(g.position(), lim);
    reported += r.evaluations;
    g.play_turn(sample_turn(r, full ? 1.0 : 0.0, rng));
  }
  REQUIRE(searches >= 10);
  CHECK(ev.require_each_once() == reported);
}

TEST_CASE("mcts: widening that continues saved generations searches exactly as widening afresh", "[search]") {
  // A node's widening continues its saved best-first generation (engine/turns.h
  // BestFirstState) instead of listing its first turns again. The turns, their order and
  // priors are the same bit for bit, so a search with saved generations and one without
  // (budget 0: every widening lists the node's turns afresh, as before) must make the same
  // tree: same root turns, priors, visits, values, evaluations and nodes, over a game with tree
  // reuse, on both pitches and all variants, with and without summed chains.
  const int leaf_batch = GENERATE(1, 8);
  const bool sum_chains = GENERATE(true, false);
  INFO("leaf_batch " << leaf_batch << " sum_chains " << sum_chains);
  SearchParams sp;
  sp.initial_turns = 4;  // widen early and often
  sp.root_initial_turns = 8;
  sp.leaf_batch = leaf_batch;
  sp.sum_chains = sum_chains;
  sp.root_noise = true;
  FixedCostEvaluator ev(0, 0.5f, 1.0f, 3);
  int64_t resumed = 0;
  for (const Rules& rules : kRules) {
    INFO("8x" << rules.length << " " << variant_name(rules.variant));
    Search kept(ev, sp, 7), afresh(ev, sp, 7);
    kept.set_turn_state_budget(int64_t(256) << 20);
    afresh.set_turn_state_budget(0);
    Game g(Pitch::get(8, rules.length, 2), rules.variant);
    for (int t = 0; t < 12 && !g.position().game_over(); ++t) {
      const SearchLimits lim{t % 3 == 0 ? 200 : 60, -1, t % 3 == 0};
      const SearchResult a = kept.run(g.position(), lim);
      const SearchResult b = afresh.run(g.position(), lim);
      REQUIRE(b.resumed_generations == 0);
      resumed += a.resumed_generations;
      // Each root turn: its kicks, prior, visits, Q and proof, exactly.
      auto turns_of = [](const SearchResult& r) {
        std::vector<std::tuple<std::string, float, int64_t, float, int>> out;
        for (const RootChild& c : r.children) out.emplace_back(c.kicks, c.prior, c.visits, c.q, c.proven);
        return out;
      };
      REQUIRE(turns_of(a) == turns_of(b));
      REQUIRE(a.best_turn == b.best_turn);
      REQUIRE(a.root_value == b.root_value);
      REQUIRE(a.evaluations == b.evaluations);
      REQUIRE(a.tree_nodes == b.tree_nodes);
      REQUIRE(a.principal_variation == b.principal_variation);
      g.play_turn(sample_turn(a, 1.0, kept.rng()));
      sample_turn(b, 1.0, afresh.rng());  // keep the two generators in step
    }
  }
  CHECK(resumed >= 100);  // the comparison covered many continued generations
}

TEST_CASE("mcts: the saved generations' budget rejects a negative size", "[search]") {
  FixedCostEvaluator ev(0, 0.5f, 1.0f, 3);
  Search s(ev, SearchParams{}, 1);
  CHECK_THROWS_WITH(s.set_turn_state_budget(-1), Catch::Contains("turn state budget must be >= 0"));
}

namespace {

// Every position is worth `value` to its side to move; uniform per-kick logits. Counts calls.
class ConstantValueEvaluator final : public Evaluator {
 public:
  explicit ConstantValueEvaluator(float value) : value_(value) {}
  void evaluate(const Position& pos, Evaluation& out) override {
    ++calls;
    out.value = value_;
    out.policy_logits.assign(size_t(pos.pitch().num_points()) * 8, 0.0f);
  }
  std::string name() const override { return "constant"; }
  int64_t calls = 0;

 private:
  float value_;
};

}  // namespace

TEST_CASE("mcts: leaf replies back up the side to move's best reply, not the leaf's own value", "[search]") {
  // The evaluator says the side to move wins (+0.9) everywhere. A root turn's leaf (opponent to
  // move) is then worth -0.9 to the root's side by its own value, and +0.9 by its replies (each
  // reply leaves the root's side to move).
  Game g(Pitch::standard(), Variant::kStandard);
  ConstantValueEvaluator ev(0.9f);
  SearchParams sp;
  sp.root_noise = false;
  sp.initial_turns = 6;
  for (int k : {0, 6}) {
    sp.leaf_reply_turns = k;
    ev.calls = 0;
    Search search(ev, sp, 1);
    const SearchResult r = search.run(g.position(), SearchLimits{1, -1});
    int visited = 0;
    for (const RootChild& c : r.children) {
      if (c.visits == 0) continue;
      ++visited;
      CHECK(c.proven == 0);
      CHECK(c.q == Approx(k == 0 ? -0.9 : 0.9));
    }
    CHECK(visited == 1);
    // The root, then one leaf and its six replies (none settled by the win checks at the start
    // of a game).
    CHECK(r.evaluations == (k == 0 ? 2 : 1 + 7));
    CHECK(ev.calls == r.evaluations);
  }
}

TEST_CASE("mcts: leaf replies give legal and reproducible turns over random positions", "[search]") {
  // Late positions of random games too, where the replies' win checks settle many of them.
  const std::vector<Game> games = random_positions(40, 17);
  FixedCostEvaluator ev(0, 0.5f, 2.0f, 3);
  SearchParams sp;
  sp.root_noise = false;
  sp.leaf_reply_turns = 8;
  sp.leaf_batch = GENERATE(1, 8);
  for (const Game& g : games) {
    std::string first;
    for (int run = 0; run < 2; ++run) {
      Search search(ev, sp, 5);
      const SearchResult r = search.run(g.position(), SearchLimits{32, -1});
      REQUIRE(is_legal_turn(g, r.best_turn));
      if (run == 0) first = r.best_turn;
      else CHECK(r.best_turn == first);
    }
  }
}
