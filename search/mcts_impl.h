// Search::Impl: the PUCT search's state (search/mcts.h), its member functions declared here by
// concept and defined in one file per concept: the root and a search's run (mcts.cpp), child
// generation, widening and expansion with the win checks (mcts_expand.cpp), selection, backup
// and the descents (mcts_select.cpp), the result and tree reuse (mcts_result.cpp). The tree's
// nodes and their concurrency contract: search/mcts_node.h. Internal to search/.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/position.h"
#include "engine/turns.h"
#include "nn/evaluator.h"
#include "search/mcts.h"
#include "search/mcts_node.h"
#include "search/params.h"

namespace ps {

struct Search::Impl {
  using Clock = std::chrono::steady_clock;
  using Node = puct::Node;
  using ChildBlock = puct::ChildBlock;

  Evaluator& evaluator;
  SearchParams params;
  std::mt19937_64 rng;

  // The tree.
  std::unique_ptr<Node> root;
  Position root_pos;
  bool have_tree = false;
  std::vector<float> root_noise;  // per root child in order; empty without noise
  std::atomic<int64_t> node_count{0};

  // Nodes holding their policy logits (Node::logits), bounded by kLogitsBudgetBytes.
  std::atomic<int64_t> logits_stored{0};
  static constexpr int64_t kLogitsBudgetBytes = int64_t(256) << 20;
  // single-file: omit begin (the exported bot lists a node's turns afresh at each widening)
  // Nodes' saved best-first generations (Node::turn_state): at most kTurnStateNodeBytes each
  // (a larger one is not kept: that node's widenings list its turns from the first again) and
  // turn_state_budget per search, like the logits they go with.
  std::atomic<int64_t> turn_state_bytes{0};
  int64_t turn_state_budget = int64_t(256) << 20;  // Search::set_turn_state_budget
  static constexpr size_t kTurnStateNodeBytes = size_t(1) << 20;
  std::atomic<int64_t> resumed_generations{0};
  // Root turns (hashes of the positions after them) the next run marks proven lost
  // (Search::exclude_root_turns), then forgets.
  std::vector<uint64_t> excluded_root_turns;
  // single-file: omit end

  // Per-search shared state.
  std::atomic<int64_t> started{0}, evaluations{0}, collisions{0};
  std::atomic<bool> stop{false};
  int64_t visit_limit = 0;
  Clock::time_point deadline;
  bool has_deadline = false;

  // single-file: omit begin (the exported bot evaluates one leaf at a time: leaf_batch 1)
  // A leaf gathered for the network (SearchParams::leaf_batch): its path from the root (with
  // virtual loss on it) and its position; path.back() is in state kExpanding, owned by the
  // worker that gathered it.
  struct Leaf {
    std::vector<Node*> path;
    Position pos{Pitch::standard(), Variant::kStandard};
    bool is_root = false;
  };
  // single-file: omit end

  // Per-thread scratch.
  struct Worker {
    Evaluation eval;
    std::vector<Node*> path;
    Position pos{Pitch::standard(), Variant::kStandard};
    // generate_children's buffers, reused by every expansion of this thread.
    BestFirstResult turns;
    std::vector<int> pick;
    // The hashes of the children a widened node already has.
    HashMap64 have;
    std::vector<float> zero_logits;
    // single-file: omit begin (the exported bot evaluates one leaf at a time: leaf_batch 1)
    std::vector<Leaf> leaves;  // the gather step's leaves
    std::vector<const Position*> leaf_positions;
    std::vector<Evaluation> leaf_evals;
    // reply_value's positions and their evaluations.
    std::vector<Position> reply_positions;
    std::vector<const Position*> reply_pointers;
    std::vector<Evaluation> reply_evals;
    // single-file: omit end
  };
  Worker main_worker;  // the calling thread's, kept between searches (buffers stay allocated)

  Impl(Evaluator& ev, const SearchParams& p, uint64_t seed)
      : evaluator(ev), params(p), rng(seed), root_pos(Pitch::standard(), Variant::kStandard) {
    // single-file: omit begin (the exported bot's parameters are fixed: see search/params.cpp)
    params.validate();
    // single-file: omit end
  }
  ~Impl() { clear(); }
  enum class Step { kBackedUp, kCollision, kLeaf };

  // The root and a search's run (mcts.cpp).
  void clear();
  SearchResult run(const Position& pos, const SearchLimits& limits);
  void ensure_root_children(Node* rt);
  void w_path_root(Worker& w);
  // Child generation, widening and expansion, with the engine's win checks (mcts_expand.cpp).
  void store_logits(Node* n, const Position& pos, const std::vector<float>& logits);
  void release_logits_if_done(Node* n);
  // single-file: omit begin
  void drop_turn_state(Node* n);
  bool resume_turns(Node* n, const Position& pos, const float* logits, const BestFirstOptions& opt,
                    BestFirstResult& res);
  // single-file: omit end
  int8_t check_node(Node* c, const Position& end, Worker& w);
  void check_root_children(Worker& w);
  void append_children(Node* n, const std::vector<Turn>& turns, const std::vector<int>& pick, int chooser,
                       const Position* pos = nullptr, Worker* w = nullptr);
  void generate_children(Node* n, const Position& pos, const float* logits, int max_turns, double min_mass,
                         Worker& w, bool check_children);
  int allowed_children(const Node* n, bool is_root) const;
  bool all_children_lost(const Node* n) const;
  void maybe_widen(Node* n, const Position& pos, bool is_root, Worker& w);
  static void check_eval(const Position& pos, const Evaluation& e);
  bool expand_by_checks(Node* n, const Position& pos, bool is_root, Worker& w, double& v);
  double expand_evaluated(Node* n, const Position& pos, bool is_root, Worker& w, const Evaluation& e);
  double expand(Node* n, const Position& pos, bool is_root, Worker& w);
  // single-file: omit begin
  double reply_value(Node* n, const Position& pos, Worker& w, double own);
  // single-file: omit end
  // Selection, backup and the descents (mcts_select.cpp).
  float root_prior(const Node* root_node, const Node* c, size_t index) const;
  Node* select_child(Node* n, bool is_root) const;
  void backup(const std::vector<Node*>& path, double v);
  Step descend(Worker& w, std::vector<Node*>& path, Position& pos, bool& leaf_is_root);
  bool simulate(Worker& w);
  // single-file: omit begin
  void work_gathered(Worker& w);
  void evaluate_leaves(Worker& w, size_t n);
  // single-file: omit end
  bool should_stop();
  void work(Worker& w);
  void run_workers(Node* rt);
  // The result, tree reuse, root noise and excluded root turns (mcts_result.cpp).
  void prepare_root(const Position& pos);
  void promote(Node* target);
  // single-file: omit begin
  void add_root_noise();
  // single-file: omit end
  SearchResult make_result() const;
  // single-file: omit begin
  std::vector<std::string> variation(const std::string& first_turn, int max_turns) const;
  void exclude_root_children();
  // single-file: omit end
};

}  // namespace ps
