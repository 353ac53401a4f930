// PUCT Monte Carlo tree search over whole turns (a turn = a complete bounce chain).
//
// Algorithm: AlphaZero PUCT (Silver et al. 2018, Science, and its published pseudocode) with
//  - nodes at turn starts: players strictly alternate between a node and its children, so a
//    value backs up by negation;
//  - children = the engine's distinct turns, generated best-first by the network's per-kick
//    policy (ps::best_first_turns) with progressive widening: a node starts with the most
//    probable turns and gets more as its visits grow (SearchParams::widen_*), so a position with
//    100,000 turns costs about what one with 20 does;
//  - exact terminal values, the engine's win check at every expansion (a turn scoring into the
//    attacked goal makes the node a proven win without a network call), and MCTS-solver proof
//    propagation (Winands, Bjornsson, Saito 2008): a root with a proven result stops at once;
//    a root's turns are all checked when listed (one the opponent answers with a goal is proven
//    lost and never played while a safe turn exists), deeper turns at their first visit;
//  - one network evaluation per expanded node: widening reuses the logits kept in the node,
//    and continues the node's best-first generation where it stopped (engine/turns.h
//    BestFirstState; Search::set_turn_state_budget) rather than listing its first turns again;
//  - first-play urgency, root Dirichlet noise, temperature, tree reuse (KataGo, Lc0 practice);
//  - several threads on one tree with virtual loss (SearchParams::num_threads), or many
//    single-threaded Search objects in parallel threads sharing one thread-safe Evaluator;
//  - with SearchParams::leaf_batch > 1, each thread gathers that many leaves under virtual loss
//    and evaluates them in one Evaluator::evaluate_many call (the minibatch gather of Leela
//    Chess Zero), so that even a single-threaded search hands the batching service more than
//    one position at a time.
//
// The network is reached only through ps::Evaluator (nn/evaluator.h); this library does not
// depend on LibTorch.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/position.h"
#include "engine/turns.h"
#include "nn/evaluator.h"
#include "search/params.h"

namespace ps {

/// Budget of one search; a negative field means "not limited by this". When both are negative
/// the SearchParams defaults (visits, time_ms) apply.
struct SearchLimits {
  int64_t visits = -1;   ///< new simulations in this search (reused visits do not count)
  int64_t time_ms = -1;  ///< wall-clock milliseconds
  /// false: this search mixes no Dirichlet noise into the root priors even when
  /// params.root_noise is set (playout cap randomization's cheap searches, which share the
  /// full searches' tree so that tree reuse serves both).
  bool root_noise = true;
};

/// Statistics of one root child (one distinct turn).
struct RootChild {
  std::string kicks;   ///< the turn's kick digits (engine representative string)
  int64_t visits = 0;  ///< completed simulations through this turn
  float q = 0.0f;      ///< mean value for the root's side to move, [-1, 1] (0 when unvisited)
  float prior = 0.0f;  ///< network prior of the turn (before root noise)
  int proven = 0;      ///< +1 proven win / -1 proven loss for the root's side to move, 0 unknown
};

/// What a search returns; `children` with their visits is the policy training target.
struct SearchResult {
  std::string best_turn;              ///< proven win if any, else most visited (ties: higher q)
  std::vector<RootChild> children;    ///< every generated root turn, in prior (generation) order
  float root_value = 0.0f;            ///< for the root's side to move, [-1, 1]
  int root_proven = 0;                ///< +1 / -1 proven for the side to move, 0 unknown
  std::vector<std::string> principal_variation;  ///< best_turn, then the best replies below it
  int64_t root_visits = 0;            ///< visits of the root, reused ones included
  int64_t new_visits = 0;             ///< simulations made by this call
  int64_t evaluations = 0;            ///< Evaluator::evaluate calls by this call
  int64_t collisions = 0;             ///< simulations retried because another thread was busy
  /// Turn generations (expansions and widenings) by this call that continued a node's saved
  /// best-first generation instead of listing its turns from the first (Search::
  /// set_turn_state_budget).
  int64_t resumed_generations = 0;
  int64_t tree_nodes = 0;  ///< nodes in the tree after the search
  double elapsed_ms = 0.0;

