#include "search/win_check.h"

namespace ps {

bool find_winning_turn_fast(TurnGenerator& gen, const Position& pos, std::string* kicks) {
  if (pos.game_over()) return false;
  if (pos.variant() == Variant::kStandard && !may_score_this_turn(pos)) return false;
  return gen.find_winning_turn(pos, kicks);
}

}  // namespace ps
