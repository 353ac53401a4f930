#include "search/mcts_player.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>

#include "search/leaf_eval.h"
#include "search/leaf_evals.h"

namespace ps {

AblatedEvaluator::AblatedEvaluator(Evaluator& inner, const Ablation& ablation)
    : inner_(inner), ablation_(ablation) {}

void AblatedEvaluator::ablate(const Position& pos, Evaluation& e) const {
  if (ablation_.uniform_priors) e.policy_logits.assign(size_t(pos.pitch().num_points()) * 8, 0.0f);
  if (ablation_.zero_value) e.value = 0.0f;
}

void AblatedEvaluator::evaluate(const Position& pos, Evaluation& out) {
  inner_.evaluate(pos, out);
  ablate(pos, out);
}

void AblatedEvaluator::evaluate_many(const Position* const* positions, size_t n, Evaluation* out) {
  inner_.evaluate_many(positions, n, out);
  for (size_t i = 0; i < n; ++i) ablate(*positions[i], out[i]);
}

std::string AblatedEvaluator::name() const {
  return inner_.name() + (ablation_.uniform_priors ? "+uniform_priors" : "") +
         (ablation_.zero_value ? "+zero_value" : "");
}

std::string SearchTotals::summary() const {
  std::string endgame_text;
  if (endgame_turns > 0) {
    char buf[128];
    const double n = double(endgame_turns);
    std::snprintf(buf, sizeof buf,
                  "; alpha-beta endgame: %lld turns, per turn: depth %.1f, %.0f nodes, %.0f ms",
                  static_cast<long long>(endgame_turns), double(endgame_depth) / n, double(endgame_nodes) / n,
                  endgame_ms / n);
    endgame_text = buf;
  }
  return search_summary() + endgame_text;
}

std::string SearchTotals::search_summary() const {
  if (searches == 0) return "0 searches";
  const double n = double(searches);
  char buf[160];
  std::snprintf(buf, sizeof buf, "%lld searches, per search: %.0f visits, %.0f evaluations, %.0f ms",
                static_cast<long long>(searches), double(visits) / n, double(evaluations) / n,
                elapsed_ms / n);
  if (proofs == 0) return buf;
  char proof_text[160];
  std::snprintf(proof_text, sizeof proof_text,
                "; proof steps: %.0f ms, %.1f excluded per turn, %lld won, %lld all lost",
                proof_ms / double(proofs), double(proof_excluded) / double(proofs),
                static_cast<long long>(proof_wins), static_cast<long long>(proof_resigned));
  return buf + std::string(proof_text);
}

namespace {

// The endgame search's leaf evaluation; errors name the search key they come from
// (endgame_<the spec's field>).
std::unique_ptr<LeafEvaluator> endgame_evaluator(const LeafEvalSpec& spec, uint64_t seed) {
  try {
    return make_leaf_evaluator(spec, seed);
  } catch (const LeafEvalError& e) {
    throw std::invalid_argument("search params: endgame_" + e.field() + ": " + e.what());
  }
}

}  // namespace

MctsPlayer::MctsPlayer(Evaluator& evaluator, const SearchParams& params, uint64_t seed, std::string name,
                       const Ablation& ablation)
    : ablated_(ablation.any() ? std::make_unique<AblatedEvaluator>(evaluator, ablation) : nullptr),
      search_(ablated_ ? *ablated_ : evaluator, params, seed),
      prover_(params.proof_fraction > 0 ? std::make_unique<AlphaBetaPlayer>(seed) : nullptr),
      endgame_(params.endgame_from_turn >= 0
                   ? std::make_unique<AlphaBetaPlayer>(
                         AlphaBetaPlayer::Options{}, endgame_evaluator(endgame_leaf_eval(params), seed), seed)
                   : nullptr),
      name_(name.empty() ? "mcts(" + (ablated_ ? ablated_->name() : evaluator.name()) + ")"
                         : std::move(name)) {}

namespace {

// The result of a turn the proof step decided alone: that turn, proven.
SearchResult proven_result(const AlphaBetaPlayer::TurnProof& t, double elapsed_ms) {
  SearchResult r;
  r.best_turn = t.kicks;
  r.principal_variation = {t.kicks};
  RootChild c;
  c.kicks = t.kicks;
  c.proven = t.proven;
  r.children.push_back(c);
  r.root_proven = t.proven;
  r.root_value = float(t.proven);
  r.elapsed_ms = elapsed_ms;
  return r;
}

}  // namespace

void MctsPlayer::new_game(const Pitch& pitch, Variant variant) {
  search_.clear();
  if (prover_) prover_->new_game(pitch, variant);
  if (endgame_) endgame_->new_game(pitch, variant);
  totals_ = {};
}

std::string MctsPlayer::endgame_turn(const Game& game, const TurnBudget& budget) {
  TurnBudget b;
  b.time_ms = budget.time_ms;  // alpha-beta answers within it (no visit cap: nodes are not visits)
  const std::string turn = endgame_->choose_turn(game, b);
  const AlphaBetaPlayer::Info& info = endgame_->last_info();
  ++totals_.endgame_turns;
  totals_.endgame_depth += info.depth;
  totals_.endgame_nodes += info.nodes;
  totals_.endgame_ms += info.ms;
  // The same result as a turn the proof step decided: that turn alone, proven when alpha-beta
  // proved it (a random evaluation's score says nothing about the result, so the value is 0
  // otherwise), with alpha-beta's principal variation.
  AlphaBetaPlayer::TurnProof t;
  t.kicks = turn;
  if (AlphaBetaPlayer::is_proven(info.score)) t.proven = info.score > 0 ? 1 : -1;
  last_ = proven_result(t, info.ms);
  if (!info.pv.empty()) last_.principal_variation = info.pv;
  return turn;
}

std::string MctsPlayer::choose_turn(const Game& game, const TurnBudget& budget) {
  // A visit budget asks for the net's search (self-play, `--visits`, a serve game's "visits"):
  // alpha-beta has no visits, and given the time alone it would spend all of it (a serve game
  // with "time_ms": -1 and "visits": 50 gets the server's 30-s maximum as its time).
  if (endgame_ && budget.time_ms >= 0 && budget.visits < 0 &&
      game.num_complete_turns() >= search_.params().endgame_from_turn)
    return endgame_turn(game, budget);
  SearchLimits limits;
  limits.visits = budget.visits;
  if (budget.time_ms >= 0) limits.time_ms = std::max<int64_t>(1, budget.time_ms * 9 / 10);
  const int64_t share = prover_ && limits.time_ms >= 0
                            ? std::llround(double(limits.time_ms) * search_.params().proof_fraction)
                            : 0;
  if (share >= kMinProofMs) {
    const AlphaBetaPlayer::RootProof proof = prover_->prove_root(game.position(), share);
    ++totals_.proofs;
    totals_.proof_ms += proof.ms;
    const int won = proof.winning_index();
    const int lost = proof.lost();
    const AlphaBetaPlayer::TurnProof* decided = won >= 0 ? &proof.turns[size_t(won)] : nullptr;
    if (!decided && proof.complete && lost == int(proof.turns.size())) {
      // Every turn loses: resist longest (the loss proven at the largest depth).
      decided = &*std::max_element(proof.turns.begin(), proof.turns.end(),
                                   [](const auto& a, const auto& b) { return a.depth < b.depth; });
      ++totals_.proof_resigned;
    }
    if (decided) {
      totals_.proof_wins += decided->proven == 1;
      last_ = proven_result(*decided, proof.ms);
      ++totals_.searches;
      totals_.elapsed_ms += proof.ms;
      return decided->kicks;
    }
    std::vector<uint64_t> excluded;
    for (const AlphaBetaPlayer::TurnProof& t : proof.turns)
      if (t.proven == -1) excluded.push_back(t.hash);
    totals_.proof_excluded += int64_t(excluded.size());
    search_.exclude_root_turns(std::move(excluded));
    limits.time_ms = std::max<int64_t>(1, limits.time_ms - std::llround(proof.ms));
  }
  last_ = search_.run(game.position(), limits);
  ++totals_.searches;
  totals_.visits += last_.new_visits;
  totals_.evaluations += last_.evaluations;
  totals_.elapsed_ms += last_.elapsed_ms;
  const double t = search_.params().temperature_at(game.num_complete_turns());
  return sample_turn(last_, t, search_.rng());
}

NetMctsPlayer::~NetMctsPlayer() {
  if (search_stats_ && player_.totals().searches > 0) {
    const std::string line = "search stats of " + player_.name() + ": " + player_.totals().summary() + "\n";
    std::cerr << line << std::flush;  // one string: lines of games in parallel stay whole
  }
}

}  // namespace ps
