// The PUCT search's tree (search/mcts.h; Search::Impl in search/mcts_impl.h): its nodes, the
// blocks that hold a node's children, and the contract under which the search's threads share
// them. Internal to search/.
//
// Concurrency contract (SearchParams::num_threads descents at once, no lock):
//   - A node's statistics (visits, in_flight, value_sum) and flags (proven, complete,
//     exhausted, capped, checked) are atomics that any thread updates.
//   - state goes kUnexpanded -> kExpanding -> kExpanded. Only the thread whose compare-exchange
//     moves it to kExpanding expands the node; it stores kExpanded with release once the node is
//     decided or its first children are published (a leaf where every turn of the side to move
//     loses gets none), and readers load it with acquire. A child proven at its creation
//     (a finished game, or the root's eager win checks) is kExpanded from the start; so is a
//     child the win checks prove while its parent is still kExpanding (leaf replies,
//     SearchParams::leaf_reply_turns: only the parent's expanding thread reaches it then).
//   - Children are appended one block at a time (ChildBlock) by one thread: the one expanding
//     the node, or the one holding its `widening` flag. The block is written in full before
//     num_children grows (release); readers load num_children (acquire) and walk no further
//     (for_each_child), so a reader never sees a child being written. A published block's
//     edge data (prior, kicks, hash, winner) never changes; its nodes' atomics do, and so do a
//     child's own logits and turn_state, under that child's expansion or widening.
//   - logits and turn_state are touched only by the thread that holds the node's expansion or
//     its widening flag.
//   - Before the descents start and after they end, one thread owns the whole tree: the root's
//     preparation (tree reuse, the root's turn list and win checks, excluded root turns) writes
//     node state without the compare-exchange or the widening flag, and nodes are freed only
//     then (Search::Impl::clear, promote).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/position.h"
#include "engine/turns.h"

namespace ps::puct {

enum : uint8_t { kUnexpanded = 0, kExpanding = 1, kExpanded = 2 };

struct ChildBlock;

// A node is the position after one turn. Its statistics are kept from the point of view of the
// player who chose that turn (the parent's side to move), so a parent maximises its children's
// Q directly. The edge data (prior, kicks, hash) lives in the node: a node's children are
// contiguous arrays (one per generation step, see ChildBlock).
struct Node {
  std::atomic<int32_t> visits{0};
  std::atomic<int32_t> in_flight{0};   // virtual visits of simulations under way
  std::atomic<double> value_sum{0.0};  // chooser's point of view
  std::atomic<int8_t> proven{0};       // +1 chooser wins, -1 chooser loses, 0 unknown
  std::atomic<uint8_t> state{kUnexpanded};
  std::atomic<uint8_t> widening{0};   // one thread at a time adds children
  std::atomic<uint8_t> complete{0};   // every distinct turn is a child
  std::atomic<uint8_t> exhausted{0};  // untried prior mass below widen_min_remaining_mass
  std::atomic<uint8_t> capped{0};     // a generation hit turn_gen_max_expansions
  std::atomic<uint8_t> checked{0};    // the win checks of this position ran (check_node):
                                      // proven holds their result, expand skips them
  int8_t winner = -1;                 // the game's winner after this turn, -1 if it goes on
  uint16_t num_kicks = 0;
  float prior = 0.0f;
  uint64_t hash = 0;                      // position hash after the turn
  const uint8_t* kicks = nullptr;         // two kick digits per byte, in the parent's block
  std::atomic<uint32_t> num_children{0};  // published after the children are written
  std::atomic<ChildBlock*> first{nullptr};
  // The network's policy logits from this node's expansion ([num_points * 8] floats), kept
  // while the node can still widen so that widening never evaluates the position again;
  // released once its turn list is complete or exhausted (see SearchParams::widen_*).
  std::unique_ptr<float[]> logits;
  // single-file: omit begin (the exported bot lists a node's turns afresh at each widening)
  // The node's best-first generation, kept with its logits so that widening continues it
  // instead of listing the first turns again (engine/turns.h BestFirstState; bounded, see
  // Search::Impl::kTurnStateNodeBytes).
  BestFirstState turn_state;
  // single-file: omit end
};

// Children added by one generation step: nodes and their packed kick strings, immutable once
// published (only the nodes' atomic statistics change).
struct ChildBlock {
  std::unique_ptr<Node[]> nodes;
  std::unique_ptr<uint8_t[]> kicks;
  uint32_t count = 0;
  std::atomic<ChildBlock*> next{nullptr};
};

// Calls f on each published child of n (num_children, acquire: never a child still being
// written).
template <class F>
void for_each_child(const Node* n, F&& f) {
  uint32_t left = n->num_children.load(std::memory_order_acquire);
  for (ChildBlock* b = n->first.load(std::memory_order_acquire); b && left;
       b = b->next.load(std::memory_order_acquire)) {
    for (uint32_t i = 0; i < b->count && left; ++i, --left) f(&b->nodes[i]);
  }
}

inline void atomic_add(std::atomic<double>& a, double v) {
  double cur = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(cur, cur + v, std::memory_order_relaxed)) {}
}

// Records the proven result r (+1 / -1 for n's chooser) unless n already holds one: the first
// proof stands (any thread).
inline void prove(Node* n, int8_t r) {
  int8_t expect = 0;
  n->proven.compare_exchange_strong(expect, r, std::memory_order_acq_rel);
}

inline void play_kicks(Position& pos, const Node* n) {
  for (int i = 0; i < n->num_kicks; ++i) {
    const int d = (n->kicks[i >> 1] >> ((i & 1) * 4)) & 15;
    pos.make_kick(d);
  }
}

inline std::string kicks_of(const Node* n) {
  std::string s(n->num_kicks, '0');
  for (int i = 0; i < n->num_kicks; ++i)
    s[size_t(i)] = char('0' + ((n->kicks[i >> 1] >> ((i & 1) * 4)) & 15));
  return s;
}

// Frees the children of n (recursively); n itself is owned by its block or by the tree.
inline int64_t free_children(Node* n) {
  int64_t freed = 0;
  ChildBlock* b = n->first.load(std::memory_order_relaxed);
  while (b) {
    for (uint32_t i = 0; i < b->count; ++i) freed += 1 + free_children(&b->nodes[i]);
    ChildBlock* next = b->next.load(std::memory_order_relaxed);
    delete b;
    b = next;
  }
  n->first.store(nullptr, std::memory_order_relaxed);
  n->num_children.store(0, std::memory_order_relaxed);
  return freed;
}

}  // namespace ps::puct
