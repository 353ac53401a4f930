// The PUCT search's descents: PUCT selection with virtual loss and first-play urgency, backup
// with the MCTS-solver, leaf gathering for batched evaluation, and the worker threads
// (Search::Impl, search/mcts_impl.h).
#include "search/mcts_impl.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ps {

using namespace puct;

namespace {

void undo_virtual(const std::vector<Node*>& path) {
  for (size_t i = 1; i < path.size(); ++i) path[i]->in_flight.fetch_sub(1, std::memory_order_release);
}

}  // namespace

float Search::Impl::root_prior(const Node* root_node, const Node* c, size_t index) const {
  if (root_noise.empty()) return c->prior;
  const double eps = params.dirichlet_fraction;
  const double noise = index < root_noise.size() ? root_noise[index] : 0.0;
  return float((1 - eps) * c->prior + eps * noise);
}

// PUCT choice among n's children (AlphaZero pseudocode, with virtual loss and FPU). Returns
// nullptr when every child is proven lost.
Node* Search::Impl::select_child(Node* n, bool is_root) const {
  const int vl = params.virtual_loss;
  const double parent_n =
      n->visits.load(std::memory_order_relaxed) + double(vl) * n->in_flight.load(std::memory_order_relaxed);
  const double c = std::log((1.0 + parent_n + params.c_puct_base) / params.c_puct_base) + params.c_puct_init;
  const double sqrt_n = std::sqrt(std::max(1.0, parent_n));
  const int32_t nv = n->visits.load(std::memory_order_relaxed);
  const double parent_q = nv > 0 ? -n->value_sum.load(std::memory_order_relaxed) / nv : 0.0;
  double visited_prior = 0;
  size_t idx = 0;
  for_each_child(n, [&](const Node* ch) {
    if (ch->visits.load(std::memory_order_relaxed) + ch->in_flight.load(std::memory_order_relaxed) > 0)
      visited_prior += is_root ? root_prior(n, ch, idx) : ch->prior;
    ++idx;
  });
  const double fpu = parent_q - (is_root ? params.root_fpu_reduction : params.fpu_reduction) *
                                    std::sqrt(std::min(1.0, visited_prior));
  Node* best = nullptr;
  double best_score = -1e300;
  idx = 0;
  for_each_child(n, [&](Node* ch) {
    const size_t i = idx++;
    const int8_t pr = params.solver ? ch->proven.load(std::memory_order_acquire) : 0;
    if (pr == -1) return;
    double score;
    if (pr == 1) {
      score = 1e299;  // a proven win: take it
    } else {
      const int32_t cv = ch->visits.load(std::memory_order_relaxed);
      const int32_t cf = ch->in_flight.load(std::memory_order_relaxed) * vl;
      const double cn = double(cv) + cf;
      const double q = cn > 0 ? (ch->value_sum.load(std::memory_order_relaxed) - cf) / cn : fpu;
      const double p = is_root ? root_prior(n, ch, i) : ch->prior;
      score = q + c * p * sqrt_n / (1.0 + cn);
    }
    if (score > best_score) {
      best_score = score;
      best = ch;
    }
  });
  return best;
}

void Search::Impl::backup(const std::vector<Node*>& path, double v) {
  for (size_t i = path.size(); i-- > 0;) {
    Node* n = path[i];
    atomic_add(n->value_sum, v);
    n->visits.fetch_add(1, std::memory_order_release);
    if (i > 0) n->in_flight.fetch_sub(1, std::memory_order_release);
    v = -v;
  }
  if (!params.solver) return;
  // MCTS-solver: a child proven won for its chooser proves its parent lost for the parent's
  // chooser; a parent all of whose (complete) children are lost is won for its chooser.
  for (size_t i = path.size(); i-- > 1;) {
    Node* child = path[i];
    Node* parent = path[i - 1];
    const int8_t pc = child->proven.load(std::memory_order_acquire);
    if (pc == 1) {
      prove(parent, -1);
    } else if (pc == -1) {
      if (parent->complete.load(std::memory_order_acquire) && all_children_lost(parent)) prove(parent, 1);
      else break;
    } else {
      break;
    }
  }
}

// One descent from the root by PUCT choices, with virtual loss on the path. kBackedUp: it
// ended at an exact leaf or one the win checks decided, and its value is backed up. kLeaf:
// path.back() is a leaf this thread now owns (kExpanding) that needs the network at pos
// (leaf_is_root: it is the root); the caller evaluates it, then expand_evaluated and backup.
// kCollision: nothing recorded (another simulation holds the way); the caller retries.
Search::Impl::Step Search::Impl::descend(Worker& w, std::vector<Node*>& path, Position& pos,
                                         bool& leaf_is_root) {
  path.clear();
  Node* n = root.get();
  path.push_back(n);
  pos = root_pos;
  double v = 0;
  while (true) {
    const bool is_root = n == root.get();
    const int8_t pr = n->proven.load(std::memory_order_acquire);
    if (!is_root && pr != 0) {
      // Exact leaf: a finished game (proven when created), a node proven by the win check or
      // all-turns-lose check at its expansion, or by the solver.
      v = pr;
      break;
    }
    uint8_t st = n->state.load(std::memory_order_acquire);
    if (st == kUnexpanded) {
      if (n->state.compare_exchange_strong(st, kExpanding, std::memory_order_acq_rel)) {
        if (expand_by_checks(n, pos, is_root, w, v)) break;
        leaf_is_root = is_root;
        return Step::kLeaf;
      }
    }
    if (st != kExpanded && n->state.load(std::memory_order_acquire) != kExpanded) {
      undo_virtual(path);
      return Step::kCollision;  // another simulation is expanding this leaf
    }
    const uint32_t children_before = n->num_children.load(std::memory_order_acquire);
    maybe_widen(n, pos, is_root, w);
    Node* c = select_child(n, is_root);
    if (!c) {
      if (n->complete.load(std::memory_order_acquire) || !params.solver) {
        // Every turn loses: n is won for its chooser.
        prove(n, 1);
        if (is_root) {
          undo_virtual(path);
          return Step::kCollision;
        }
        v = 1.0;
        break;
      }
      if (n->num_children.load(std::memory_order_acquire) == children_before &&
          n->widening.load(std::memory_order_acquire) == 0) {
        // Every known turn loses and widening found no more (generation capped or nothing
        // new): a practical loss for the side to move, not a proof. Retrying would spin.
        if (is_root) {
          stop.store(true, std::memory_order_relaxed);
          undo_virtual(path);
          return Step::kCollision;
        }
        v = 1.0;
        break;
      }
      undo_virtual(path);
      return Step::kCollision;  // another thread is widening n, or it just got new children
    }
    c->in_flight.fetch_add(1, std::memory_order_acq_rel);
    path.push_back(c);
    play_kicks(pos, c);
    n = c;
  }
  backup(path, v);
  return Step::kBackedUp;
}

