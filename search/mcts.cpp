#include "search/mcts.h"

#include "search/descent.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "engine/turns.h"
#include "search/policy_temperature.h"

namespace ps {

namespace {

using Clock = std::chrono::steady_clock;

enum : uint8_t { kUnexpanded = 0, kExpanding = 1, kExpanded = 2 };

struct ChildBlock;

// A node is the position after one turn. Its statistics are kept from the point of view of the
// player who chose that turn (the parent's side to move), so a parent maximises its children's
// Q directly. The edge data (prior, kicks, hash) lives in the node: a node's children are
// contiguous arrays (one per generation step, see ChildBlock).
struct Node {
  std::atomic<int32_t> visits{0};
  std::atomic<int32_t> in_flight{0};     // virtual visits of simulations under way
  std::atomic<double> value_sum{0.0};    // chooser's point of view
  std::atomic<int8_t> proven{0};         // +1 chooser wins, -1 chooser loses, 0 unknown
  std::atomic<uint8_t> state{kUnexpanded};
  std::atomic<uint8_t> widening{0};      // one thread at a time adds children
  std::atomic<uint8_t> complete{0};      // every distinct turn is a child
  std::atomic<uint8_t> exhausted{0};     // untried prior mass below widen_min_remaining_mass
  std::atomic<uint8_t> capped{0};        // a generation hit turn_gen_max_expansions
  std::atomic<uint8_t> checked{0};       // the win checks of this position ran (check_node):
                                         // proven holds their result, expand skips them
  int8_t winner = -1;                    // the game's winner after this turn, -1 if it goes on
  uint16_t num_kicks = 0;
  float prior = 0.0f;
  uint64_t hash = 0;                     // position hash after the turn
  const uint8_t* kicks = nullptr;        // two kick digits per byte, in the parent's block
  std::atomic<uint32_t> num_children{0}; // published after the children are written
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

template <class F>
void for_each_child(const Node* n, F&& f) {
  uint32_t left = n->num_children.load(std::memory_order_acquire);
  for (ChildBlock* b = n->first.load(std::memory_order_acquire); b && left;
       b = b->next.load(std::memory_order_acquire)) {
    for (uint32_t i = 0; i < b->count && left; ++i, --left) f(&b->nodes[i]);
  }
}

void atomic_add(std::atomic<double>& a, double v) {
  double cur = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(cur, cur + v, std::memory_order_relaxed)) {
  }
}

void play_kicks(Position& pos, const Node* n) {
  for (int i = 0; i < n->num_kicks; ++i) {
    const int d = (n->kicks[i >> 1] >> ((i & 1) * 4)) & 15;
    pos.make_kick(d);
  }
}

std::string kicks_of(const Node* n) {
  std::string s(n->num_kicks, '0');
  for (int i = 0; i < n->num_kicks; ++i) s[size_t(i)] = char('0' + ((n->kicks[i >> 1] >> ((i & 1) * 4)) & 15));
  return s;
}

// Frees the children of n (recursively); n itself is owned by its block or by the tree.
int64_t free_children(Node* n) {
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

}  // namespace

// ------------------------------------------------------------------------------------------

// The win checks' turn generator, one per thread for the thread's life: self-play plays game
// after game on one thread, with a new Search each, and a generator per Search grew its hash
// maps again in every game. Bounded: find_turn holds at most its state budget (about 2.5 MB).
static TurnGenerator& thread_win_checker() {
  thread_local TurnGenerator gen;
  return gen;
}

struct Search::Impl {
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
    std::vector<Leaf> leaves;                // the gather step's leaves
    std::vector<const Position*> leaf_positions;
    std::vector<Evaluation> leaf_evals;
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

  void clear() {
    if (root) free_children(root.get());
    root.reset();
    have_tree = false;
    root_noise.clear();
    node_count = 0;
    logits_stored = 0;
    // single-file: omit begin
    turn_state_bytes = 0;
    // single-file: omit end
  }

  // --- stored network output --------------------------------------------------------------

  static size_t logits_size(const Position& pos) { return size_t(pos.pitch().num_points()) * 8; }

  // Keeps a copy of the logits at n if it may widen later and the budget allows.
  void store_logits(Node* n, const Position& pos, const std::vector<float>& logits) {
    if (n->logits || n->complete.load(std::memory_order_acquire) ||
        n->exhausted.load(std::memory_order_acquire))
      return;
    const int64_t bytes = int64_t(logits_size(pos) * sizeof(float));
    if ((logits_stored.fetch_add(1, std::memory_order_relaxed) + 1) * bytes > kLogitsBudgetBytes) {
      logits_stored.fetch_sub(1, std::memory_order_relaxed);
      return;
    }
    n->logits.reset(new float[logits_size(pos)]);
    std::copy(logits.begin(), logits.end(), n->logits.get());
  }

