// The PUCT search (search/mcts.h) as a ps::Player.
#pragma once

#include <cstdint>
#include <string>

#include "nn/evaluator.h"
#include "search/mcts.h"
#include "search/player.h"

namespace ps {

/// Runs ps::Search on the game's position and picks a turn with the temperature of
/// SearchParams::temperature_at(number of complete turns played). The tree is kept between
/// turns (tree reuse) and dropped by new_game().
class MctsPlayer final : public Player {
 public:
  /// evaluator must outlive the player. name defaults to "mcts(<evaluator name>)".
  /// Throws std::invalid_argument for invalid params.
  MctsPlayer(Evaluator& evaluator, const SearchParams& params, uint64_t seed = 0,
             std::string name = "");
  std::string name() const override { return name_; }
  void new_game(const Pitch& pitch, Variant variant) override { search_.clear(); }
  /// Budget: visits and/or time_ms (the search stops at 90% of time_ms to leave a margin);
  /// neither given -> SearchParams visits/time_ms. Throws std::invalid_argument when the game
  /// is over or mid-turn; evaluator errors propagate.
  std::string choose_turn(const Game& game, const TurnBudget& budget) override;

  /// The full result of the last choose_turn (visits per root turn: the training target).
  const SearchResult& last_result() const { return last_; }
  Search& search() { return search_; }

 private:
  Search search_;
  std::string name_;
  SearchResult last_;
};

}  // namespace ps