  /// Index of `best_turn` in children (-1 if children is empty).
  int best_index() const;
};

/// How a search lists the turns of a root it expands: best_first_turns over the network's
/// per-kick logits with these options (priors as it returns them, not renormalised). `analyse`
/// lists the same turns with the same priors.
BestFirstOptions root_turn_options(const SearchParams& params);

/// Samples a root turn: temperature <= 0 (or a proven root) gives best_turn; otherwise turns
/// not proven lost are drawn with probability ~ visits^(1 / temperature). Throws
/// std::invalid_argument when the result has no children.
std::string sample_turn(const SearchResult& result, double temperature, std::mt19937_64& rng);

/// One PUCT search tree. Not thread-safe itself (one caller at a time); with num_threads > 1 it
/// starts its own worker threads inside run(). Cheap to construct: self-play keeps one per game.
class Search {
 public:
  /// evaluator must outlive the Search and be thread-safe when shared. params are validated
  /// (std::invalid_argument when out of range). seed fixes the noise; with num_threads == 1
  /// and a deterministic evaluator the whole search is reproducible.
  Search(Evaluator& evaluator, const SearchParams& params, uint64_t seed = 0);
  ~Search();
  Search(const Search&) = delete;
  Search& operator=(const Search&) = delete;

  /// Searches `pos` (an unfinished position at a turn start; std::invalid_argument otherwise)
  /// within `limits`. Reuses the previous tree when params.reuse_tree and `pos` is the previous
  /// root or up to two turns below it. Evaluator exceptions propagate (the tree is cleared).
  SearchResult run(const Position& pos, const SearchLimits& limits = {});

  /// The principal variation below root turn `first_turn` of the last run: that turn, then the
  /// best reply at each node below it (as SearchResult::principal_variation does for the best
  /// turn), at most max_turns turns. Empty when the root has no such turn. Call between runs.
  std::vector<std::string> variation(const std::string& first_turn, int max_turns = 32) const;

  /// Drops the tree (e.g. between games).
  void clear();
  // single-file: omit begin (the exported bot lists a node's turns afresh at each widening)
  /// Bytes of saved best-first generations (engine/turns.h BestFirstState) this search may keep
  /// in its nodes, so that widening continues a node's generation instead of listing its first
  /// turns again: the same turns and priors, bit for bit. Default 256 MiB per search, at most
  /// 1 MiB per node (a larger one is not kept); a node keeps one only while it keeps its logits
  /// (SearchParams::widen_per_sqrt_visit). 0: every widening lists the node's turns afresh.
  /// Throws std::invalid_argument when negative. Call between runs; a smaller budget applies to
  /// generations saved from then on.
  void set_turn_state_budget(int64_t bytes);
  /// Root turns, named by the hash of the position after each (Position::hash), that the next
  /// run() treats as proven lost for the root's side to move: the MCTS-solver's mark, so they
  /// get no visits and are never played while another turn is not proven lost (the proof step
  /// of the hybrid in search/mcts_player.h). Turns not among the root's listed children are
  /// ignored; the next run() uses the list once and forgets it. Call between runs.
  void exclude_root_turns(std::vector<uint64_t> hashes);
  // single-file: omit end
  const SearchParams& params() const;
  /// Noise and sampling generator (seeded in the constructor).
  std::mt19937_64& rng();

  struct Impl;

 private:
  // The evaluator with params.policy_temperature applied (null at temperature 1); declared
  // first so that it outlives the searches that hold it.
  // single-file: omit begin (the exported bot plays PUCT at policy temperature 1)
  std::unique_ptr<Evaluator> tempered_;
  // single-file: omit end
  std::unique_ptr<Impl> impl_;
};

}  // namespace ps
