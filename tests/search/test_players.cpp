// Baseline players and the MCTS player on the Player interface.
#include <catch2/catch.hpp>
#include <chrono>

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "search/baselines.h"
#include "search/fixed_cost_evaluator.h"
#include "search/leaf_eval.h"
#include "search/mcts_player.h"
#include "tests/search/helpers.h"

using namespace ps;
using namespace ps::test;

namespace {

// Plays a game; returns the winner.
int play(Player& first, Player& second, const Pitch& pitch, Variant v, const TurnBudget& budget) {
  Game g(pitch, v);
  first.new_game(pitch, v);
  second.new_game(pitch, v);
  while (!g.position().game_over()) {
    Player& p = g.position().side_to_move() == 0 ? first : second;
    const std::string t = p.choose_turn(g, budget);
    REQUIRE(is_legal_turn(g, t));
    g.play_turn(t);
  }
  return g.position().winner();
}

constexpr const char* kHeavyKicks =
    "13064113570225017036575014630745741422243523574227742164435274617703502106741745431672745757"
    "134661453130361";

}  // namespace

TEST_CASE("players: the random player is uniform over distinct turns", "[search]") {
  Game g(Pitch::standard(), Variant::kStandard);
  g.play_turn("4");
  g.play_turn("2");  // a position with some bounce chains
  TurnGenerator gen;
  const auto turns = gen.generate(g.position());
  REQUIRE(turns.size() > 8);
  RandomPlayer rp(17);
  std::map<std::string, int> n;
  const int draws = 400 * int(turns.size());
  for (int i = 0; i < draws; ++i) n[rp.choose_turn(g, {})]++;
  REQUIRE(n.size() == turns.size());  // every distinct turn, and only those
  for (const Turn& t : turns) {
    INFO(t.kicks);
    CHECK(std::abs(n[t.kicks] - 400) < 100);  // about 5 standard deviations
  }
  // A huge position: one enumeration, a legal turn.
  const Game heavy = parse_kicks(Pitch::standard(), Variant::kStandard, kHeavyKicks);
  REQUIRE(is_legal_turn(heavy, rp.choose_turn(heavy, {})));
  // Same seed, same choices.
  RandomPlayer a(5), b(5);
  for (int i = 0; i < 20; ++i) REQUIRE(a.choose_turn(heavy, {}) == b.choose_turn(heavy, {}));
}

TEST_CASE("players: the greedy player heads for goal and beats random play", "[search]") {
  Game g(Pitch::standard(), Variant::kStandard);
  GreedyPlayer greedy(1);
  const std::string t = greedy.choose_turn(g, {});
  const Position q = after(g.position(), t);
  // From the centre (4,5) player 0 reaches (x,4) at best: 5 kicks from the north goal.
  REQUIRE(GreedyPlayer::goal_distance(q.pitch(), q.ball(), 0) == 5);
  REQUIRE(GreedyPlayer::goal_distance(q.pitch(), q.pitch().point(4, 0), 0) == 1);
  REQUIRE(GreedyPlayer::goal_distance(q.pitch(), q.pitch().point(0, 0), 0) == 3);
  REQUIRE(GreedyPlayer::goal_distance(q.pitch(), q.pitch().point(4, 10), 1) == 1);
  RandomPlayer rnd(2);
  int wins = 0;
  for (int i = 0; i < 10; ++i) {
    const Variant v = i % 2 ? Variant::kSingleBounce : Variant::kStandard;
    if (i < 5) wins += play(greedy, rnd, Pitch::standard(), v, {}) == 0;
    else wins += play(rnd, greedy, Pitch::get(8, 12, 2), v, {}) == 1;
  }
  REQUIRE(wins >= 8);
}

