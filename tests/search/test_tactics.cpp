// Forced wins in one and two turns, own-goal traps and blocked-ball wins on both pitches and in
// every variant. The positions come from fixed records (found by random play, then checked here
// by exhaustive oracles, so a record that stops meaning what its name says fails loudly).
#include <catch2/catch.hpp>

#include "engine/render.h"
#include "search/alphabeta.h"
#include "search/baselines.h"
#include "search/fixed_cost_evaluator.h"
#include "search/mcts.h"
#include "search/mcts_player.h"
#include "tests/search/helpers.h"

using namespace ps;
using namespace ps::test;

namespace {

enum class Kind {
  kWin1,       // a goal this turn
  kBlockWin1,  // the only wins this turn block the opponent (single-bounce, no-bounce)
  kWin2,       // no win now; a turn after which every reply loses or allows a win
  kBlockWin2,  // standard: a turn after which every reply of the opponent loses at once
  kTrap,       // no forced win; own goals and turns that hand the opponent a goal abound
};

struct Case {
  int length;
  const char* variant;
  Kind kind;
  const char* record;
};

const Case kCases[] = {
    {10, "standard", Kind::kWin1, "0 6 1 7 5 332 3 4 6 12 16 364 275276 072 745 24 105366 5 4 5 31"},
    {10, "standard", Kind::kWin2,
     "0 1 6 42 77 4 6 6 52 52 0116 336 77 4633 64 3 1 7132 3 4 7 6 61302 43 63 016 352707754175 "
     "010 2 561341 0 1 275 0335 7052523 027 52363555 0"},
    {10, "standard", Kind::kTrap, "1 3 6 65 7 0 6 0 5253 171 4722 55 22 1 302 1 0 364 2716175 6 1475"},
    {10, "standard", Kind::kBlockWin2, "1 2 0 1 4 657 6 1 41 0 14 561213535 036772"},
    {10, "single-bounce", Kind::kWin1, "0 6 1 7 5 6 71 4 33 0 22 7 53 10 3 63 00 3 0 7"},
    {10, "single-bounce", Kind::kWin2,
     "0 0 6 33 63 03 2 5 3 6 05 27 22 71 47 45 03 06 11 41 67 5 42 75 5 0 24 36 76 3 07 21 1 7 43 "
     "00 66 45 44 10"},
    {10, "single-bounce", Kind::kTrap, "3 5 3 5 52 03"},
    {10, "single-bounce", Kind::kBlockWin1, "0 7 2 43 3 3 5 3 0 06 32"},
    {10, "no-bounce", Kind::kWin1, "4 4 3 2 0 1 6 4 5 5 7 5 4 7 7 1 7 1 6 1 2 2 2 1 0 1 4 7 2 7"},
    {10, "no-bounce", Kind::kWin2,
     "6 1 0 2 7 0 0 5 2 2 5 6 0 6 6 6 3 1 0 3 5 2 5 5 0 7 2 5 3 5 3 0 3 3 2 4 3 2 5 0 6 4 1 0 7 7 2 "
     "7 0 0 7 6 4 2 0 0 3 1 1 6 6"},
    {10, "no-bounce", Kind::kTrap,
     "0 0 6 3 3 5 2 7 7 7 6 0 3 4 6 1 2 0 7 4 6 5 3 4 5 2 0 1 2 0 5 7 1 3 1 2 3 2 0 3 6 3 5 2 5 3 5 "
     "0 1 7 5 0 0 7 2 4 5 4 4 5 3 6 7 6 3 3"},
    {10, "no-bounce", Kind::kBlockWin1,
     "0 6 4 1 0 1 6 5 6 4 2 5 3 3 4 1 4 7 1 4 7 4 2 3 5 2 3 0"},
    {12, "standard", Kind::kWin1, "4 4 3 2 0 2 57 25065 3 2 4"},
    {12, "standard", Kind::kWin2,
     "3 3 1 6 64 143 174 3601616 53665 4 3 0 70 23 3 275 20650 24666 1207 20 64433547 74 2506 413 "
     "0256710"},
    {12, "standard", Kind::kTrap, "4 4 3 2 0 2 57 25065 3 2 4 713"},
    {12, "standard", Kind::kBlockWin2, "4 6 13 3 2 25 0365 5 30 502317 57 27 133660 55"},
    {12, "single-bounce", Kind::kWin1, "0 6 33 2 0 54 4 4 4"},
    {12, "single-bounce", Kind::kWin2, "3 0 64 21 0 1 16 16"},
    {12, "single-bounce", Kind::kTrap, "0 6 33 2 0 54 4 4 4 2 72 2 0 35 65 05"},
    {12, "single-bounce", Kind::kBlockWin1, "0 6 1 7 5 6 71 71 4 53"},
    {12, "no-bounce", Kind::kWin1, "2 4 4 4 7 0 7 0 6 0 2 2 2 1 0 1 4 7 2 7 5 2 4 7 7 2"},
    {12, "no-bounce", Kind::kWin2,
     "3 5 0 0 0 3 0 5 7 7 1 4 3 2 2 4 1 4 4 5 2 5 7 1 1 6 5 3 4 6 6 5 0 6 1 4 2 0 7 5 0 7 5 2 0 2 1 "
     "1 1 3 1 2 7 2 7 7 4 2 0 5 5 5 2 0 3 3 3 6 6 7 4 1 2 2 7 6 5 0 1 4 1 7 4 3 0 0 2 5 6 7 0"},
    {12, "no-bounce", Kind::kTrap, "2 4 4 4 7 0 7 0 6 0 2 2 2 1 0 1 4 7 2 7 5 2 4 7 7"},
    {12, "no-bounce", Kind::kBlockWin1, "0 6 4 1 0 1 6 5 6 4 2 5 3 3 4 1 4 7 1 4 7 4 2 3 5 2 3"},
};

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kWin1: return "win in 1";
    case Kind::kBlockWin1: return "blocked-ball win in 1";
    case Kind::kWin2: return "win in 2";
    case Kind::kBlockWin2: return "blocked-ball win in 2";
    default: return "own-goal trap";
  }
}

