// The PUCT search's child generation (best-first under the policy, continuing a node's saved
// generation), progressive widening, leaf expansion and the engine's exact win checks
// (Search::Impl, search/mcts_impl.h).
#include "search/mcts_impl.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/turns.h"

namespace ps {

using namespace puct;

namespace {

size_t logits_size(const Position& pos) { return size_t(pos.pitch().num_points()) * 8; }

}  // namespace

// Keeps a copy of the logits at n if it may widen later and the budget allows.
void Search::Impl::store_logits(Node* n, const Position& pos, const std::vector<float>& logits) {
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

// The win checks' turn generator, one per thread for the thread's life: self-play plays game
// after game on one thread, with a new Search each, and a generator per Search grew its hash
// maps again in every game. Bounded: find_turn holds at most its state budget (about 2.5 MB).
static TurnGenerator& thread_win_checker() {
  thread_local TurnGenerator gen;
  return gen;
}

// Drops n's logits (and its saved generation) once no generation step needs them (only the
// thread holding n's expansion or widening flag calls this).
void Search::Impl::release_logits_if_done(Node* n) {
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
void Search::Impl::drop_turn_state(Node* n) {
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
bool Search::Impl::resume_turns(Node* n, const Position& pos, const float* logits,
                                const BestFirstOptions& opt, BestFirstResult& res) {
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
// single-file: omit end

// The engine's exact one-turn checks of c's position `end` (after c's turn; the opponent of
// c's chooser to move): every reply loses at once (own goal or blocked; all_turns_lose stops
// at the first reply that does not lose) proves c won for its chooser, so blocked-ball wins
// are seen one turn early; a reply that scores proves c lost. Returns c's proven value.
int8_t Search::Impl::check_node(Node* c, const Position& end, Worker& w) {
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
void Search::Impl::check_root_children(Worker& w) {
  Node* rt = root.get();
  bool any_win = false;
  for_each_child(rt, [&](Node* c) {
    if (c->state.load() != kUnexpanded || c->checked.load() || c->proven.load() != 0) return;
    Position end = root_pos;
    play_kicks(end, c);
    if (check_node(c, end, w) == 1) any_win = true;
  });
  if (any_win) prove(rt, -1);
}

// Appends turns (already deduplicated) as one block of children of n; publishes them.
// With `pos` (n's position) and a worker, every new child gets the win checks (check_node)
// now: the root does this, so that no root turn the checks prove lost is ever played or
// spent visits on. Elsewhere a child gets the same checks lazily, when it is first visited
// (expand), which costs one simulation and no network call; checking all of them eagerly
// was most of the search's CPU time.
void Search::Impl::append_children(Node* n, const std::vector<Turn>& turns, const std::vector<int>& pick,
                                   int chooser, const Position* pos, Worker* w) {
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
    for (size_t i = 0; i < t.kicks.size(); ++i) k[i >> 1] |= uint8_t((t.kicks[i] - '0') << ((i & 1) * 4));
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
  if (any_win) prove(n, -1);  // a winning turn proves n won for its side to move (lost for its chooser)
}

// Generates up to max_turns turns of pos best-first under logits and adds the ones n lacks.
// Only one thread at a time may call this for a node (expansion or the widening flag).
// check_children: run the win checks on the new children now (the root's).
void Search::Impl::generate_children(Node* n, const Position& pos, const float* logits, int max_turns,
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

int Search::Impl::allowed_children(const Node* n, bool is_root) const {
  const double N = n->visits.load(std::memory_order_relaxed);
  double a = params.initial_turns + params.widen_per_sqrt_visit * std::sqrt(N);
  if (is_root) a = std::max(a, double(params.root_initial_turns));
  return int(std::min(a, 1e9));
}

bool Search::Impl::all_children_lost(const Node* n) const {
  bool all = n->num_children.load(std::memory_order_acquire) > 0;
  for_each_child(n, [&](const Node* c) {
    if (c->proven.load(std::memory_order_acquire) != -1) all = false;
  });
  return all;
}

// Widens n when its visits allow more children or when the solver needs the rest of its
// turns. Does nothing when another thread is widening it.
void Search::Impl::maybe_widen(Node* n, const Position& pos, bool is_root, Worker& w) {
  if (n->complete.load(std::memory_order_acquire)) return;
  const int have = int(n->num_children.load(std::memory_order_acquire));
  const int allowed = allowed_children(n, is_root);
  bool forced = false;
  if (have >= allowed || n->exhausted.load(std::memory_order_acquire)) {
    // The solver wants the remaining turns of a node whose children all lose, unless
    // generation already hit its cap there (it would pay the cap again at every visit).
    if (!params.solver || n->capped.load(std::memory_order_acquire) || !all_children_lost(n)) return;
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
    generate_children(n, pos, logits, target, forced || is_root ? 0.0 : params.widen_min_remaining_mass, w,
                      is_root);
    release_logits_if_done(n);
  }
  n->widening.store(0, std::memory_order_release);
}

void Search::Impl::check_eval(const Position& pos, const Evaluation& e) {
  if (e.policy_logits.size() != size_t(pos.pitch().num_points()) * 8)
    throw std::runtime_error(
        "search: evaluator returned " + std::to_string(e.policy_logits.size()) +
        " policy logits, expected num_points * 8 = " + std::to_string(pos.pitch().num_points() * 8));
  if (!std::isfinite(e.value)) throw std::runtime_error("search: evaluator returned a non-finite value");
}

// The part of a leaf's expansion that needs no network (n is kExpanding, owned by this
// thread): the win checks. Returns true, with the leaf's value for its chooser in v and n
// kExpanded, when they decide the leaf; false when it needs an evaluation (expand_evaluated).
bool Search::Impl::expand_by_checks(Node* n, const Position& pos, bool is_root, Worker& w, double& v) {
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
double Search::Impl::expand_evaluated(Node* n, const Position& pos, bool is_root, Worker& w,
                                      const Evaluation& e) {
  check_eval(pos, e);
  const BestFirstOptions ro = root_turn_options(params);
  generate_children(n, pos, e.policy_logits.data(), is_root ? ro.max_turns : params.initial_turns,
                    is_root ? ro.min_remaining_mass : params.widen_min_remaining_mass, w, is_root);
  store_logits(n, pos, e.policy_logits);
  // single-file: omit begin
  // A generation is kept only with its logits.
  if (!n->logits) drop_turn_state(n);
  // single-file: omit end
  double v = -double(std::clamp(e.value, -1.0f, 1.0f));
  // single-file: omit begin
  if (!is_root && params.leaf_reply_turns > 0 && n->proven.load(std::memory_order_acquire) == 0)
    v = reply_value(n, pos, w, v);
  // single-file: omit end
  if (n->proven.load(std::memory_order_acquire) == -1) v = -1.0;  // a winning child
  if (is_root && params.solver && n->complete.load(std::memory_order_relaxed) && all_children_lost(n)) {
    n->proven.store(1, std::memory_order_release);
  }
  n->state.store(kExpanded, std::memory_order_release);
  return v;
}

// single-file: omit begin
// The one-turn minimax value of leaf n at pos (SearchParams::leaf_reply_turns), for n's
// chooser: the best, for the side to move at pos, of the positions after n's first
// leaf_reply_turns children (in prior order), each settled by the win checks (check_node,
// which also marks the child checked for its own expansion later) or else by one network
// evaluation, all of them in one evaluate_many call. `own` (the leaf's own value) when n has
// no children. n is kExpanding, owned by this thread, so no other thread reads its children.
double Search::Impl::reply_value(Node* n, const Position& pos, Worker& w, double own) {
  const int k = params.leaf_reply_turns;
  double best = -2.0;  // for the side to move at pos
  int taken = 0;
  w.reply_positions.clear();
  for_each_child(n, [&](Node* c) {
    if (taken >= k) return;
    ++taken;
    int8_t pr = c->proven.load(std::memory_order_acquire);
    if (pr == 0) {  // the position after c is needed by the win checks or the network
      Position end = pos;
      play_kicks(end, c);
      if (!c->checked.load(std::memory_order_acquire)) pr = check_node(c, end, w);
      if (pr == 0) {
        w.reply_positions.push_back(std::move(end));
        return;
      }
    }
    // A reply that wins (every answer to it loses) proves n lost for its chooser, as
    // append_children does for a child that ends the game.
    if (pr == 1) prove(n, -1);
    best = std::max(best, double(pr));
  });
  const size_t m = w.reply_positions.size();
  if (m > 0) {
    w.reply_pointers.resize(m);
    for (size_t i = 0; i < m; ++i) w.reply_pointers[i] = &w.reply_positions[i];
    if (w.reply_evals.size() < m) w.reply_evals.resize(m);
    evaluator.evaluate_many(w.reply_pointers.data(), m, w.reply_evals.data());
    evaluations.fetch_add(int64_t(m), std::memory_order_relaxed);
    for (size_t i = 0; i < m; ++i) {
      check_eval(w.reply_positions[i], w.reply_evals[i]);
      best = std::max(best, -double(std::clamp(w.reply_evals[i].value, -1.0f, 1.0f)));
    }
  }
  return best < -1.5 ? own : -best;
}
// single-file: omit end

// Expands a leaf at pos (its state is kExpanding, owned by this thread), asking the network
// when the win checks do not decide it. Returns the leaf's value from its chooser's point of
// view.
double Search::Impl::expand(Node* n, const Position& pos, bool is_root, Worker& w) {
  double v;
  if (expand_by_checks(n, pos, is_root, w, v)) return v;
  evaluator.evaluate(pos, w.eval);
  evaluations.fetch_add(1, std::memory_order_relaxed);
  return expand_evaluated(n, pos, is_root, w, w.eval);
}

}  // namespace ps