TEST_CASE("players: UCT with rollouts and the MCTS player beat random play", "[search]") {
  UctPlayer uct(UctPlayer::Options{200, 1.414, 1000}, 3);
  RandomPlayer rnd(4);
  int wins = 0;
  for (int i = 0; i < 6; ++i) {
    if (i % 2 == 0) wins += play(uct, rnd, Pitch::standard(), Variant::kStandard, {}) == 0;
    else wins += play(rnd, uct, Pitch::standard(), Variant::kNoBounce, {}) == 1;
  }
  REQUIRE(wins >= 5);
  uct.choose_turn(Game(Pitch::standard(), Variant::kStandard), TurnBudget{-1, 200});
  REQUIRE(uct.last_playouts() == 200);
  REQUIRE(uct.last_root().size() == 8);  // the 8 first kicks from the centre

  UniformEvaluator uniform;
  SearchParams sp;
  MctsPlayer mcts(uniform, sp, 1);
  REQUIRE(mcts.name() == "mcts(uniform)");
  wins = 0;
  for (int i = 0; i < 4; ++i) {
    if (i % 2 == 0) wins += play(mcts, rnd, Pitch::standard(), Variant::kStandard, {-1, 100}) == 0;
    else wins += play(rnd, mcts, Pitch::get(8, 12, 2), Variant::kSingleBounce, {-1, 100}) == 1;
  }
  REQUIRE(wins >= 3);
  REQUIRE(!mcts.last_result().children.empty());
}

namespace {

// A deterministic evaluator with an opinion: the value is the ball's row for the side to move
// (nearer the goal it attacks: higher), and the logits favour kicks toward that goal.
class BiasedEvaluator final : public Evaluator {
 public:
  void evaluate(const Position& pos, Evaluation& out) override {
    const Pitch& p = pos.pitch();
    const int y = p.y_of(pos.ball());
    const double toward = pos.side_to_move() == 0 ? double(p.length() - y) : double(y);
    out.value = float(std::tanh(toward / p.length() - 0.5));
    out.policy_logits.assign(size_t(p.num_points()) * 8, 0.0f);
    for (int q = 0; q < p.num_points(); ++q)
      for (int d = 0; d < 8; ++d) out.policy_logits[size_t(q) * 8 + d] = float(d + q % 3);
  }
  std::string name() const override { return "biased"; }
};

}  // namespace

TEST_CASE("players: uniform_priors and zero_value replace the network's heads", "[search]") {
  BiasedEvaluator biased;
  const Game start(Pitch::standard(), Variant::kStandard);
  Game g = parse_record(Pitch::standard(), Variant::kStandard, "0 3 66 5 3");
  Evaluation raw, ablated;
  biased.evaluate(g.position(), raw);
  REQUIRE(raw.value != 0.0f);
  {
    AblatedEvaluator both(biased, Ablation{true, true});
    CHECK(both.name() == "biased+uniform_priors+zero_value");
    both.evaluate(g.position(), ablated);
    CHECK(ablated.value == 0.0f);
    CHECK(ablated.policy_logits == std::vector<float>(raw.policy_logits.size(), 0.0f));
    AblatedEvaluator prior_only(biased, Ablation{true, false});
    prior_only.evaluate(g.position(), ablated);
    CHECK(ablated.value == raw.value);
    AblatedEvaluator value_only(biased, Ablation{false, true});
    const Position* ps[1] = {&g.position()};
    value_only.evaluate_many(ps, 1, &ablated);
    CHECK(ablated.value == 0.0f);
    CHECK(ablated.policy_logits == raw.policy_logits);
  }
  // Both heads ablated: the search over the biased net is the search over uniform priors and
  // values, visit for visit (one thread, same seed).
  SearchParams sp;
  sp.visits = 200;
  UniformEvaluator uniform;
  MctsPlayer a(biased, sp, 7, "", Ablation{true, true}), b(uniform, sp, 7), c(biased, sp, 7);
  CHECK(a.name() == "mcts(biased+uniform_priors+zero_value)");
  for (const Game* game : {&start, static_cast<const Game*>(&g)}) {
    a.choose_turn(*game, {});
    b.choose_turn(*game, {});
    c.choose_turn(*game, {});
    auto visits = [](const SearchResult& r) {
      std::map<std::string, int64_t> v;
      for (const RootChild& ch : r.children) v[ch.kicks] = ch.visits;
      return v;
    };
    CHECK(visits(a.last_result()) == visits(b.last_result()));
    CHECK(visits(a.last_result()) != visits(c.last_result()));  // the heads did matter
    a.new_game(game->position().pitch(), Variant::kStandard);
    b.new_game(game->position().pitch(), Variant::kStandard);
    c.new_game(game->position().pitch(), Variant::kStandard);
  }
}

