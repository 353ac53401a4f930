#include "search/phase_player.h"

#include <stdexcept>

namespace ps {

PhasePlayer::PhasePlayer(std::unique_ptr<Player> opening, std::unique_ptr<Player> endgame, int from_turn,
                         std::string name)
    : opening_(std::move(opening)), endgame_(std::move(endgame)), from_turn_(from_turn) {
  if (!opening_ || !endgame_) throw std::invalid_argument("phased player: both players are needed");
  if (from_turn_ < 0)
    throw std::invalid_argument("phased player: from_turn " + std::to_string(from_turn_) + " < 0");
  name_ = name.empty() ? "phased(" + opening_->name() + ", " + endgame_->name() + " from turn " +
                             std::to_string(from_turn_) + ")"
                       : std::move(name);
}

void PhasePlayer::new_game(const Pitch& pitch, Variant variant) {
  opening_->new_game(pitch, variant);
  endgame_->new_game(pitch, variant);
}

std::string PhasePlayer::choose_turn(const Game& game, const TurnBudget& budget) {
  Player& p = game.num_complete_turns() < from_turn_ ? *opening_ : *endgame_;
  return p.choose_turn(game, budget);
}

}  // namespace ps