  // Drops n's logits (and its saved generation) once no generation step needs them (only the
  // thread holding n's expansion or widening flag calls this).
  void release_logits_if_done(Node* n) {
    // single-file: omit begin
    if (n->complete.load(std::memory_order_acquire) || n->exhausted.load(std::memory_order_acquire))
      drop_turn_state(n);
    // single-file: omit end
    if (!n->logits) return;
    if (n->complete.load(std::memory_order_acquire) || n->exhausted.load(std::memory_order_acquire)) {
      n->logits.reset();
      logits_stored.fetch_sub(1, std::memory_order_relaxed);
    }
  }

  // single-file: omit begin (the exported bot lists a node's turns afresh at each widening)
  void drop_turn_state(Node* n) {
    turn_state_bytes.fetch_sub(int64_t(n->turn_state.bytes()), std::memory_order_relaxed);
    n->turn_state.clear();
  }

  // Lists n's turns into res by continuing n's saved generation (best_first_turns with a
  // BestFirstState: the same turns and priors as listing them afresh, from res.first_turn on)
  // when the logits are the ones n keeps, or will keep (n is being expanded: store_logits
  // follows, and the generation is dropped if it stores none); then keeps the generation in n
  // if it fits the node's cap and the search's budget. Returns false, with n's saved
  // generation dropped, for other logits (a widening that evaluated n again, a root's zero
  // logits).
  bool resume_turns(Node* n, const Position& pos, const float* logits, const BestFirstOptions& opt,
                    BestFirstResult& res) {
    if (logits != n->logits.get() && n->state.load(std::memory_order_acquire) != kExpanding) {
      drop_turn_state(n);
      return false;
    }
    const int64_t before = int64_t(n->turn_state.bytes());
    best_first_turns(pos, logits, opt, &n->turn_state, kTurnStateNodeBytes, &res);
    if (res.first_turn > 0) resumed_generations.fetch_add(1, std::memory_order_relaxed);
    const int64_t after = int64_t(n->turn_state.bytes());
    if (turn_state_bytes.fetch_add(after - before, std::memory_order_relaxed) + after - before >
        turn_state_budget)
      drop_turn_state(n);
    return true;
  }

  static int64_t count_turn_state_bytes(const Node* n) {
    int64_t k = int64_t(n->turn_state.bytes());
    for_each_child(n, [&](const Node* c) { k += count_turn_state_bytes(c); });
    return k;
  }
  // single-file: omit end

  static int64_t count_logits(const Node* n) {
    int64_t k = n->logits ? 1 : 0;
    for_each_child(n, [&](const Node* c) { k += count_logits(c); });
    return k;
  }

  // --- the win checks ---------------------------------------------------------------------

  // The engine's exact one-turn checks of c's position `end` (after c's turn; the opponent of
  // c's chooser to move): every reply loses at once (own goal or blocked; all_turns_lose stops
  // at the first reply that does not lose) proves c won for its chooser, so blocked-ball wins
  // are seen one turn early; a reply that scores proves c lost. Returns c's proven value.
  int8_t check_node(Node* c, const Position& end, Worker& w) {
    int8_t pr = 0;
    if (thread_win_checker().all_turns_lose(end)) {
      pr = 1;
    } else if (thread_win_checker().find_winning_turn(end)) {
      pr = -1;
    }
    if (pr != 0) {
      c->proven.store(pr, std::memory_order_relaxed);
      c->complete.store(1, std::memory_order_relaxed);
      c->state.store(kExpanded, std::memory_order_release);
    }
    c->checked.store(1, std::memory_order_release);
    return pr;
  }

  // Runs the win checks on every child of the root that has had none (children created below
  // a former root, now promoted by tree reuse). Before the search starts (one thread).
  void check_root_children(Worker& w) {
    Node* rt = root.get();
    bool any_win = false;
    for_each_child(rt, [&](Node* c) {
      if (c->state.load() != kUnexpanded || c->checked.load() || c->proven.load() != 0) return;
      Position end = root_pos;
      play_kicks(end, c);
      if (check_node(c, end, w) == 1) any_win = true;
    });
    if (any_win) {
      int8_t expect = 0;
      rt->proven.compare_exchange_strong(expect, -1);
    }
  }

  // --- children -------------------------------------------------------------------------