// The oracle's view of each case.
void check_case_premise(const Case& c, const Game& g) {
  const Position& p = g.position();
  TurnGenerator gen;
  const auto turns = gen.generate(p);
  const int me = p.side_to_move();
  int goals = 0, blocks = 0, own_goals = 0, safe = 0;
  for (const Turn& t : turns) {
    if (t.winner == me) (t.reason == Reason::kGoal ? goals : blocks)++;
    if (t.winner >= 0 && t.winner != me && t.reason == Reason::kGoal) ++own_goals;
    safe += is_safe(p, t.kicks);
  }
  switch (c.kind) {
    case Kind::kWin1: REQUIRE(goals >= 1); break;
    case Kind::kBlockWin1:
      REQUIRE(goals == 0);
      REQUIRE(blocks >= 1);
      break;
    case Kind::kWin2:
    case Kind::kBlockWin2:
      REQUIRE(goals + blocks == 0);
      REQUIRE(count_wins_within_two(p) >= 1);
      REQUIRE(count_wins_within_two(p) < int(turns.size()));
      break;
    case Kind::kTrap:
      REQUIRE(goals + blocks == 0);
      REQUIRE(own_goals >= 2);
      REQUIRE(safe >= 1);
      REQUIRE(safe * 3 <= int(turns.size()));
      break;
  }
  if (c.kind == Kind::kBlockWin2) {
    // Some two-turn win leaves the opponent only losing turns (a dead end in standard).
    bool found = false;
    TurnGenerator w;
    for (const Turn& t : turns) {
      if (t.winner >= 0) continue;
      const Position q = after(p, t.kicks);
      if (w.all_turns_lose(q)) found = true;
    }
    REQUIRE(found);
  }
}

void check_answer(const Case& c, const Position& p, const std::string& kicks, const char* who) {
  INFO(who << " played " << kicks);
  switch (c.kind) {
    case Kind::kWin1:
    case Kind::kBlockWin1: {
      const Position q = after(p, kicks);
      REQUIRE(q.game_over());
      REQUIRE(q.winner() == p.side_to_move());
      REQUIRE(q.reason() == (c.kind == Kind::kWin1 ? Reason::kGoal : Reason::kBlocked));
      break;
    }
    case Kind::kWin2:
    case Kind::kBlockWin2:
      // The two-turn win, or a longer forced win the search proved instead (checked exhaustively).
      REQUIRE((wins_within_two(p, kicks) || forced_win_within(p, kicks, 3)));
      break;
    case Kind::kTrap: REQUIRE(is_safe(p, kicks)); break;
  }
}

}  // namespace

