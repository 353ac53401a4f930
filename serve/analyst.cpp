#include "serve/analyst.h"

#include <algorithm>

#include "search/analysis.h"
#include "serve/api_error.h"

namespace ps::serve {

namespace {

Json turn_json(const AnalysedTurn& t) {
  return {{"kicks", t.stats.kicks}, {"visits", t.stats.visits}, {"prior", t.stats.prior},
          {"q", t.stats.visits > 0 ? Json(t.stats.q) : Json(nullptr)}, {"proven", t.stats.proven},
          {"pv", t.pv}};
}

Json network_json(const NetworkView& v, size_t top) {
  std::vector<Turn> turns = v.turns;
  std::stable_sort(turns.begin(), turns.end(), [](const Turn& a, const Turn& b) { return a.prior > b.prior; });
  Json list = Json::array();
  for (size_t i = 0; i < turns.size() && i < top; ++i)
    list.push_back({{"kicks", turns[i].kicks}, {"prior", turns[i].prior}});
  return {{"value", v.value}, {"turns", list}, {"generated", v.turns.size()}, {"complete", v.complete}};
}

}  // namespace

Analyst::Analyst(std::shared_ptr<Evaluator> net, size_t kept_trees, int64_t max_tree_visits)
    : net_(std::move(net)), kept_trees_(kept_trees < 1 ? 1 : kept_trees), max_tree_visits_(max_tree_visits) {}

std::shared_ptr<Analyst::Tree> Analyst::tree_for(const Position& pos, bool fresh) {
  const std::string key = pos.pitch().name() + "/" + variant_name(pos.variant()) + "/" +
                          std::to_string(pos.hash());
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = trees_.begin(); it != trees_.end(); ++it) {
    if (it->first != key) continue;
    if (fresh) {
      trees_.erase(it);
      break;
    }
    trees_.splice(trees_.begin(), trees_, it);
    return it->second;
  }
  auto tree = std::make_shared<Tree>();
  tree->search = std::make_unique<Search>(*net_, SearchParams{});
  trees_.emplace_front(key, tree);
  while (trees_.size() > kept_trees_) trees_.pop_back();
  return tree;
}

Json Analyst::analyse(const Position& pos, const AnalyseRequest& r) {
  if (!net_) throw bad_request("no model: start the server with --model FILE to analyse");
  const std::string why = not_analysable(pos, "asked for", "pick a position where a turn starts");
  if (!why.empty()) throw bad_request(why);
  const SearchParams params;
  Json out = {{"side_to_move", pos.side_to_move()}};
  const NetworkView view = network_view(*net_, pos, params);
  out["value"] = view.value;
  out["network"] = network_json(view, r.top);
  if (r.visits == 0 && r.time_ms < 0) return out;
  std::shared_ptr<Tree> tree = tree_for(pos, r.fresh);
  std::lock_guard<std::mutex> lock(tree->mu);
  SearchLimits limits;
  limits.visits = r.visits > 0 ? r.visits : -1;
  limits.time_ms = r.time_ms;
  SearchResult res = tree->search->run(pos, limits);
  Json turns = Json::array();
  for (const AnalysedTurn& t : ranked_turns(res, *tree->search, r.top, r.pv_turns)) turns.push_back(turn_json(t));
  if (res.root_visits > max_tree_visits_) tree->search->clear();  // the next request starts over
  out["turns"] = turns;
  out["search"] = {{"visits", res.root_visits}, {"new_visits", res.new_visits},
                   {"elapsed_ms", res.elapsed_ms}, {"value", res.root_value},
                   {"proven", res.root_proven}, {"best_turn", res.best_turn},
                   {"pv", res.principal_variation}, {"tree_nodes", res.tree_nodes}};
  return out;
}

}  // namespace ps::serve