  // Appends turns (already deduplicated) as one block of children of n; publishes them.
  // With `pos` (n's position) and a worker, every new child gets the win checks (check_node)
  // now: the root does this, so that no root turn the checks prove lost is ever played or
  // spent visits on. Elsewhere a child gets the same checks lazily, when it is first visited
  // (expand), which costs one simulation and no network call; checking all of them eagerly
  // was most of the search's CPU time.
  void append_children(Node* n, const std::vector<Turn>& turns, const std::vector<int>& pick,
                       int chooser, const Position* pos = nullptr, Worker* w = nullptr) {
    if (pick.empty()) return;
    auto* b = new ChildBlock;
    b->count = uint32_t(pick.size());
    b->nodes.reset(new Node[pick.size()]);
    size_t bytes = 0;
    for (int i : pick) bytes += (turns[size_t(i)].kicks.size() + 1) / 2;
    b->kicks.reset(new uint8_t[std::max<size_t>(bytes, 1)]());
    uint8_t* k = b->kicks.get();
    bool any_win = false;
    for (size_t j = 0; j < pick.size(); ++j) {
      const Turn& t = turns[size_t(pick[j])];
      if (t.kicks.size() > 0xFFFF) throw std::runtime_error("search: turn longer than 65535 kicks");
      Node& c = b->nodes[j];
      c.prior = t.prior;
      c.hash = t.hash;
      c.winner = t.winner;
      c.num_kicks = uint16_t(t.kicks.size());
      c.kicks = k;
      for (size_t i = 0; i < t.kicks.size(); ++i)
        k[i >> 1] |= uint8_t((t.kicks[i] - '0') << ((i & 1) * 4));
      k += (t.kicks.size() + 1) / 2;
      if (t.winner >= 0) {  // a finished game: exact result, never expanded
        c.proven.store(t.winner == chooser ? 1 : -1, std::memory_order_relaxed);
        c.state.store(kExpanded, std::memory_order_relaxed);
        c.complete.store(1, std::memory_order_relaxed);
      } else if (pos && w) {
        Position end = *pos;
        for (char d : t.kicks) end.make_kick(d - '0');
        check_node(&c, end, *w);
      }
      if (c.proven.load(std::memory_order_relaxed) == 1) any_win = true;
    }
    ChildBlock* last = n->first.load(std::memory_order_relaxed);
    if (!last) {
      n->first.store(b, std::memory_order_release);
    } else {
      while (ChildBlock* nx = last->next.load(std::memory_order_relaxed)) last = nx;
      last->next.store(b, std::memory_order_release);
    }
    node_count.fetch_add(int64_t(pick.size()), std::memory_order_relaxed);
    n->num_children.fetch_add(uint32_t(pick.size()), std::memory_order_release);
    if (any_win) {  // a winning turn proves n won for its side to move (lost for its chooser)
      int8_t expect = 0;
      n->proven.compare_exchange_strong(expect, -1, std::memory_order_acq_rel);
    }
  }

  // Generates up to max_turns turns of pos best-first under logits and adds the ones n lacks.
  // Only one thread at a time may call this for a node (expansion or the widening flag).
  // check_children: run the win checks on the new children now (the root's).
  void generate_children(Node* n, const Position& pos, const float* logits, int max_turns,
                         double min_mass, Worker& w, bool check_children) {
    BestFirstOptions opt;
    opt.max_turns = max_turns;
    opt.min_remaining_mass = min_mass;
    opt.max_expansions = params.turn_gen_max_expansions;
    opt.sum_chains = params.sum_chains;
    BestFirstResult& res = w.turns;
    // single-file: omit begin (the exported bot lists a node's turns afresh at each widening)
    if (!resume_turns(n, pos, logits, opt, res))
      // single-file: omit end
      best_first_turns(pos, logits, opt, &res);
    const uint32_t had = n->num_children.load(std::memory_order_relaxed);
    if (res.turns.empty() && had == 0) {
      // The expansion cap stopped best-first before any chain ended: take the first turn in
      // depth-first order so that every expanded node has a move.
      // (The first chain in direction order: kick the lowest legal direction until the turn
      // ends; every chain ends since each kick draws a segment.)
      std::string k;
      Position end = pos;
      const int mover = pos.side_to_move();
      do {
        const int d = __builtin_ctz(end.legal_kicks());
        end.make_kick(d);
        k.push_back(char('0' + d));
      } while (!end.game_over() && !end.turn_start() && end.side_to_move() == mover);
      Turn t;
      t.kicks = k;
      t.hash = end.hash();
      t.winner = int8_t(end.winner());
      t.reason = end.reason();
      t.prior = float(std::max(1e-6, res.remaining_mass));
      res.turns.push_back(std::move(t));
    }
    std::vector<int>& pick = w.pick;
    pick.clear();
    bool all_new = had == 0;
    // single-file: omit begin
    // A continued generation whose earlier turns are exactly n's children lists new ones only.
    all_new = all_new || (res.first_turn > 0 && int64_t(had) == res.first_turn);
    // single-file: omit end
    if (all_new) {
      for (size_t i = 0; i < res.turns.size(); ++i) pick.push_back(int(i));
    } else {
      w.have.clear();
      bool inserted;
      for_each_child(n, [&](const Node* c) { w.have.find_or_insert(c->hash, &inserted); });
      for (size_t i = 0; i < res.turns.size(); ++i)
        if (!w.have.find(res.turns[i].hash)) pick.push_back(int(i));
    }
    append_children(n, res.turns, pick, pos.side_to_move(), check_children ? &pos : nullptr,
                    check_children ? &w : nullptr);
    if (res.complete) n->complete.store(1, std::memory_order_release);
    // Also give up widening once a generation hits the expansion cap: another try would cost
    // the same work at every visit (a quickstart evaluation game sat for minutes at such a
    // root, regenerating 200,000 chain prefixes per visit).
    const bool capped = !res.complete && res.expansions >= opt.max_expansions;
    if (capped) n->capped.store(1, std::memory_order_release);
    if (res.complete || res.remaining_mass < params.widen_min_remaining_mass || capped)
      n->exhausted.store(1, std::memory_order_release);
  }

