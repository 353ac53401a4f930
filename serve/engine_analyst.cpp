#include "serve/engine_analyst.h"

#include <algorithm>
#include <cmath>

#include "search/alphabeta.h"
#include "search/analysis.h"
#include "search/leaf_evals.h"
#include "serve/api_error.h"
#include "valuenet/value_net.h"

namespace ps::serve {

namespace {

// A line's score as the page shows it: the evaluation's value in [-1, 1], or a proven result
// and the turns to it (AlphaBetaPlayer: a turn that ends the game at ply p scores kWin - p).
Json score_json(int score, double value_scale) {
  const bool proven = AlphaBetaPlayer::is_proven(score);
  const int plies = AlphaBetaPlayer::kWin - std::abs(score);
  double value = value_scale > 0 ? std::clamp(score / value_scale, -1.0, 1.0) : std::tanh(score / 400.0);
  if (proven) value = score > 0 ? 1.0 : -1.0;
  return {{"score", score},
          {"value", value},
          {"proven", proven ? (score > 0 ? 1 : -1) : 0},
          {"end_in_turns", proven ? Json(plies + 1) : Json(nullptr)}};
}

}  // namespace

std::string EngineAnalyst::value_net_for(const Pitch& pitch, Variant variant) const {
  auto it = value_nets_.find(pitch.name() + "/" + variant_name(variant));
  return it == value_nets_.end() ? std::string() : it->second;
}

std::string EngineAnalyst::evaluation_name(const Pitch& pitch, Variant variant) const {
  const std::string net = value_net_for(pitch, variant);
  return net.empty() ? std::string("the hand evaluation") : "the value net " + net;
}

Json EngineAnalyst::analyse(const Position& pos, const EngineRequest& r) const {
  const std::string why = not_analysable(pos, "asked for", "pick a position where a turn starts");
  if (!why.empty()) throw bad_request(why);
  LeafEvalSpec spec;
  double value_scale = 0;  // 0: the hand evaluation
  const std::string net = value_net_for(pos.pitch(), pos.variant());
  if (!net.empty()) {
    spec.eval = "nnue";
    spec.value_net = net;
    value_scale = shared_value_net(net)->value_scale;
  }
  AlphaBetaPlayer player(AlphaBetaPlayer::Options{}, make_leaf_evaluator(spec, 1), 1);
  Json lines = Json::array();
  std::vector<uint64_t> excluded;
  const int count = std::clamp(r.lines, 1, 8);
  int64_t nodes = 0;
  double elapsed = 0;
  for (int i = 0; i < count; ++i) {
    const int64_t ms = i == 0 ? std::max<int64_t>(1, count == 1 ? r.time_ms : r.time_ms / 2)
                              : std::max<int64_t>(1, r.time_ms / 2 / (count - 1));
    player.exclude_root_turns(excluded);
    TurnBudget budget;
    budget.time_ms = ms;
    const std::string turn = player.search_turn(pos, budget);
    if (turn.empty()) break;  // no other turn
    const AlphaBetaPlayer::Info& info = player.last_info();
    std::vector<std::string> pv = info.pv;
    if (int(pv.size()) > r.pv_turns) pv.resize(size_t(std::max(r.pv_turns, 1)));
    Json line = score_json(info.score, value_scale);
    line["kicks"] = turn;
    line["depth"] = info.depth;
    line["nodes"] = info.nodes;
    line["pv"] = pv;
    lines.push_back(line);
    nodes += info.nodes;
    elapsed += info.ms;
    Position after = pos;
    for (char k : turn) after.make_kick(k - '0');
    excluded.push_back(after.hash());
  }
  if (lines.empty()) throw bad_request("the position has no turn to analyse");
  // Lines searched with less time may score a turn above the first line's: listed best first.
  std::stable_sort(lines.begin(), lines.end(), [](const Json& a, const Json& b) {
    return a.at("score").get<int>() > b.at("score").get<int>();
  });
  const Json& best = lines.front();
  Json out = score_json(best.at("score").get<int>(), value_scale);
  out["engine"] = "alphabeta";
  out["evaluation"] = evaluation_name(pos.pitch(), pos.variant());
  out["side_to_move"] = pos.side_to_move();
  out["depth"] = best.at("depth");
  out["nodes"] = nodes;
  out["elapsed_ms"] = elapsed;
  out["best_turn"] = best.at("kicks");
  out["pv"] = best.at("pv");
  out["lines"] = lines;
  return out;
}

}  // namespace ps::serve
