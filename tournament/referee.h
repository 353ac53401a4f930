// The referee of one game between two players: the opening's turns, then each seat's answers
// within its budget. Like cutechess-cli for chess, an illegal, incomplete, garbled or late
// answer, a crash or a player's exception loses the game, with the reason recorded.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/pitch.h"
#include "search/player.h"

namespace ps::tour {

/// One finished game.
struct GameResult {
  int index = 0;              ///< position in the schedule (0-based)
  int seat[2] = {0, 0};       ///< player index of player 0 (north attacker, first) and player 1
  int opening = -1;           ///< opening index, -1 = start position (no opening)
  int winner_seat = 0;        ///< 0 or 1
  int winner = 0, loser = 0;  ///< player indices
  /// "goal", "blocked" (by the rules), or a forfeit: "illegal turn", "incomplete turn",
  /// "garbage output", "time forfeit", "engine crash", "engine start failure", "player error".
  std::string termination;
  std::string detail;               ///< forfeit reason in words ("" for goal/blocked)
  std::string record;               ///< record notation of the game, opening included
  std::string pgn;                  ///< the game in PGN (write_pgn), with tags
  int turns = 0;                    ///< turns played, opening included
  int64_t max_turn_ms[2] = {0, 0};  ///< longest answer of each seat, ms
  double seconds = 0;               ///< wall time of the game
};

/// Plays one game between two players (seat 0 moves first) from the opening's turns, with
/// each seat's per-turn budget. The result's seat/opening/index fields are left for the caller;
/// winner/loser are seats (0/1) here. A player's exception or illegal answer loses the game.
GameResult play_game(Player& player0, Player& player1, const Pitch& pitch, Variant variant,
                     const std::vector<std::string>& opening, const TurnBudget& budget0,
                     const TurnBudget& budget1, const std::map<std::string, std::string>& pgn_tags = {});

}  // namespace ps::tour
