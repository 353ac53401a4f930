// Looking at one position with a network and a search: what `analyse` prints and what `serve`'s
// analysis API returns, computed in one place. Torch-free: the network is an Evaluator.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/turns.h"
#include "nn/evaluator.h"
#include "search/mcts.h"

namespace ps {

/// Why the network and the search cannot look at pos: "" when they can, otherwise a sentence
/// saying that the game is finished (who won and how) or that the ball bounced mid-turn.
/// `where` names the position ("after 5 of 24 turns"); `hint` is appended (how to pick another).
std::string not_analysable(const Position& pos, const std::string& where, const std::string& hint);

/// The network's raw view of a turn start: its value for the side to move and the turns the
/// search's root would list, with their priors (root_turn_options; not renormalised).
struct NetworkView {
  float value = 0.0f;
  std::vector<Turn> turns;  ///< generation order
  bool complete = false;    ///< every turn was generated
};
/// Throws std::runtime_error when the network returns the wrong number of policy logits.
NetworkView network_view(Evaluator& evaluator, const Position& pos, const SearchParams& params);

/// One root turn of a search with its principal variation (the turn, then the best replies).
struct AnalysedTurn {
  RootChild stats;
  std::vector<std::string> pv;
};
/// The root turns of `result` (from search's last run) ranked by visits, then prior; the first
/// `top`, each with its variation of at most pv_turns turns.
std::vector<AnalysedTurn> ranked_turns(const SearchResult& result, const Search& search,
                                       size_t top, int pv_turns = 16);

}  // namespace ps