  int allowed_children(const Node* n, bool is_root) const {
    const double N = n->visits.load(std::memory_order_relaxed);
    double a = params.initial_turns + params.widen_per_sqrt_visit * std::sqrt(N);
    if (is_root) a = std::max(a, double(params.root_initial_turns));
    return int(std::min(a, 1e9));
  }

  bool all_children_lost(const Node* n) const {
    bool all = n->num_children.load(std::memory_order_acquire) > 0;
    for_each_child(n, [&](const Node* c) {
      if (c->proven.load(std::memory_order_acquire) != -1) all = false;
    });
    return all;
  }

  // Widens n when its visits allow more children or when the solver needs the rest of its
  // turns. Does nothing when another thread is widening it.
  void maybe_widen(Node* n, const Position& pos, bool is_root, Worker& w) {
    if (n->complete.load(std::memory_order_acquire)) return;
    const int have = int(n->num_children.load(std::memory_order_acquire));
    const int allowed = allowed_children(n, is_root);
    bool forced = false;
    if (have >= allowed || n->exhausted.load(std::memory_order_acquire)) {
      // The solver wants the remaining turns of a node whose children all lose, unless
      // generation already hit its cap there (it would pay the cap again at every visit).
      if (!params.solver || n->capped.load(std::memory_order_acquire) || !all_children_lost(n))
        return;
      forced = true;
    }
    uint8_t expect = 0;
    if (!n->widening.compare_exchange_strong(expect, 1, std::memory_order_acq_rel)) return;
    if (!n->complete.load(std::memory_order_acquire)) {
      // The logits stored at the expansion; the network only when none were kept (budget, or
      // released when the node became exhausted and the solver now forces a widening).
      const float* logits = n->logits.get();
      if (!logits) {
        evaluator.evaluate(pos, w.eval);
        evaluations.fetch_add(1, std::memory_order_relaxed);
        check_eval(pos, w.eval);
        logits = w.eval.policy_logits.data();
      }
      const int target = std::max(allowed, 2 * std::max(have, 1));
      generate_children(n, pos, logits, target,
                        forced || is_root ? 0.0 : params.widen_min_remaining_mass, w, is_root);
      release_logits_if_done(n);
    }
    n->widening.store(0, std::memory_order_release);
  }

  static void check_eval(const Position& pos, const Evaluation& e) {
    if (e.policy_logits.size() != size_t(pos.pitch().num_points()) * 8)
      throw std::runtime_error("search: evaluator returned " + std::to_string(e.policy_logits.size()) +
                               " policy logits, expected num_points * 8 = " +
                               std::to_string(pos.pitch().num_points() * 8));
    if (!std::isfinite(e.value)) throw std::runtime_error("search: evaluator returned a non-finite value");
  }

  // The part of a leaf's expansion that needs no network (n is kExpanding, owned by this
  // thread): the win checks. Returns true, with the leaf's value for its chooser in v and n
  // kExpanded, when they decide the leaf; false when it needs an evaluation (expand_evaluated).
  bool expand_by_checks(Node* n, const Position& pos, bool is_root, Worker& w, double& v) {
    // A node whose win checks already ran (check_node) and proved nothing has no winning turn
    // and not every turn loses (or the state budget ran out, which would repeat): skip them.
    if (n->checked.load(std::memory_order_acquire)) return false;
    std::string win;
    if (thread_win_checker().find_winning_turn(pos, &win)) {
      // Proven win for the side to move: the winning turn is the only child it needs.
      Position end = pos;
      for (char c : win) end.make_kick(c - '0');
      std::vector<Turn> t(1);
      t[0].kicks = win;
      t[0].hash = end.hash();
      t[0].winner = int8_t(end.winner());
      t[0].reason = end.reason();
      t[0].prior = 1.0f;
      append_children(n, t, {0}, pos.side_to_move());
      n->proven.store(-1, std::memory_order_release);
      v = -1.0;
    } else if (!is_root && thread_win_checker().all_turns_lose(pos)) {
      n->proven.store(1, std::memory_order_release);
      n->complete.store(1, std::memory_order_release);
      v = 1.0;
    } else {
      return false;
    }
    n->state.store(kExpanded, std::memory_order_release);
    return true;
  }

