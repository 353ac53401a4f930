// Best-first minimax search with a value network: Unbounded Best-First Minimax (UBFM) and its
// Descent variant, after Cohen-Solal, "Learning to Play Two-Player Perfect-Information Games
// without Knowledge" (2020/2023), the search of the Athenan program. Selected by
// SearchParams::algorithm ("ubfm" or "descent"); ps::Search dispatches here, so self-play, the
// trainer's data, tournaments, `bot` and `analyse` use it through the same interface as PUCT.
//
//  - Nodes are turn starts; a node's value is for its side to move in [-1, 1]: a network value
//    at a leaf, the negamax of its children once expanded (minimax backups, no averaging).
//  - An iteration descends from the root through the best child (highest value for the mover;
//    ties: fewer selections), expands the leaf it reaches and backs the new values up the path.
//    UBFM expands one leaf per iteration; Descent keeps descending from the new leaf through its
//    best child, expanding each, until the game ends or a proven node is reached, so every
//    iteration extends the principal variation to a terminal state (the paper's reason: values
//    near the root are then learned from real outcomes). The price: Descent spends its
//    expansions on deep lines, so it proves short wins near the root later than UBFM does (a
//    turn the network values badly is tried only once the others look worse).
//  - Expansion lists the node's turns best-first by the network's per-kick policy (the node is
//    evaluated once for its logits), at most initial_turns (root_initial_turns at the root), and
//    evaluates every non-terminal child in one evaluate_many batch. A child is exact without the
//    network when its turn ends the game or when its side to move can win at once (the engine's
//    win check); proven wins and losses propagate (a node with a winning child is won; one
//    whose complete turn list all loses is lost). A node whose listed turns all lose while
//    more exist is widened when next selected: twice as many turns are listed.
//  - Budget: SearchLimits visits count node expansions (each costs 1 + children evaluations);
//    time_ms is wall time. The root's children report how often each was selected as `visits`
//    (the policy target) and their minimax value as q; the best turn is the highest-valued child
//    (proven wins first), the most selected among equal values.
//  - One thread; the tree is rebuilt by every run (no reuse). Memory is bounded by the budget:
//    about expansions x initial_turns nodes of ~64 bytes plus their kick strings, and at most
//    max_nodes nodes (the search stops there).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/turns.h"
#include "nn/evaluator.h"
#include "search/mcts.h"
#include "search/params.h"

namespace ps {

class DescentSearch {
 public:
  static constexpr int64_t kMaxNodes = int64_t(1) << 22;
  /// evaluator must outlive the search. params are validated (std::invalid_argument).
  DescentSearch(Evaluator& evaluator, const SearchParams& params, uint64_t seed = 0);
  /// Searches `pos` (an unfinished turn start; std::invalid_argument otherwise).
  SearchResult run(const Position& pos, const SearchLimits& limits);
  void clear();
  /// Root turn `first_turn` of the last run, then the best child below it at each expanded
  /// node, at most max_turns turns (Search::variation); empty when the root has no such turn.
  std::vector<std::string> variation(const std::string& first_turn, int max_turns) const;
  const SearchParams& params() const { return params_; }
  std::mt19937_64& rng() { return rng_; }

 private:
  struct Node {
    std::string kicks;       // the turn from the parent
    float value = 0.0f;      // for this node's side to move
    float prior = 0.0f;
    int8_t proven = 0;       // +1 won / -1 lost for this node's side to move
    bool expanded = false;
    bool complete = false;   // the turn list holds every turn (a loss can be proven)
    bool all_lost = false;   // every listed turn is proven lost
    uint32_t first_child = 0, num_children = 0;
    uint32_t selections = 0;
    int max_turns = 0;       // turns the last expansion asked for
  };
  void expand(uint32_t node, const Position& pos, int max_turns);
  uint32_t best_child(uint32_t node) const;
  uint32_t select_child(uint32_t node) const;  // best_child, or UCB1 with ubfm_exploration
  void backup(const std::vector<uint32_t>& path);
  void update(uint32_t node);
  std::vector<std::string> line_from(uint32_t node, int max_turns) const;
  SearchResult result(const Position& root, int64_t expansions, double ms) const;

  Evaluator& eval_;
  SearchParams params_;
  std::mt19937_64 rng_;
  TurnGenerator win_;
  std::vector<Node> nodes_;
  int64_t evaluations_ = 0;
  int max_depth_ = 0;
};

}  // namespace ps