TEST_CASE("players: finished games and mid-turn positions are rejected", "[search]") {
  Game g = parse_record(Pitch::standard(), Variant::kNoBounce,
                        "4 4 3 2 0 1 6 4 5 5 7 5 4 7 7 1 7 1 6 1 2 2 2 1 0 1 4 7 2 7");
  std::string win;
  TurnGenerator gen;
  REQUIRE(gen.find_winning_turn(g.position(), &win));
  g.play_turn(win);
  REQUIRE(g.position().game_over());
  UniformEvaluator uniform;
  std::vector<std::unique_ptr<Player>> players;
  players.emplace_back(new RandomPlayer(1));
  players.emplace_back(new GreedyPlayer(1));
  players.emplace_back(new UctPlayer(1));
  players.emplace_back(new MctsPlayer(uniform, SearchParams{}, 1));
  for (auto& p : players) {
    INFO(p->name());
    REQUIRE_THROWS_AS(p->choose_turn(g, {}), std::invalid_argument);
  }
  REQUIRE_THROWS_AS(UctPlayer(UctPlayer::Options{0, 1.0, 10}), std::invalid_argument);
}

TEST_CASE("players: an mcts player sums its searches of one game", "[search]") {
  FixedCostEvaluator net(0, 0.5f, 1.0f, 4);
  MctsPlayer p(net, SearchParams{}, 5);
  CHECK(p.totals().summary() == "0 searches");
  Game g(Pitch::standard(), Variant::kStandard);
  int64_t visits = 0, evaluations = 0;
  for (int t = 0; t < 3 && !g.position().game_over(); ++t) {
    g.play_turn(p.choose_turn(g, {-1, 40}));
    visits += p.last_result().new_visits;
    evaluations += p.last_result().evaluations;
  }
  CHECK(p.totals().searches == 3);
  CHECK(p.totals().visits == visits);
  CHECK(p.totals().evaluations == evaluations);
  CHECK(visits >= 3);
  const std::string s = p.totals().summary();
  CHECK(s.rfind("3 searches, per search: ", 0) == 0);
  // Regression: it printed "depth 0.0", a depth PUCT never measures.
  CHECK(s.find(" visits, ") != std::string::npos);
  CHECK(s.find("depth") == std::string::npos);
  p.new_game(Pitch::standard(), Variant::kStandard);
  CHECK(p.totals().searches == 0);
  CHECK(p.totals().visits == 0);
}

TEST_CASE("players: the noise evaluation is a deterministic hash of the position, in range", "[search]") {
  NoiseEvaluator a(1000, 7), b(1000, 7), c(1000, 8);
  std::mt19937_64 rng(5);
  int negative = 0, positive = 0, differ = 0, n = 0;
  double sum = 0;
  for (int game = 0; game < 20; ++game) {
    Game g(Pitch::standard(), Variant::kStandard);
    while (!g.position().game_over()) {
      const Position& p = g.position();
      const int s = a.evaluate(p);
      CHECK(s >= -1000);
      CHECK(s <= 1000);
      CHECK(b.evaluate(p) == s);  // same seed, same score
      differ += c.evaluate(p) != s;
      negative += s < 0;
      positive += s > 0;
      sum += s;
      ++n;
      g.play_turn(random_turn(g.position(), rng));
    }
  }
  REQUIRE(n > 200);
  CHECK(differ > n * 9 / 10);        // another seed is another evaluation
  CHECK(std::abs(sum / n) < 150.0);  // centred (the standard error is 577 / sqrt(n) < 40)
  CHECK(negative > n / 3);
  CHECK(positive > n / 3);
  CHECK_THROWS_AS(NoiseEvaluator(0), std::invalid_argument);
  CHECK_THROWS_AS(NoiseEvaluator(100000), std::invalid_argument);
}