  // Finishes the expansion of leaf n at pos with the network's output e: its first turns
  // best-first, its kept logits. Returns the leaf's value for its chooser.
  double expand_evaluated(Node* n, const Position& pos, bool is_root, Worker& w,
                          const Evaluation& e) {
    check_eval(pos, e);
    const BestFirstOptions ro = root_turn_options(params);
    generate_children(n, pos, e.policy_logits.data(),
                      is_root ? ro.max_turns : params.initial_turns,
                      is_root ? ro.min_remaining_mass : params.widen_min_remaining_mass, w,
                      is_root);
    store_logits(n, pos, e.policy_logits);
    // single-file: omit begin
    // A generation is kept only with its logits.
    if (!n->logits) drop_turn_state(n);
    // single-file: omit end
    double v = -double(std::clamp(e.value, -1.0f, 1.0f));
    if (n->proven.load(std::memory_order_acquire) == -1) v = -1.0;  // a winning child
    if (is_root && params.solver && n->complete.load(std::memory_order_relaxed) &&
        all_children_lost(n)) {
      n->proven.store(1, std::memory_order_release);
    }
    n->state.store(kExpanded, std::memory_order_release);
    return v;
  }

  // Expands a leaf at pos (its state is kExpanding, owned by this thread), asking the network
  // when the win checks do not decide it. Returns the leaf's value from its chooser's point of
  // view.
  double expand(Node* n, const Position& pos, bool is_root, Worker& w) {
    double v;
    if (expand_by_checks(n, pos, is_root, w, v)) return v;
    evaluator.evaluate(pos, w.eval);
    evaluations.fetch_add(1, std::memory_order_relaxed);
    return expand_evaluated(n, pos, is_root, w, w.eval);
  }

  // --- selection ------------------------------------------------------------------------

  float root_prior(const Node* root_node, const Node* c, size_t index) const {
    if (root_noise.empty()) return c->prior;
    const double eps = params.dirichlet_fraction;
    const double noise = index < root_noise.size() ? root_noise[index] : 0.0;
    return float((1 - eps) * c->prior + eps * noise);
  }

  // PUCT choice among n's children (AlphaZero pseudocode, with virtual loss and FPU). Returns
  // nullptr when every child is proven lost.
  Node* select_child(Node* n, bool is_root) const {
    const int vl = params.virtual_loss;
    const double parent_n = n->visits.load(std::memory_order_relaxed) +
                            double(vl) * n->in_flight.load(std::memory_order_relaxed);
    const double c = std::log((1.0 + parent_n + params.c_puct_base) / params.c_puct_base) +
                     params.c_puct_init;
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

  // --- one simulation -------------------------------------------------------------------

  void backup(const std::vector<Node*>& path, double v) {
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
      int8_t expect = 0;
      if (pc == 1) {
        parent->proven.compare_exchange_strong(expect, -1, std::memory_order_acq_rel);
      } else if (pc == -1) {
        if (parent->complete.load(std::memory_order_acquire) && all_children_lost(parent))
          parent->proven.compare_exchange_strong(expect, 1, std::memory_order_acq_rel);
        else
          break;
      } else {
        break;
      }
    }
  }

  static void undo_virtual(const std::vector<Node*>& path) {
    for (size_t i = 1; i < path.size(); ++i)
      path[i]->in_flight.fetch_sub(1, std::memory_order_release);
  }

  enum class Step { kBackedUp, kCollision, kLeaf };

