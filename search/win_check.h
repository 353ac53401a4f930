// The engine's one-turn win check (TurnGenerator::find_winning_turn) behind a sound and cheap
// pre-filter, so that searches can run it at every expansion.
#pragma once

#include <string>

#include "engine/turns.h"

namespace ps {

// may_score_this_turn() now lives in the engine (engine/turns.h), which also prunes with it
// inside the win check.

/// Same answer as gen.find_winning_turn(pos, kicks), the engine's exhaustive win check, but
/// skips the enumeration when no win is possible: in `standard` a turn can only win by a goal
/// (it ends on an untouched point, which keeps 7 free segments, so the opponent is never left
/// blocked), and may_score_this_turn() rules goals out. In the other variants turns have at
/// most two kicks and the engine's check runs as is.
bool find_winning_turn_fast(TurnGenerator& gen, const Position& pos, std::string* kicks = nullptr);

}  // namespace ps
