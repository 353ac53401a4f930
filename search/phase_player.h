// A player in two phases: one player for the opening and middle game, another from a given
// turn on (e.g. the net's PUCT search, then alpha-beta over complete turns once the pitch fills
// and the games are decided by deep tactics; docs/STRENGTH.md, issue 12). The split by game
// phase is the oldest hybrid of game programs (opening books and endgame searchers beside a
// middle-game search); here the switch point is a turn number.
#pragma once

#include <memory>
#include <string>

#include "search/player.h"

namespace ps {

class PhasePlayer final : public Player {
 public:
  /// `opening` plays the turns while fewer than `from_turn` complete turns have been played,
  /// `endgame` the rest. Throws std::invalid_argument when a player is null or from_turn < 0.
  PhasePlayer(std::unique_ptr<Player> opening, std::unique_ptr<Player> endgame, int from_turn,
              std::string name = "");
  /// "<name>" or "phased(<opening>, <endgame> from turn N)".
  std::string name() const override { return name_; }
  /// Starts a game for both players.
  void new_game(const Pitch& pitch, Variant variant) override;
  /// The opening player's or the endgame player's turn, with the whole budget. Not thread-safe
  /// (one caller at a time, like the players it holds).
  std::string choose_turn(const Game& game, const TurnBudget& budget) override;
  int from_turn() const { return from_turn_; }
  Player& opening() { return *opening_; }
  Player& endgame() { return *endgame_; }

 private:
  std::unique_ptr<Player> opening_, endgame_;
  int from_turn_;
  std::string name_;
};

}  // namespace ps
