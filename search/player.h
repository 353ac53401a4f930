// A player chooses whole turns. Baselines, MCTS with a network, external engines speaking the
// CodinGame protocol and humans all implement this, so tournaments treat them alike.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/record.h"

namespace ps {

/// Budget for one turn; a negative field means "not limited by this".
struct TurnBudget {
  int64_t time_ms = -1;  ///< wall time for the answer, ms
  int64_t visits = -1;   ///< search visits (playouts)
};

class Player {
 public:
  virtual ~Player() = default;
  /// Display name (used in tournament tables).
  virtual std::string name() const = 0;
  /// Called before each game.
  virtual void new_game(const Pitch& pitch, Variant variant) {}
  /// Chooses a complete legal turn for the side to move of game.position() (a turn start of
  /// an unfinished game) and returns its kick digits. game holds the whole history.
  // single-file: omit begin (the alpha-beta single-file bot has no Game)
  virtual std::string choose_turn(const Game& game, const TurnBudget& budget) = 0;
  // single-file: omit end
};

}  // namespace ps
