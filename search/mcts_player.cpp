#include "search/mcts_player.h"

#include <algorithm>
#include <stdexcept>

namespace ps {

MctsPlayer::MctsPlayer(Evaluator& evaluator, const SearchParams& params, uint64_t seed,
                       std::string name)
    : search_(evaluator, params, seed),
      name_(name.empty() ? "mcts(" + evaluator.name() + ")" : std::move(name)) {}

std::string MctsPlayer::choose_turn(const Game& game, const TurnBudget& budget) {
  SearchLimits limits;
  limits.visits = budget.visits;
  if (budget.time_ms >= 0) limits.time_ms = std::max<int64_t>(1, budget.time_ms * 9 / 10);
  last_ = search_.run(game.position(), limits);
  const double t = search_.params().temperature_at(game.num_complete_turns());
  return sample_turn(last_, t, search_.rng());
}

}  // namespace ps