// Player 0 `p` (20 ms per turn) against a random player 1 for up to 16 turns; on_turn(game
// before the turn, complete turns before it, p's turn) after each of p's legal turns.
template <class F>
Game play_timed_against_random(MctsPlayer& p, F on_turn) {
  RandomPlayer other(6);
  Game g(Pitch::standard(), Variant::kStandard);
  p.new_game(Pitch::standard(), Variant::kStandard);
  while (!g.position().game_over() && g.num_complete_turns() < 16) {
    if (g.position().side_to_move() == 1) {
      g.play_turn(other.choose_turn(g, {}));
      continue;
    }
    const int before = g.num_complete_turns();
    const std::string t = p.choose_turn(g, {20, -1});
    REQUIRE(is_legal_turn(g, t));
    on_turn(g, before, t);
    g.play_turn(t);
  }
  return g;
}

TEST_CASE("players: an mcts player hands timed turns to alpha-beta from endgame_from_turn on", "[search]") {
  FixedCostEvaluator net(0, 0.5f, 1.0f, 4);
  for (const char* eval : {"noise", "hand"}) {
    INFO(eval);
    SearchParams sp;
    sp.endgame_from_turn = 4;
    sp.endgame_eval = eval;
    MctsPlayer p(net, sp, 5);
    int net_turns = 0, endgame_turns = 0;
    play_timed_against_random(p, [&](const Game&, int before, const std::string& t) {
      CHECK(p.last_result().best_turn == t);
      if (before < 4) {
        ++net_turns;
        CHECK(p.last_result().new_visits > 0);  // the net's search
      } else {
        ++endgame_turns;
        CHECK(p.last_result().new_visits == 0);  // alpha-beta's turn
        REQUIRE(!p.last_result().principal_variation.empty());
        CHECK(p.last_result().principal_variation[0] == t);
      }
    });
    REQUIRE(endgame_turns > 0);
    CHECK(p.totals().searches == net_turns);
    CHECK(p.totals().endgame_turns == endgame_turns);
    CHECK(p.totals().endgame_nodes > 0);  // (an immediate win is answered at depth 0)
    CHECK(p.totals().summary().find("; alpha-beta endgame: " + std::to_string(endgame_turns) +
                                    " turns, per turn: depth ") != std::string::npos);
    // A visit budget (self-play) never switches. (The game above ends before turn 16: the
    // position is one of random turns past endgame_from_turn.)
    Game late(Pitch::standard(), Variant::kStandard);
    std::mt19937_64 rng(7);
    while (late.num_complete_turns() < 6 && !late.position().game_over())
      late.play_turn(random_turn(late.position(), rng));
    REQUIRE(late.num_complete_turns() >= 4);
    {
      p.choose_turn(late, {-1, 8});
      CHECK(p.totals().endgame_turns == endgame_turns);
      CHECK(p.totals().searches == net_turns + 1);
      // Nor does a budget of time and visits: serve gave a game created with
      // "time_ms": -1, "visits": 50 its 30-s maximum, and alpha-beta spent all of it every turn.
      const auto start = std::chrono::steady_clock::now();
      p.choose_turn(late, {30000, 8});
      CHECK(p.totals().endgame_turns == endgame_turns);
      CHECK(p.totals().searches == net_turns + 2);
      CHECK(p.last_result().new_visits > 0);
      CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    }
    p.new_game(Pitch::standard(), Variant::kStandard);
    CHECK(p.totals().endgame_turns == 0);
  }
}
