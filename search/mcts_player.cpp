#include "search/mcts_player.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

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
  if (searches == 0) return "0 searches";
  const double n = double(searches);
  char buf[160];
  // PUCT does not measure the depth (SearchResult::max_depth stays 0): left out, not printed as 0.
  char depth_text[32] = "";
  if (best_first) std::snprintf(depth_text, sizeof depth_text, ", depth %.1f", double(depth) / n);
  std::snprintf(buf, sizeof buf, "%lld searches, per search: %.0f %s, %.0f evaluations%s, %.0f ms",
                static_cast<long long>(searches), double(visits) / n, best_first ? "expansions" : "visits",
                double(evaluations) / n, depth_text, elapsed_ms / n);
  return buf;
}

MctsPlayer::MctsPlayer(Evaluator& evaluator, const SearchParams& params, uint64_t seed, std::string name,
                       const Ablation& ablation)
    : ablated_(ablation.any() ? std::make_unique<AblatedEvaluator>(evaluator, ablation) : nullptr),
      search_(ablated_ ? *ablated_ : evaluator, params, seed),
      name_(name.empty() ? "mcts(" + (ablated_ ? ablated_->name() : evaluator.name()) + ")"
                         : std::move(name)) {}

std::string MctsPlayer::choose_turn(const Game& game, const TurnBudget& budget) {
  SearchLimits limits;
  limits.visits = budget.visits;
  if (budget.time_ms >= 0) limits.time_ms = std::max<int64_t>(1, budget.time_ms * 9 / 10);
  last_ = search_.run(game.position(), limits);
  ++totals_.searches;
  totals_.best_first = search_.params().algorithm != "puct";
  totals_.visits += last_.new_visits;
  totals_.evaluations += last_.evaluations;
  totals_.depth += last_.max_depth;
  totals_.elapsed_ms += last_.elapsed_ms;
  const double t = search_.params().temperature_at(game.num_complete_turns());
  return sample_turn(last_, t, search_.rng());
}

}  // namespace ps