TEST_CASE("tactics: the PUCT search finds forced wins and avoids traps on both pitches", "[search]") {
  for (const Case& c : kCases) {
    const Game g = parse_record(Pitch::get(8, c.length, 2), parse_variant(c.variant), c.record);
    const Position& p = g.position();
    INFO("8x" << c.length << " " << c.variant << ", " << kind_name(c.kind) << "\n" << render_ascii(p));
    check_case_premise(c, g);
    FixedCostEvaluator prior_ev(0, 0.3f, 1.0f, 7);
    UniformEvaluator uniform_ev;
    for (Evaluator* ev : {static_cast<Evaluator*>(&prior_ev), static_cast<Evaluator*>(&uniform_ev)})
    for (const int leaf_batch : {1, 8}) {
      INFO("evaluator " << ev->name() << ", leaf_batch " << leaf_batch);
      SearchParams sp;
      sp.leaf_batch = leaf_batch;
      Search search(*ev, sp, 1);
      const SearchResult r = search.run(p, SearchLimits{20000, -1});
      check_answer(c, p, r.best_turn, "search");
      if (c.kind == Kind::kWin1 || c.kind == Kind::kBlockWin1) {
        // Found by the win check at the root: a proven root plays at once.
        REQUIRE(r.root_proven == 1);
        REQUIRE(r.new_visits == 0);
      }
      if (c.kind == Kind::kWin2 || c.kind == Kind::kBlockWin2) {
        // The solver proves it within the budget and stops early.
        REQUIRE(r.root_proven == 1);
        REQUIRE(r.root_value == 1.0f);
        REQUIRE(r.new_visits < 20000);
        // Our turn and a reply: a reply after which we score at once is proven lost when it
        // is generated (the win check runs on every generated turn), so the variation stops
        // there; a blocked-ball win is proven when our turn is generated (every reply loses at
        // once), so its variation may stop after our turn.
        REQUIRE(r.principal_variation.size() >= (c.kind == Kind::kWin2 ? 2u : 1u));
        REQUIRE(r.principal_variation.front() == r.best_turn);
      }
    }
  }
}

TEST_CASE("tactics: baseline players take one-turn wins and the greedy one avoids traps", "[search]") {
  for (const Case& c : kCases) {
    const Game g = parse_record(Pitch::get(8, c.length, 2), parse_variant(c.variant), c.record);
    INFO("8x" << c.length << " " << c.variant << ", " << kind_name(c.kind) << "\n"
              << render_ascii(g.position()));
    GreedyPlayer greedy(3);
    UctPlayer uct(5);
    FixedCostEvaluator ev(0, 0.3f, 1.0f, 7);
    MctsPlayer mcts(ev, SearchParams{}, 9);
    const TurnBudget budget{-1, 300};
    if (c.kind == Kind::kWin1 || c.kind == Kind::kBlockWin1) {
      check_answer(c, g.position(), greedy.choose_turn(g, budget), "greedy");
      check_answer(c, g.position(), uct.choose_turn(g, budget), "uct");
      check_answer(c, g.position(), mcts.choose_turn(g, budget), "mcts player");
    } else if (c.kind == Kind::kTrap) {
      check_answer(c, g.position(), greedy.choose_turn(g, budget), "greedy");
      check_answer(c, g.position(), mcts.choose_turn(g, budget), "mcts player");
    }
  }
}

TEST_CASE("tactics: alpha-beta takes wins, proves two-turn wins and avoids traps", "[search]") {
  for (const Case& c : kCases) {
    const Game g = parse_record(Pitch::get(8, c.length, 2), parse_variant(c.variant), c.record);
    INFO("8x" << c.length << " " << c.variant << ", " << kind_name(c.kind) << "\n"
              << render_ascii(g.position()));
    AlphaBetaPlayer ab(AlphaBetaPlayer::Options{}, nullptr, 3);
    // A node budget (deterministic), no clock.
    const std::string kicks = ab.choose_turn(g, TurnBudget{-1, 200000});
    check_answer(c, g.position(), kicks, "alphabeta");
    if (c.kind == Kind::kWin2 || c.kind == Kind::kBlockWin2) {
      // Proven: a goal on our next turn (ply 2) or, after a blocking turn, every reply loses at
      // once (ply 1); the search stopped deepening.
      REQUIRE(ab.last_info().score >= AlphaBetaPlayer::kWin - 2);
      REQUIRE(ab.last_info().pv.size() >= 1);
      REQUIRE(ab.last_info().pv.front() == kicks);
    }
  }
}

namespace {

// Does the side to move at q (the opponent of the root's mover) have a forced win within
// `own_turns` of its own turns? (q a turn start; exhaustive.)
bool opponent_wins_within(const Position& q, int own_turns) {
  if (q.game_over()) return false;
  TurnGenerator g;
  for (const Turn& r : g.generate(q))
    if (forced_win_within(q, r.kicks, own_turns)) return true;
  return false;
}

// The position before the last turn of a case: the mover's last turn let the opponent force a
// win (for the win-in-2 cases), though the opponent cannot score at once.
Game before_last_turn(const Case& c) {
  Game g = parse_record(Pitch::get(8, c.length, 2), parse_variant(c.variant), c.record);
  g.undo_turn();
  return g;
}

AlphaBetaPlayer::RootProof prove_to_depth(const Position& p, int depth) {
  AlphaBetaPlayer::Options o;
  o.max_depth = depth;  // the depth is the limit, not the clock
  AlphaBetaPlayer ab(o, nullptr, 5);
  return ab.prove_root(p, 1000000);
}

}  // namespace

