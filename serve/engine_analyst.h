// The analysis of the strongest engine here (POST /api/analyse with "engine": "alphabeta", the
// default): the shipped bot's search, alpha-beta over the small value net of the position's
// rules (search/alphabeta.h; on rules without a shipped net the hand evaluation, not the bot's
// random one: an analysis's scores must read as the position's worth), listing its best few
// lines by exclusion (multi-PV, as chess engines do): the best turn is searched, then the best
// turn other than it, and so on, each line with its score, the depth it reached and its
// principal variation. Needs no model and no LibTorch.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/position.h"

namespace ps::serve {

using Json = nlohmann::json;

struct EngineRequest {
  int64_t time_ms = 1000;  ///< the whole analysis (ms); the first line gets half, the others share the rest
  int lines = 3;           ///< best turns listed (1-8)
  int pv_turns = 12;       ///< longest principal variation listed
};

class EngineAnalyst {
 public:
  /// value_nets: "<WxL>/<variant>" (e.g. "8x10/standard") -> the .vnet of those rules; rules
  /// not listed are searched with the hand evaluation.
  explicit EngineAnalyst(std::map<std::string, std::string> value_nets)
      : value_nets_(std::move(value_nets)) {}
  /// The .vnet of pos's rules, "" when none.
  std::string value_net_for(const Pitch& pitch, Variant variant) const;
  /// "the value net FILE" or "the hand evaluation": what the search of these rules evaluates with.
  std::string evaluation_name(const Pitch& pitch, Variant variant) const;
  /// Analyses pos (an unfinished turn start) in the calling thread; thread-safe (a player per
  /// call). Answers {"engine", "evaluation", "side_to_move", "score", "value", "proven",
  /// "end_in_turns", "depth", "nodes", "elapsed_ms", "best_turn", "pv", "lines": [...]}: score
  /// in the evaluation's units for the side to move, value its estimate in [-1, 1] (the value
  /// net's own scale, tanh(score / 400) for the hand evaluation, +-1 when proven), proven +1 / -1
  /// for a proven win / loss (0: not proven) and end_in_turns the turns to the game's end then
  /// (both sides' turns, this one included). ApiError 400 for a position it cannot analyse.
  Json analyse(const Position& pos, const EngineRequest& request) const;

 private:
  std::map<std::string, std::string> value_nets_;
};

}  // namespace ps::serve
