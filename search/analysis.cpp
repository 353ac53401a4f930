#include "search/analysis.h"

#include <algorithm>
#include <stdexcept>

namespace ps {

std::string not_analysable(const Position& pos, const std::string& where, const std::string& hint) {
  if (pos.game_over())
    return "the position " + where + " is finished (player " + std::to_string(pos.winner()) +
           " won by " + reason_name(pos.reason()) + "): nothing to analyse; " + hint;
  if (!pos.turn_start())
    return "the position " + where + " is in the middle of player " +
           std::to_string(pos.side_to_move()) +
           "'s turn (the ball bounced); the network and the search start at turn starts: " + hint;
  return "";
}

NetworkView network_view(Evaluator& evaluator, const Position& pos, const SearchParams& params) {
  Evaluation ev;
  evaluator.evaluate(pos, ev);
  if (ev.policy_logits.size() != size_t(pos.pitch().num_points()) * kNumDirs)
    throw std::runtime_error("the network returned " + std::to_string(ev.policy_logits.size()) +
                             " policy logits for pitch " + pos.pitch().name());
  BestFirstResult r = best_first_turns(pos, ev.policy_logits.data(), root_turn_options(params));
  NetworkView v;
  v.value = ev.value;
  v.turns = std::move(r.turns);
  v.complete = r.complete;
  return v;
}

std::vector<AnalysedTurn> ranked_turns(const SearchResult& result, const Search& search,
                                       size_t top, int pv_turns) {
  std::vector<RootChild> kids = result.children;
  std::stable_sort(kids.begin(), kids.end(), [](const RootChild& x, const RootChild& y) {
    return x.visits != y.visits ? x.visits > y.visits : x.prior > y.prior;
  });
  if (kids.size() > top) kids.resize(top);
  std::vector<AnalysedTurn> out;
  out.reserve(kids.size());
  for (RootChild& c : kids) {
    AnalysedTurn t;
    t.pv = search.variation(c.kicks, pv_turns);
    t.stats = std::move(c);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace ps