TEST_CASE("tactics: the root proof step proves wins and losses exactly", "[search]") {
  int losses_beyond_one_turn = 0;
  for (const Case& c : kCases) {
    const Game g = parse_record(Pitch::get(8, c.length, 2), parse_variant(c.variant), c.record);
    const Position& p = g.position();
    INFO("8x" << c.length << " " << c.variant << ", " << kind_name(c.kind) << "\n" << render_ascii(p));
    // Depth 2: a win within two own turns is proven (the first one found is returned), and
    // with no win, exactly the turns the opponent answers with a goal are proven lost.
    const AlphaBetaPlayer::RootProof proof = prove_to_depth(p, 2);
    const int won = proof.winning_index();
    if (c.kind == Kind::kTrap) {
      REQUIRE(won < 0);
      REQUIRE(proof.complete);
      int unsafe = 0;
      for (const AlphaBetaPlayer::TurnProof& t : proof.turns) {
        INFO(t.kicks);
        REQUIRE((t.proven == -1) == !is_safe(p, t.kicks));
        unsafe += !is_safe(p, t.kicks);
      }
      REQUIRE(proof.lost() == unsafe);
      REQUIRE(unsafe >= 2);
    } else {
      REQUIRE(won >= 0);
      const std::string& k = proof.turns[size_t(won)].kicks;
      INFO(k);
      REQUIRE(wins_within_two(p, k));
      if (c.kind == Kind::kWin1 || c.kind == Kind::kBlockWin1) REQUIRE(proof.turns[size_t(won)].depth == 0);
    }
    if (c.kind != Kind::kWin2 || c.length != 10) continue;
    // One turn earlier: the turn played lets the opponent force a win in two of its turns, which
    // the root's one-turn checks cannot see; a depth-3 proof marks it lost, and every turn it
    // marks lost is lost by the exhaustive oracle.
    const Game before = before_last_turn(c);
    const Position& q = before.position();
    const AlphaBetaPlayer::RootProof deeper = prove_to_depth(q, 3);
    const std::string played = g.turns().back();
    bool played_lost = false;
    for (const AlphaBetaPlayer::TurnProof& t : deeper.turns) {
      if (t.proven != -1) continue;
      INFO("proven lost: " << t.kicks << " at depth " << t.depth);
      const Position r = after(q, t.kicks);
      REQUIRE((r.game_over() ? r.winner() != q.side_to_move() : opponent_wins_within(r, 2)));
      if (t.depth >= 2) ++losses_beyond_one_turn;
      if (after(q, t.kicks).hash() == after(q, played).hash()) played_lost = true;
    }
    // Unless the mover had a win of its own there: the proof stops at the first proven win.
    INFO("winning turn index " << deeper.winning_index() << ", depth " << deeper.depth);
    REQUIRE((played_lost || deeper.winning_index() >= 0));
  }
  REQUIRE(losses_beyond_one_turn >= 1);
}

TEST_CASE("tactics: excluded root turns get no visits and are never played", "[search]") {
  const Case& c = kCases[2];  // 8x10 standard own-goal trap: several safe turns
  const Game g = parse_record(Pitch::get(8, c.length, 2), parse_variant(c.variant), c.record);
  const Position& p = g.position();
  FixedCostEvaluator ev(0, 0.3f, 1.0f, 7);
  SearchParams sp;
  sp.reuse_tree = false;
  Search plain(ev, sp, 1);
  const SearchResult first = plain.run(p, SearchLimits{400, -1});
  // Exclude the turn the plain search plays, and the next most visited one.
  std::vector<RootChild> ranked = first.children;
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const RootChild& a, const RootChild& b) { return a.visits > b.visits; });
  REQUIRE(ranked.size() >= 3);
  REQUIRE(ranked[1].proven == 0);
  const std::vector<std::string> excluded = {ranked[0].kicks, ranked[1].kicks};
  Search hybrid(ev, sp, 1);
  hybrid.exclude_root_turns({after(p, excluded[0]).hash(), after(p, excluded[1]).hash()});
  const SearchResult r = hybrid.run(p, SearchLimits{400, -1});
  REQUIRE(r.new_visits == 400);
  for (const RootChild& rc : r.children) {
    const bool is_excluded = rc.kicks == excluded[0] || rc.kicks == excluded[1];
    if (!is_excluded) continue;
    INFO(rc.kicks);
    REQUIRE(rc.proven == -1);
    REQUIRE(rc.visits == 0);
  }
  REQUIRE(r.best_turn != excluded[0]);
  REQUIRE(r.best_turn != excluded[1]);
  REQUIRE(is_safe(p, r.best_turn));
  // Without the call nothing is excluded: the same search plays the plain one's turn.
  Search again(ev, sp, 1);
  REQUIRE(again.run(p, SearchLimits{400, -1}).best_turn == first.best_turn);
}

