// The analysis behind POST /api/analyse: the network's value and turn priors of a position and
// a PUCT search of it (search/analysis.h, as the `analyse` command), with each turn's visits,
// prior, Q and principal variation. The search trees of the last few positions are kept, so
// asking again about a position searches more (the visits add up) instead of starting over.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "nn/evaluator.h"
#include "search/mcts.h"

namespace ps::serve {

using Json = nlohmann::json;

struct AnalyseRequest {
  int64_t visits = 200;   ///< new visits (0: the network only)
  int64_t time_ms = -1;   ///< wall-time limit of the search; -1: visits only
  size_t top = 10;        ///< turns listed
  bool fresh = false;     ///< drop the kept tree of this position first
  int pv_turns = 12;      ///< longest principal variation listed
};

class Analyst {
 public:
  /// net may be null (no model): analyse() then answers 400. A kept tree may grow to
  /// max_tree_visits visits; past that, a request must ask for a fresh tree.
  Analyst(std::shared_ptr<Evaluator> net, size_t kept_trees, int64_t max_tree_visits);
  bool available() const { return net_ != nullptr; }

  /// Analyses pos (an unfinished turn start) in the calling thread; thread-safe (requests on
  /// the same position wait for each other). ApiError 400 for a position it cannot analyse.
  Json analyse(const Position& pos, const AnalyseRequest& request);

 private:
  struct Tree {
    std::mutex mu;
    std::unique_ptr<Search> search;
  };
  std::shared_ptr<Tree> tree_for(const Position& pos, bool fresh);

  std::shared_ptr<Evaluator> net_;
  size_t kept_trees_;
  int64_t max_tree_visits_;
  std::mutex mu_;
  std::list<std::pair<std::string, std::shared_ptr<Tree>>> trees_;  ///< most recent first
};

}  // namespace ps::serve