// One simulation, its leaf evaluated alone. Returns false on a collision (nothing recorded;
// the caller retries).
bool Search::Impl::simulate(Worker& w) {
  bool leaf_is_root = false;
  const Step s = descend(w, w.path, w.pos, leaf_is_root);
  if (s == Step::kCollision) return false;
  if (s == Step::kLeaf) {
    evaluator.evaluate(w.pos, w.eval);
    evaluations.fetch_add(1, std::memory_order_relaxed);
    backup(w.path, expand_evaluated(w.path.back(), w.pos, leaf_is_root, w, w.eval));
  }
  return true;
}

// single-file: omit begin (the exported bot evaluates one leaf at a time: leaf_batch 1)
// The gather step (SearchParams::leaf_batch > 1; Leela Chess Zero's minibatch gathering):
// up to leaf_batch descents under virtual loss, each leaf that needs the network kept
// waiting, then one evaluate_many call for all of them, then each is expanded and backed up.
// A descent that meets a waiting leaf (a collision) ends the batch early. Every gathered
// leaf counts as one simulation, so the visit budget is exact.
void Search::Impl::work_gathered(Worker& w) {
  const size_t batch = size_t(params.leaf_batch);
  if (w.leaves.size() < batch) w.leaves.resize(batch);
  while (!should_stop()) {
    size_t n = 0;
    bool budget_left = true;
    while (n < batch && !should_stop()) {
      if (started.fetch_add(1, std::memory_order_relaxed) >= visit_limit) {
        started.fetch_sub(1, std::memory_order_relaxed);
        budget_left = false;
        break;
      }
      Leaf& l = w.leaves[n];
      const Step s = descend(w, l.path, l.pos, l.is_root);
      if (s == Step::kLeaf) {
        ++n;
      } else if (s == Step::kCollision) {
        started.fetch_sub(1, std::memory_order_relaxed);
        collisions.fetch_add(1, std::memory_order_relaxed);
        if (n > 0) break;  // the way is held by a waiting leaf: evaluate the batch first
        std::this_thread::yield();
      }
    }
    if (n > 0) {
      evaluate_leaves(w, n);
    } else if (!budget_left) {
      return;
    }
  }
}

// Evaluates the first n gathered leaves in one call, then expands and backs up each.
void Search::Impl::evaluate_leaves(Worker& w, size_t n) {
  w.leaf_positions.resize(n);
  if (w.leaf_evals.size() < n) w.leaf_evals.resize(n);
  for (size_t i = 0; i < n; ++i) w.leaf_positions[i] = &w.leaves[i].pos;
  if (n == 1) {
    evaluator.evaluate(w.leaves[0].pos, w.leaf_evals[0]);
  } else {
    evaluator.evaluate_many(w.leaf_positions.data(), n, w.leaf_evals.data());
  }
  evaluations.fetch_add(int64_t(n), std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i) {
    Leaf& l = w.leaves[i];
    backup(l.path, expand_evaluated(l.path.back(), l.pos, l.is_root, w, w.leaf_evals[i]));
  }
}
// single-file: omit end

bool Search::Impl::should_stop() {
  if (stop.load(std::memory_order_relaxed)) return true;
  if (params.solver && root->proven.load(std::memory_order_acquire) != 0) return true;
  if (has_deadline && Clock::now() >= deadline) return true;
  return false;
}

void Search::Impl::work(Worker& w) {
  // single-file: omit begin (the exported bot evaluates one leaf at a time: leaf_batch 1)
  if (params.leaf_batch > 1) return work_gathered(w);
  // single-file: omit end
  while (!should_stop()) {
    if (started.fetch_add(1, std::memory_order_relaxed) >= visit_limit) {
      started.fetch_sub(1, std::memory_order_relaxed);
      return;
    }
    if (!simulate(w)) {
      started.fetch_sub(1, std::memory_order_relaxed);
      collisions.fetch_add(1, std::memory_order_relaxed);
      std::this_thread::yield();
    }
  }
}

// The descents of one search: on the calling thread, or on num_threads threads (the first
// error stops them all and is rethrown). Nothing to do at a proven root the solver settles.
void Search::Impl::run_workers(Node* rt) {
  if (rt->proven.load() != 0 && (params.solver || rt->proven.load() == -1)) return;
  const int threads = params.num_threads;
  if (threads == 1) return work(main_worker);
  // single-file: omit begin (the exported bot searches on one thread)
  std::vector<std::thread> pool;
  std::exception_ptr error;
  std::mutex error_mutex;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      Worker w;
      try {
        work(w);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        stop = true;
      }
    });
  }
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
  // single-file: omit end
}

}  // namespace ps