  // One descent from the root by PUCT choices, with virtual loss on the path. kBackedUp: it
  // ended at an exact leaf or one the win checks decided, and its value is backed up. kLeaf:
  // path.back() is a leaf this thread now owns (kExpanding) that needs the network at pos
  // (leaf_is_root: it is the root); the caller evaluates it, then expand_evaluated and backup.
  // kCollision: nothing recorded (another simulation holds the way); the caller retries.
  Step descend(Worker& w, std::vector<Node*>& path, Position& pos, bool& leaf_is_root) {
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
          int8_t expect = 0;
          n->proven.compare_exchange_strong(expect, 1, std::memory_order_acq_rel);
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
  bool simulate(Worker& w) {
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
  void work_gathered(Worker& w) {
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
  void evaluate_leaves(Worker& w, size_t n) {
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

  bool should_stop() {
    if (stop.load(std::memory_order_relaxed)) return true;
    if (params.solver && root->proven.load(std::memory_order_acquire) != 0) return true;
    if (has_deadline && Clock::now() >= deadline) return true;
    return false;
  }

  void work(Worker& w) {
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

  // --- tree reuse -----------------------------------------------------------------------

  // Makes the node reached from the old root by `child` (and then `grandchild`, if any) the new
  // root, freeing everything else.
  void promote(Node* target) {
    auto nr = std::make_unique<Node>();
    nr->visits.store(target->visits.load());
    nr->value_sum.store(target->value_sum.load());
    nr->proven.store(target->proven.load());
    nr->state.store(target->state.load());
    nr->complete.store(target->complete.load());
    nr->exhausted.store(target->exhausted.load());
    nr->capped.store(target->capped.load());
    nr->checked.store(target->checked.load());
    nr->logits = std::move(target->logits);
    // single-file: omit begin
    nr->turn_state = std::move(target->turn_state);
    // single-file: omit end
    nr->winner = target->winner;
    nr->hash = target->hash;
    nr->num_children.store(target->num_children.load());
    nr->first.store(target->first.load());
    target->first.store(nullptr);
    target->num_children.store(0);
    free_children(root.get());
    root = std::move(nr);
    node_count = 1 + count_nodes(root.get());
    logits_stored = count_logits(root.get());
    // single-file: omit begin
    turn_state_bytes = count_turn_state_bytes(root.get());
    // single-file: omit end
  }

  static int64_t count_nodes(const Node* n) {
    int64_t k = 0;
    for_each_child(n, [&](const Node* c) { k += 1 + count_nodes(c); });
    return k;
  }

  void prepare_root(const Position& pos) {
    if (have_tree && params.reuse_tree && &pos.pitch() == &root_pos.pitch() &&
        pos.variant() == root_pos.variant()) {
      if (root_pos.hash() == pos.hash()) return;
      Node* found = nullptr;
      for_each_child(root.get(), [&](Node* c) {
        if (found) return;
        if (c->hash == pos.hash()) found = c;
        for_each_child(c, [&](Node* g) {
          if (!found && g->hash == pos.hash()) found = g;
        });
      });
      if (found) {
        promote(found);
        root_pos = pos;
        root_noise.clear();
        check_root_children(main_worker);
        return;
      }
    }
    clear();
    root = std::make_unique<Node>();
    root->hash = pos.hash();
    node_count = 1;
    root_pos = pos;
    have_tree = true;
  }

  void add_root_noise() {
    const size_t n = root->num_children.load();
    if (!params.root_noise || n == 0 || !root_noise.empty()) return;
    std::gamma_distribution<double> gamma(params.dirichlet_alpha_total / double(n), 1.0);
    root_noise.resize(n);
    double sum = 0;
    for (auto& x : root_noise) sum += (x = float(gamma(rng)));
    if (sum <= 0) {
      for (auto& x : root_noise) x = float(1.0 / double(n));
    } else {
      for (auto& x : root_noise) x = float(x / sum);
    }
  }

  // --- result ---------------------------------------------------------------------------

  // Best child for move choice and the principal variation: a proven win, else most visits
  // among children not proven lost (ties: higher Q, then prior order).
  static const Node* best_child(const Node* n) {
    const Node* best = nullptr;
    auto key = [](const Node* c) {
      const int8_t pr = c->proven.load();
      const int32_t v = c->visits.load();
      const double q = v > 0 ? c->value_sum.load() / v : -2.0;
      return std::make_tuple(pr == 1 ? 1 : 0, pr == -1 ? 0 : 1, v, q, c->prior);
    };
    for_each_child(n, [&](const Node* c) {
      if (!best || key(c) > key(best)) best = c;
    });
    return best;
  }

  SearchResult make_result() const {
    SearchResult r;
    const Node* rt = root.get();
    // single-file: omit begin (no room in the bot's file)
    r.children.reserve(rt->num_children.load());
    // single-file: omit end
    for_each_child(rt, [&](const Node* c) {
      RootChild rc;
      rc.kicks = kicks_of(c);
      rc.visits = c->visits.load();
      rc.q = rc.visits > 0 ? float(c->value_sum.load() / rc.visits) : 0.0f;
      rc.prior = c->prior;
      rc.proven = c->proven.load();
      r.children.push_back(std::move(rc));
    });
    r.root_visits = rt->visits.load();
    r.root_proven = -rt->proven.load();
    r.root_value = r.root_proven != 0 ? float(r.root_proven)
                   : r.root_visits > 0 ? float(-rt->value_sum.load() / r.root_visits)
                                       : 0.0f;
    if (const Node* b = best_child(rt)) r.best_turn = kicks_of(b);
    for (const Node* n = rt; n;) {
      const Node* b = best_child(n);
      if (!b) break;
      r.principal_variation.push_back(kicks_of(b));
      if (b->visits.load() == 0) break;
      n = b;
    }
    r.tree_nodes = node_count.load();
    return r;
  }

// single-file: omit begin (the exported bot shows no variations)
  std::vector<std::string> variation(const std::string& first_turn, int max_turns) const {
    std::vector<std::string> pv;
    const Node* first = nullptr;
    if (root) for_each_child(root.get(), [&](const Node* c) {
      if (!first && kicks_of(c) == first_turn) first = c;
    });
    for (const Node* n = first; n && int(pv.size()) < max_turns; n = best_child(n)) {
      pv.push_back(kicks_of(n));
      if (n->visits.load() == 0) break;
    }
    return pv;
  }
// single-file: omit end

  SearchResult run(const Position& pos, const SearchLimits& limits) {
    if (pos.game_over()) throw std::invalid_argument("search: the game is over");
    if (!pos.turn_start()) throw std::invalid_argument("search: position is in the middle of a turn");
    stop.store(false, std::memory_order_relaxed);
    const auto t0 = Clock::now();
    int64_t visits = limits.visits, time_ms = limits.time_ms;
    if (visits < 0 && time_ms < 0) {
      visits = params.time_ms > 0 ? -1 : params.visits;
      time_ms = params.time_ms;
    }
    visit_limit = visits >= 0 ? visits : INT64_MAX;
    has_deadline = time_ms >= 0;
    deadline = t0 + std::chrono::milliseconds(std::max<int64_t>(time_ms, 0));
    started = 0;
    evaluations = 0;
    collisions = 0;
    // single-file: omit begin
    resumed_generations = 0;
    // single-file: omit end
    stop = false;
    try {
      prepare_root(pos);
      ensure_root_children(root.get());
      // single-file: omit begin (the exported bot has no proof step)
      exclude_root_children();
      // single-file: omit end
      if (limits.root_noise) {
        add_root_noise();
      } else {
        root_noise.clear();
      }
      run_workers(root.get());
    } catch (...) {
      clear();
      throw;
    }
    SearchResult r = make_result();
    r.new_visits = started.load();
    r.evaluations = evaluations.load();
    r.collisions = collisions.load();
    // single-file: omit begin
    r.resumed_generations = resumed_generations.load();
    // single-file: omit end
    r.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return r;
  }

  // single-file: omit begin (the exported bot has no proof step)
  // Marks the root's children listed in excluded_root_turns proven lost for the root's side to
  // move (the MCTS-solver's mark: never selected, never played while a turn not proven lost
  // exists; when every listed child is lost the solver widens the root).
  void exclude_root_children() {
    if (excluded_root_turns.empty()) return;
    std::sort(excluded_root_turns.begin(), excluded_root_turns.end());
    for_each_child(root.get(), [&](Node* c) {
      if (std::binary_search(excluded_root_turns.begin(), excluded_root_turns.end(), c->hash)) {
        c->proven.store(-1, std::memory_order_relaxed);
        c->checked.store(1, std::memory_order_relaxed);
      }
    });
    excluded_root_turns.clear();
  }
  // single-file: omit end

  // The root's turn list before the descents: a fresh root is expanded; a reused one gets its
  // root-sized list (from the logits kept at its expansion when there are some); a root proven
  // lost lists some turns to play.
  void ensure_root_children(Node* rt) {
    if (rt->state.load() == kExpanded && rt->num_children.load() == 0) {
      // A reused node proven at its creation (the side to move could score at once, or every
      // turn lost) was never expanded and stores no turns, not even its winning one. Expand
      // it as a fresh root: the win check then adds the scoring turn, which best_child plays
      // (listing turns by prior alone played a non-scoring turn of a won position).
      rt->state.store(kUnexpanded);
      rt->complete.store(0);
      rt->exhausted.store(0);
      rt->checked.store(0);  // expand must run the win check again to list the scoring turn
    }
    if (rt->state.load() == kUnexpanded) {
      rt->state.store(kExpanding);
      w_path_root(main_worker);
      const double v = expand(rt, root_pos, true, main_worker);
      backup(main_worker.path, v);
    } else if (rt->num_children.load() == 0 ||
               (rt->proven.load() == 0 && !rt->complete.load() &&
                int(rt->num_children.load()) < params.root_initial_turns && !rt->exhausted.load())) {
      // A reused root (or a proven one without children) gets its root-sized turn list,
      // from the logits kept at its expansion when there are some.
      const float* logits = rt->logits.get();
      if (!logits) {
        evaluator.evaluate(root_pos, main_worker.eval);
        evaluations.fetch_add(1);
        check_eval(root_pos, main_worker.eval);
        logits = main_worker.eval.policy_logits.data();
      }
      generate_children(rt, root_pos, logits, std::max(params.root_initial_turns, 1), 0.0, main_worker, true);
      release_logits_if_done(rt);
    }
    if (rt->num_children.load() == 0) {
      // A root proven lost by the win check has no children: list some turns to play.
      main_worker.zero_logits.assign(size_t(root_pos.pitch().num_points()) * 8, 0.0f);
      generate_children(rt, root_pos, main_worker.zero_logits.data(), params.initial_turns, 0.0, main_worker,
                        true);
    }
  }

  // The descents of one search: on the calling thread, or on num_threads threads (the first
  // error stops them all and is rethrown). Nothing to do at a proven root the solver settles.
  void run_workers(Node* rt) {
    const bool root_proven = rt->proven.load() != 0;
    if (!(root_proven && (params.solver || rt->proven.load() == -1))) {
      const int threads = params.num_threads;
      if (threads == 1) {
        work(main_worker);
      } else {
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
      }
    }
  }

  void w_path_root(Worker& w) {
    w.path.clear();
    w.path.push_back(root.get());
  }
};

// ------------------------------------------------------------------------------------------

BestFirstOptions root_turn_options(const SearchParams& params) {
  BestFirstOptions opt;  // as generate_children builds them
  opt.max_turns = std::max(params.root_initial_turns, params.initial_turns);
  opt.min_remaining_mass = 0.0;  // a root is not cut by widen_min_remaining_mass
  opt.max_expansions = params.turn_gen_max_expansions;
  opt.sum_chains = params.sum_chains;
  return opt;
}

// single-file: omit begin (the exported bot shows no variations)
int SearchResult::best_index() const {
  for (size_t i = 0; i < children.size(); ++i)
    if (children[i].kicks == best_turn) return int(i);
  return -1;
}
// single-file: omit end

std::string sample_turn(const SearchResult& result, double temperature, std::mt19937_64& rng) {
  if (result.children.empty()) throw std::invalid_argument("sample_turn: the search result has no turns");
  if (!(temperature > 0) || result.root_proven != 0) return result.best_turn;
  std::vector<double> w(result.children.size(), 0.0);
  double total = 0, max_visits = 0;
  for (const auto& c : result.children)
    if (c.proven != -1) max_visits = std::max(max_visits, double(c.visits));
  if (max_visits <= 0) return result.best_turn;
  for (size_t i = 0; i < w.size(); ++i) {
    const auto& c = result.children[i];
    if (c.proven == -1 || c.visits == 0) continue;
    // Normalised by the largest count so that small temperatures do not overflow.
    w[i] = std::pow(double(c.visits) / max_visits, 1.0 / temperature);
    total += w[i];
  }
  if (!(total > 0)) return result.best_turn;
  std::uniform_real_distribution<double> u(0.0, total);
  double x = u(rng);
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] <= 0) continue;
    if (x < w[i]) return result.children[i].kicks;
    x -= w[i];
  }
  for (size_t i = w.size(); i-- > 0;)
    if (w[i] > 0) return result.children[i].kicks;
  return result.best_turn;
}

// The single-file bot (export/single_file.h) plays PUCT only at policy temperature 1 (its
// parameters are fixed): the tempering and the UBFM / Descent dispatch are left out of it, and so
// are search/policy_temperature.h and search/descent.h / .cpp (with the members that hold them).
// The policy temperature is applied here, once for every algorithm (search/policy_temperature.h).
Search::Search(Evaluator& evaluator, const SearchParams& params, uint64_t seed) {
  Evaluator* ev = &evaluator;
  // single-file: omit begin (the exported bot searches at temperature 1 and plays PUCT only)
  if (params.policy_temperature != 1.0) {
    tempered_ = std::make_unique<PolicyTemperatureEvaluator>(evaluator, params.policy_temperature);
    ev = tempered_.get();
  }
  if (params.algorithm != "puct") {
    descent_ = std::make_unique<DescentSearch>(*ev, params, seed);
    return;
  }
  // single-file: omit end
  impl_ = std::make_unique<Impl>(*ev, params, seed);
}
Search::~Search() = default;
SearchResult Search::run(const Position& pos, const SearchLimits& limits) {
// single-file: omit begin
  if (descent_) return descent_->run(pos, limits);
// single-file: omit end
  return impl_->run(pos, limits);
}
void Search::clear() {
// single-file: omit begin
  if (descent_) return descent_->clear();
// single-file: omit end
  impl_->clear();
}
// single-file: omit begin (the exported bot shows no variations)
std::vector<std::string> Search::variation(const std::string& first_turn, int max_turns) const {
  if (descent_) return descent_->variation(first_turn, max_turns);
  return impl_->variation(first_turn, max_turns);
}
// single-file: omit end
// single-file: omit begin
void Search::set_turn_state_budget(int64_t bytes) {
  if (bytes < 0)
    throw std::invalid_argument("search: turn state budget must be >= 0 bytes, got " + std::to_string(bytes));
  if (impl_) impl_->turn_state_budget = bytes;
}
// single-file: omit end
// single-file: omit begin
void Search::exclude_root_turns(std::vector<uint64_t> hashes) {
  if (!impl_) throw std::invalid_argument("search: excluded root turns need algorithm puct");
  impl_->excluded_root_turns = std::move(hashes);
}
// single-file: omit end
const SearchParams& Search::params() const {
// single-file: omit begin
  if (descent_) return descent_->params();
// single-file: omit end
  return impl_->params;
}
std::mt19937_64& Search::rng() {
// single-file: omit begin
  if (descent_) return descent_->rng();
// single-file: omit end
  return impl_->rng;
}

}  // namespace ps