TEST_CASE("tactics: the mcts player's proof step plays proven wins and avoids proven losses", "[search]") {
  UniformEvaluator ev;
  SearchParams sp;
  sp.proof_fraction = 0.5;
  int decided_by_proof = 0, with_exclusions = 0;
  for (const Case& c : kCases) {
    if (c.kind != Kind::kWin2 && c.kind != Kind::kBlockWin2) continue;
    const Game g = parse_record(Pitch::get(8, c.length, 2), parse_variant(c.variant), c.record);
    INFO("8x" << c.length << " " << c.variant << ", " << kind_name(c.kind) << "\n"
              << render_ascii(g.position()));
    MctsPlayer player(ev, sp, 3);
    const std::string k = player.choose_turn(g, TurnBudget{2000, 200});
    check_answer(c, g.position(), k, "mcts player with proof step");
    // The proof step proves two-turn wins well within 900 ms unless the machine starves it;
    // then PUCT's solver finds the win (checked above either way).
    decided_by_proof += player.totals().proof_wins;
    REQUIRE(player.totals().proofs == 1);
    if (player.totals().proof_wins == 1) {
      REQUIRE(player.last_result().children.size() == 1);
      REQUIRE(player.last_result().root_proven == 1);
    }
    // The turn before: whatever the proof marks lost is never played.
    const Game before = before_last_turn(c);
    MctsPlayer second(ev, sp, 3);
    const std::string answer = second.choose_turn(before, TurnBudget{2000, 200});
    REQUIRE(is_legal_turn(before, answer));
    int marked = 0;
    for (const RootChild& rc : second.last_result().children) {
      if (rc.proven != -1) continue;
      ++marked;
      REQUIRE(rc.kicks != answer);
      REQUIRE(rc.visits == 0);
    }
    if (second.totals().proof_excluded > 0 && second.totals().proof_resigned == 0) {
      REQUIRE(marked >= 1);
      ++with_exclusions;
    }
  }
  REQUIRE(decided_by_proof >= 1);
  REQUIRE(with_exclusions >= 1);
}

TEST_CASE("tactics: the proof step stays within the turn's time in the heaviest position", "[search]") {
  const Game heavy = heavy_game();
  FixedCostEvaluator ev(0, 0.3f, 1.0f, 7);
  for (const double fraction : {0.5, 0.9}) {  // shares of 45 and 81 ms
    SearchParams sp;
    sp.proof_fraction = fraction;
    MctsPlayer player(ev, sp, 3);
    const double cpu0 = thread_cpu_ms();
    const std::string t = player.choose_turn(heavy, TurnBudget{100, -1});
    const double cpu = thread_cpu_ms() - cpu0;
    INFO("proof_fraction " << fraction << ": " << cpu << " ms CPU, " << player.totals().summary());
    REQUIRE(is_legal_turn(heavy, t));
    REQUIRE(player.totals().proofs == 1);
    // CPU past the 100 ms budget would be a runaway (the wall clock of a loaded machine is
    // not; see the alphabeta player's test).
    CHECK(cpu < 100 + 250);
  }
  // The exact input that overran: 20 ms per turn at proof_fraction 0.9 (a 16 ms share) took turns of
  // up to 159 ms. A share under MctsPlayer::kMinProofMs skips the proof step.
  SearchParams sp;
  sp.proof_fraction = 0.9;
  MctsPlayer player(ev, sp, 3);
  REQUIRE(is_legal_turn(heavy, player.choose_turn(heavy, TurnBudget{20, -1})));
  CHECK(player.totals().proofs == 0);
  sp.proof_fraction = 0.25;  // 23 ms of a 100 ms turn
  MctsPlayer quarter(ev, sp, 3);
  REQUIRE(is_legal_turn(heavy, quarter.choose_turn(heavy, TurnBudget{100, -1})));
  CHECK(quarter.totals().proofs == 0);
}
