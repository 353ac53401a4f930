#include "engine/turns.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <queue>

namespace ps {

void HashMap64::clear() {
  has_zero_ = false;
  if (size_ == 0) return;
  if (used_.size() * 8 < capacity_) {
    for (uint32_t j : used_) slots_[j].key = kEmpty;
  } else {
    std::fill_n(slots_.begin(), capacity_, Slot{kEmpty, 0});
  }
  used_.clear();
  // A table grown past kKeepCapacity shrinks to what this use needed (the whole array is
  // empty now, so any front part is a valid table).
  if (capacity_ > kKeepCapacity) {
    size_t cap = kKeepCapacity;
    while (cap < 2 * size_) cap *= 2;
    capacity_ = cap;
    mask_ = cap - 1;
  }
  size_ = 0;
}

void HashMap64::grow() {
  const size_t cap = capacity_ == 0 ? kMinCapacity : capacity_ * 2;
  moved_.clear();
  for (uint32_t j : used_) moved_.push_back(slots_[j]);
  used_.clear();
  if (slots_.size() < cap) {
    slots_.assign(cap, Slot{kEmpty, 0});  // the entries are in moved_: nothing to copy
  } else {
    for (size_t i = 0; i < capacity_; ++i) slots_[i].key = kEmpty;  // [capacity_, cap) is empty
  }
  capacity_ = cap;
  mask_ = cap - 1;
  for (const Slot& m : moved_) {
    size_t j = home(m.key);
    while (slots_[j].key != kEmpty) j = (j + 1) & mask_;
    slots_[j] = m;
    used_.push_back(uint32_t(j));
  }
}

// single-file: omit begin (the turn list: not needed by the exported bot)
std::vector<Turn> TurnGenerator::generate(const Position& pos, Stats* stats) {
  std::vector<Turn> out;
  Stats st = for_each_turn(pos, [&](const Position& end, const uint8_t* kicks, int n) {
    Turn t;
    t.kicks.resize(size_t(n));
    for (int i = 0; i < n; ++i) t.kicks[size_t(i)] = char('0' + kicks[i]);
    t.hash = end.hash();
    t.winner = int8_t(end.winner());
    t.reason = end.reason();
    out.push_back(std::move(t));
  });
  if (stats) *stats = st;
  return out;
}
// single-file: omit end

namespace {

// Relaxed reachability in the standard variant: the ball's point and the touched points it can
// reach along undrawn segments, each entered once (a flood fill). Returns the first exit found
// (-1 when none): a point of the attacked goal, and with `untouched_exits` also an untouched
// point whose landing does not block the ball. With `via` (kMaxPoints entries), via[q] is the
// direction of the kick that first reached q, so the flood's path to the exit can be read back.
//
// Exact for the existence of a chain of this turn that ends at such an exit: a chain lands on
// touched points only until it ends (an untouched landing ends the turn), and no kick of it
// draws a segment twice, so every chain is a walk of this graph; conversely the flood's path
// to an exit visits distinct points, so it uses distinct undrawn segments, bounces at every
// touched point on it (each still has the next kick free) and is a legal chain itself.
int relaxed_exit(const Position& pos, bool untouched_exits, uint8_t* via) {
  const Pitch& pitch = pos.pitch();
  const int me = pos.side_to_move();
  uint64_t seen[kMaxPoints / 64] = {};
  int stack[kMaxPoints];
  int top = 0;
  stack[top++] = pos.ball();
  seen[pos.ball() >> 6] |= uint64_t(1) << (pos.ball() & 63);
  while (top > 0) {
    const int p = stack[--top];
    for (unsigned m = unsigned(pitch.allowed_dirs(p) & ~pos.drawn_mask(p)) & 0xFFu; m; m &= m - 1) {
      const int d = __builtin_ctz(m);
      const int q = p + pitch.dir_offset(d);
      if (pitch.is_goal(q)) {
        if (pitch.goal_winner(q) != me) continue;  // an own goal loses
        if (via) via[q] = uint8_t(d);
        return q;
      }
      if ((seen[q >> 6] >> (q & 63)) & 1) continue;
      if (!pos.touched(q)) {
        // Landing here ends the turn; it loses only when it blocks the ball.
        if (untouched_exits && (pitch.allowed_dirs(q) & ~(1u << opposite_dir(d)) & 0xFFu) != 0) {
          if (via) via[q] = uint8_t(d);
          return q;
        }
        continue;
      }
      seen[q >> 6] |= uint64_t(1) << (q & 63);
      if (via) via[q] = uint8_t(d);
      stack[top++] = q;
    }
  }
  return -1;
}

}  // namespace

bool attacked_goal_reachable(const Position& pos) {
  return !pos.game_over() && relaxed_exit(pos, false, nullptr) >= 0;
}

bool TurnGenerator::find_winning_turn(const Position& pos, std::string* kicks) {
  const int mover = pos.side_to_move();
  auto wins = [mover](const Position& end) { return end.winner() == mover; };
  if (pos.variant() != Variant::kStandard) return find_turn(pos, wins, kicks);
  // Standard: only a goal wins (a blocked ball always loses for the kicker), and relaxed
  // reachability of the attacked goal decides it exactly (relaxed_exit).
  complete_ = true;
  if (!attacked_goal_reachable(pos)) return false;
  if (!kicks) return true;
  // The chain: the first winning one in direction order, as the depth-first search finds it
  // (pruned where the goal is out of reach); when its state budget runs out first, the
  // flood's own path.
  auto out_of_reach = [](const Position& mid) { return !attacked_goal_reachable(mid); };
  if (find_turn(pos, wins, out_of_reach, kicks)) return true;
  uint8_t via[kMaxPoints];
  const Pitch& pitch = pos.pitch();
  int q = relaxed_exit(pos, false, via);
  kicks->clear();
  while (q != pos.ball()) {
    kicks->push_back(char('0' + via[q]));
    q -= pitch.dir_offset(via[q]);
  }
  std::reverse(kicks->begin(), kicks->end());
  complete_ = true;
  return true;
}

bool TurnGenerator::all_turns_lose(const Position& start) {
  complete_ = true;
  if (start.game_over()) return false;
  // Standard: a turn that does not lose ends on an untouched point or in the attacked goal,
  // which relaxed reachability decides exactly, without a search or its budget.
  if (start.variant() == Variant::kStandard) return relaxed_exit(start, true, nullptr) < 0;
  // A search the state budget stopped proved nothing (it returned "no such turn" before one
  // was found): not a proof that every turn loses.
  // single-file: only alphabeta begin (no room in the PUCT bot's file for the leaves-first order)
  memo_.clear();
  Position pos = start;
  return !any_safe_turn(pos, pos.side_to_move()) && complete_;
  // single-file: only alphabeta end
  // single-file: only puct begin
  // The PUCT single-file bot: the plain search in direction order, with the same answers.
  const int mover = start.side_to_move();
  auto not_losing = [mover](const Position& end) {
    return !(end.game_over() && end.winner() != mover);
  };
  return !find_turn(start, not_losing, nullptr) && complete_;
  // single-file: only puct end
}

// single-file: only alphabeta begin (the PUCT bot searches in direction order: all_turns_lose)
// Is there a turn from pos that does not lose at once for `mover`? The same states as
// find_turn (mid-turn positions memoised, the same budget), but leaves first: at every
// position the kicks that end the turn are tried before any kick that continues it. A
// depth-first search in direction order dives into the first bounce and can spend thousands
// of states in a tangle before it tries the plain kick beside it (this check was 3.4% of
// self-play's CPU); the answer is the same, since only the order differs.
bool TurnGenerator::any_safe_turn(Position& pos, int mover) {
  unsigned bounces = 0;
  for (unsigned m = pos.legal_kicks(); m; m &= m - 1) {
    const int d = __builtin_ctz(m);
    const KickUndo u = pos.make_kick(d);
    ++kicks_made_;
    const bool ends = pos.game_over() || pos.side_to_move() != mover || pos.turn_start();
    const bool loses = pos.game_over() && pos.winner() != mover;
    pos.unmake_kick(u);
    if (!ends) {
      bounces |= 1u << d;
    } else if (!loses) {
      return true;
    }
  }
  for (unsigned m = bounces; m; m &= m - 1) {
    const KickUndo u = pos.make_kick(__builtin_ctz(m));
    ++kicks_made_;
    bool inserted;
    memo_.find_or_insert(pos.hash(), &inserted);
    if (inserted && int64_t(memo_.size()) > budget_) complete_ = false;
    const bool found = complete_ && inserted && any_safe_turn(pos, mover);
    pos.unmake_kick(u);
    if (found) return true;
    if (!complete_) return false;
  }
  return false;
}
// single-file: only alphabeta end

namespace {

// single-file: omit begin (the perft command's time limit: the exported bot's tests run none)
// Thrown out of an enumeration when perft's time is up; the deadline of the perft call running
// on this thread (null: none).
struct PerftTimeUp {};
thread_local const std::chrono::steady_clock::time_point* perft_deadline = nullptr;
// single-file: omit end

// Recursion inside the enumeration callback: level d's generator is paused in its callback
// while level d - 1's enumerates, so no list of children is stored. `others` is the number of
// states the shallower levels hold meanwhile; each level gets what is left of max_states.
uint64_t perft_rec(const Position& pos, int depth, std::vector<TurnGenerator>& gens,
                   int64_t max_states, int64_t others) {
  if (pos.game_over() || depth == 0) return 1;
  TurnGenerator& gen = gens[size_t(depth)];
  const int64_t left = max_states - others;
  if (left < 1) throw StateLimitError("");
  gen.set_enumeration_limit(left);
  uint64_t total = 0;
  TurnGenerator::Stats st = gen.for_each_turn(pos, [&](const Position& end, const uint8_t*, int) {
    // single-file: omit begin
    // The memoised enumeration reports each distinct turn end; between two it expands at most
    // max_states states, so the clock is looked at often enough.
    if (perft_deadline && std::chrono::steady_clock::now() >= *perft_deadline) throw PerftTimeUp{};
    // single-file: omit end
    if (depth > 1) total += perft_rec(end, depth - 1, gens, max_states, others + gen.states_held());
  });
  if (!st.complete) throw StateLimitError("");
  return depth == 1 ? st.distinct : total;
}

}  // namespace

uint64_t perft(const Position& pos, int depth, uint64_t* kicks_made, int64_t max_states, double max_seconds) {
  if (depth < 0) return 0;
  std::vector<TurnGenerator> gens(size_t(depth) + 1);
  uint64_t leaves = 0;
  // single-file: omit begin
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(max_seconds > 0 ? max_seconds : 0));
  perft_deadline = max_seconds > 0 ? &deadline : nullptr;
  struct Clear {
    ~Clear() { perft_deadline = nullptr; }
  } clear;
  // single-file: omit end
  try {
    leaves = perft_rec(pos, depth, gens, max_states, 0);
  } catch (const StateLimitError&) {
    throw StateLimitError("perft: more than " + std::to_string(max_states) +
                          " mid-turn positions and turn ends held at once (the state limit, "
                          "up to about 80 bytes each); no result");
  }
  // single-file: omit begin
  catch (const PerftTimeUp&) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", max_seconds);
    throw StateLimitError(std::string("perft: not finished within ") + buf +
                          " s (the time limit); no result");
  }
  // single-file: omit end
  if (kicks_made) {
    *kicks_made = 0;
    for (auto& g : gens) *kicks_made += g.kicks_made();
  }
  return leaves;
}

namespace {

// Does kick d from pos lose at once for the mover (own goal, or a blocked ball)?
bool kick_loses(Position& pos, int d, int mover) {
  const KickUndo u = pos.make_kick(d);
  const bool loses = pos.game_over() && pos.winner() != mover;
  pos.unmake_kick(u);
  return loses;
}

template <class Pick>
std::string walk_turn(const Position& start, Position* end, Pick&& pick, const char* who) {
  if (start.game_over()) throw std::invalid_argument(std::string(who) + ": the game is over");
  Position pos = start;
  const int mover = pos.side_to_move();
  std::string kicks;
  do {
    unsigned safe = 0;
    const unsigned legal = pos.legal_kicks();
    for (unsigned m = legal; m; m &= m - 1)
      if (!kick_loses(pos, __builtin_ctz(m), mover)) safe |= m & (~m + 1);
    const int d = pick(safe ? safe : legal);
    pos.make_kick(d);
    kicks.push_back(char('0' + d));
  } while (!pos.game_over() && !pos.turn_start() && pos.side_to_move() == mover);
  if (end) *end = pos;
  return kicks;
}

}  // namespace

// single-file: only alphabeta begin (random turns: alpha-beta's sample past the enumeration limit)
std::string random_turn(const Position& pos, std::mt19937_64& rng, Position* end) {
  return walk_turn(pos, end, [&rng](unsigned set) {
    int k = std::uniform_int_distribution<int>(0, __builtin_popcount(set) - 1)(rng);
    while (k--) set &= set - 1;
    return __builtin_ctz(set);
  }, "random_turn");
}
// single-file: only alphabeta end

std::string first_turn(const Position& pos, Position* end) {
  return walk_turn(pos, end, [](unsigned set) { return __builtin_ctz(set); }, "first_turn");
}

std::string fallback_turn(const Position& pos) {
  if (pos.game_over()) throw std::invalid_argument("fallback_turn: the game is over");
  TurnGenerator gen;
  std::string kicks;
  if (gen.find_winning_turn(pos, &kicks)) return kicks;
  const int mover = pos.side_to_move();
  if (gen.find_turn(pos, [mover](const Position& p) { return !(p.game_over() && p.winner() != mover); },
                    &kicks))
    return kicks;
  // Every turn loses at once (or the bounded search gave up): the first chain, O(its length).
  return first_turn(pos);
}

// --- best-first ---------------------------------------------------------------------------

namespace detail {

struct Prefix {
  int32_t parent;  // index into the arena, -1 for the root
  uint8_t dir;
  uint16_t depth;  // kicks from the root (each draws a new segment: bounded by the pitch's)
  float edge;      // probability of the last kick given the parent (softmax share)
};

// A chain that reached a position already reached by an earlier chain (a mid-turn position
// already expanded, or the end of a turn already emitted): its last kick, from `parent`, with
// probability `edge`, into the arena node `target` of the first chain.
struct Arrival {
  int32_t parent;
  float edge;
  int32_t target;
};

struct QueueEntry {
  double prob;
  int64_t seq;  // insertion order breaks ties deterministically
  int32_t node;
  bool operator<(const QueueEntry& o) const {
    if (prob != o.prob) return prob < o.prob;
    return seq > o.seq;
  }
};

// single-file: omit begin (resumable best-first generation: the exported bot does not resume)
// The fixed part of a saved BestFirstState (data_[0] is `words`), followed by the arena, the
// queue, the merges, the turns' arena nodes, the turn ends (hash, turn index) and the expanded
// mid-turn positions (hash, arena node), each array padded to whole words.
struct SavedHeader {
  uint64_t words;  // the whole buffer, header included
  uint64_t root_hash;
  uint64_t logits_print;
  double frontier_mass;
  double dropped_mass;
  double min_frontier_passed;  // the least unexplored mass at which a stopping check went on
  int64_t seq;
  int64_t expansions;
  int64_t turns_passed;       // turns found when a stopping check last went on (-1: never)
  int64_t expansions_passed;  // expansions then (-1: never)
  uint32_t arena, heap, merges, turns, expanded;
  uint8_t sum_chains, greedy_completion;
};

static_assert(std::is_trivially_copyable<Prefix>::value && std::is_trivially_copyable<Arrival>::value &&
                  std::is_trivially_copyable<QueueEntry>::value,
              "saved by memcpy");

constexpr size_t words_for(size_t bytes) { return (bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t); }

// A fingerprint of the network's logits: a resumed generation must read the same logits as
// the one it continues. FNV-1a's step over 64-bit words (two floats' bits) in four independent
// lanes, folded at the end: each step is a bijection of the lane and of the word, so any
// changed float changes the print. Computed at every generation step (1,000 floats on 8x10);
// one FNV-1a chain over 32-bit words waited on its 1,000 dependent multiplies
// (docs/experiments/selfplay-throughput.md).
uint64_t logits_print(const float* logits, size_t n) {
  constexpr uint64_t kPrime = 0x100000001b3ULL;
  uint64_t lane[4] = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL, 0x9E3779B97F4A7C15ULL,
                      0xC2B2AE3D27D4EB4FULL};
  const size_t words = n / 2;
  size_t i = 0;
  for (; i + 4 <= words; i += 4) {
    for (size_t k = 0; k < 4; ++k) {
      uint64_t w;
      std::memcpy(&w, logits + 2 * (i + k), sizeof w);
      lane[k] = (lane[k] ^ w) * kPrime;
    }
  }
  for (; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, logits + 2 * i, sizeof w);
    lane[0] = (lane[0] ^ w) * kPrime;
  }
  if (n % 2) {
    uint32_t b;
    std::memcpy(&b, logits + n - 1, sizeof b);
    lane[1] = (lane[1] ^ b) * kPrime;
  }
  return (((lane[0] * kPrime) ^ lane[1]) * kPrime ^ lane[2]) * kPrime ^ lane[3];
}
// single-file: omit end

// The working state of best_first_turns, one per thread and reused by every call (a search
// expands many nodes; fresh tables and vectors per call cost allocations and clearing). Each
// member function is one phase of a call: reset (or load a saved generation), pop a prefix and
// rebuild its position, end a chain (a new turn, or an arrival at a position already reached),
// expand a prefix by the masked softmax of its kicks, at the end sum the probabilities of
// merged chains, and save the generation to resume it.
struct BestFirst {
  std::vector<Prefix> arena;
  std::vector<QueueEntry> heap;  // max-heap by QueueEntry::operator<
  HashMap64 index;               // end hash -> index of the turn in the generation's order
  HashMap64 expanded;            // mid-turn position hash -> its first arena node
  std::vector<uint8_t> path;
  std::vector<Arrival> merges;   // later chains into already reached positions (sum_chains)
  std::vector<int32_t> turn_node;  // turn index -> arena node of its first chain
  std::vector<double> mass;      // per arena node: summed probability of reaching it
  std::vector<int32_t> order;    // arena nodes by depth
  std::vector<int32_t> first_of_depth;  // counting-sort scratch of sum_merged_chains
  std::vector<Arrival> sorted_merges;
  double frontier_mass = 0;      // probability of the queued prefixes
  int64_t seq = 0;
  // single-file: omit begin (resumable best-first generation: the exported bot does not resume)
  // The loosest stopping rule the generation has gone past (see BestFirstState).
  int64_t turns_passed = -1, expansions_passed = -1;
  double min_frontier_passed = HUGE_VAL;
  // single-file: omit end

  void reset() {
    arena.clear();
    heap.clear();
    index.clear();
    expanded.clear();
    merges.clear();
    turn_node.clear();
    seq = 0;
    // single-file: omit begin
    turns_passed = expansions_passed = -1;
    min_frontier_passed = HUGE_VAL;
    // single-file: omit end
    frontier_mass = 0;
    arena.push_back({-1, 0, 0, 1.0f});
    push(0, 1.0);
  }

  int32_t add_prefix(int32_t parent, int d, float edge) {
    arena.push_back({parent, uint8_t(d), uint16_t(arena[size_t(parent)].depth + 1), edge});
    return int32_t(arena.size() - 1);
  }

  void push(int32_t node, double prob) {
    heap.push_back({prob, seq++, node});
    std::push_heap(heap.begin(), heap.end());
    frontier_mass += prob;
  }

  QueueEntry pop() {
    std::pop_heap(heap.begin(), heap.end());
    const QueueEntry e = heap.back();
    heap.pop_back();
    frontier_mass -= e.prob;
    return e;
  }

  // The position of prefix `node`, replayed from the root.
  Position rebuild(const Position& root, int32_t node) {
    path.clear();
    for (int32_t n = node; arena[size_t(n)].parent >= 0; n = arena[size_t(n)].parent)
      path.push_back(arena[size_t(n)].dir);
    Position pos = root;
    for (size_t i = path.size(); i-- > 0;) pos.make_kick(path[i]);
    return pos;
  }

  void kicks_of(int32_t node, std::string& out) const {
    out.clear();
    for (int32_t n = node; arena[size_t(n)].parent >= 0; n = arena[size_t(n)].parent)
      out.push_back(char('0' + arena[size_t(n)].dir));
    std::reverse(out.begin(), out.end());
  }

  // The last kick of prefix `node` arrives at arena node `target` of an earlier chain.
  void add_merge(int32_t node, int32_t target) {
    const Prefix& last = arena[size_t(node)];
    merges.push_back({last.parent, last.edge, target});
  }

  // A chain ended at pos (a finished game or the next turn start): a new turn, or with
  // sum_chains an arrival at a turn already emitted.
  void end_chain(const Position& pos, int32_t node, double prob, bool sum_chains,
                 BestFirstResult& res) {
    if (const uint64_t* turn = index.find_or_set(pos.hash(), turn_node.size())) {
      if (sum_chains) add_merge(node, turn_node[*turn]);
      return;
    }
    Turn t;
    kicks_of(node, t.kicks);
    t.hash = pos.hash();
    t.winner = int8_t(pos.winner());
    t.reason = pos.reason();
    t.prior = float(prob);
    res.turns.push_back(std::move(t));
    turn_node.push_back(node);
  }

  // A mid-turn position already expanded through another chain: its continuations are in the
  // queue already (with the first chain's mass), so this chain adds nothing new. Its mass is
  // dropped, which keeps the work bounded by the distinct mid-turn positions. Returns true
  // when the chain stops here.
  bool reached_before(const Position& pos, int32_t node, double prob, bool sum_chains,
                      BestFirstResult& res) {
    const uint64_t* first = expanded.find_or_set(pos.hash(), uint64_t(node));
    if (!first) return false;
    res.dropped_mass += prob;
    if (sum_chains) add_merge(node, int32_t(*first));
    return true;
  }

  // Expands prefix `node` (probability prob) at pos: masked softmax over the legal directions
  // at the ball's point; queues every kick but `follow_best`'s most probable one. Returns that
  // one's direction (its share of prob in *share), or -1 when all are queued.
  int expand(const Position& pos, int32_t node, double prob, const float* logits,
             bool follow_best, double* share) {
    const unsigned legal = pos.legal_kicks();
    const float* lg = logits + size_t(pos.ball()) * kNumDirs;
    int best = -1;
    for (unsigned m = legal; m; m &= m - 1) {
      const int d = __builtin_ctz(m);
      if (best < 0 || lg[d] > lg[best]) best = d;
    }
    const float mx = lg[best];
    double z = 0;
    double w[kNumDirs];
    for (unsigned m = legal; m; m &= m - 1) {
      const int d = __builtin_ctz(m);
      w[d] = std::exp(double(lg[d] - mx));
      z += w[d];
    }
    const int follow = follow_best ? best : -1;
    for (unsigned m = legal; m; m &= m - 1) {
      const int d = __builtin_ctz(m);
      if (d == follow) continue;
      push(add_prefix(node, d, float(w[d] / z)), prob * w[d] / z);
    }
    if (follow >= 0) *share = w[follow] / z;
    return follow;
  }

  // Pops prefixes until a stopping rule holds or the queue is empty; res holds the turns
  // found so far in this call (res.expansions and res.dropped_mass count from the start of the
  // generation).
  void run(const Position& root, const float* logits, const BestFirstOptions& opt, BestFirstResult& res) {
    while (!heap.empty()) {
      if (int(turn_node.size()) >= opt.max_turns) break;
      if (frontier_mass < opt.min_remaining_mass) break;
      if (res.expansions >= opt.max_expansions) break;
      // single-file: omit begin
      turns_passed = int64_t(turn_node.size());
      expansions_passed = res.expansions;
      min_frontier_passed = std::min(min_frontier_passed, frontier_mass);
      // single-file: omit end
      const QueueEntry e = pop();
      Position pos = rebuild(root, e.node);
      int32_t node = e.node;
      double prob = e.prob;
      // Follow the prefix; with greedy_completion, dive along the most probable kick until
      // the turn ends, queueing the other kicks on the way.
      while (true) {
        if (node != 0 && (pos.game_over() || pos.turn_start())) {
          end_chain(pos, node, prob, opt.sum_chains, res);
          break;
        }
        if (node != 0 && reached_before(pos, node, prob, opt.sum_chains, res)) break;
        ++res.expansions;
        double share = 0;
        const int follow = expand(pos, node, prob, logits, opt.greedy_completion, &share);
        if (follow < 0) break;
        prob *= share;
        node = add_prefix(node, follow, float(share));
        pos.make_kick(follow);
      }
    }
    res.complete = heap.empty();
    res.remaining_mass = res.complete ? 0.0 : std::max(0.0, frontier_mass);
    if (opt.sum_chains && !merges.empty()) sum_merged_chains(res);
  }

  // Summed chain probabilities over the explored part of the turn's DAG. Every chain into a
  // position has the same number of kicks (each kick draws one segment), so arrivals into a
  // node at depth d come from depth d - 1: one pass in order of depth is exact.
  void sum_merged_chains(BestFirstResult& res) {
    mass.assign(arena.size(), 0.0);
    // Arena nodes and merges in order of depth: counting sorts (depths are small integers;
    // comparison sorts here were 1.3% of self-play's CPU).
    int max_depth = 0;
    for (const Prefix& p : arena) max_depth = std::max(max_depth, int(p.depth));
    first_of_depth.assign(size_t(max_depth) + 2, 0);
    for (const Prefix& p : arena) ++first_of_depth[size_t(p.depth) + 1];
    for (size_t d = 1; d < first_of_depth.size(); ++d) first_of_depth[d] += first_of_depth[d - 1];
    order.resize(arena.size());
    for (size_t i = 0; i < arena.size(); ++i) order[size_t(first_of_depth[arena[i].depth]++)] = int32_t(i);
    first_of_depth.assign(size_t(max_depth) + 2, 0);
    for (const Arrival& m : merges) ++first_of_depth[size_t(arena[size_t(m.target)].depth) + 1];
    for (size_t d = 1; d < first_of_depth.size(); ++d) first_of_depth[d] += first_of_depth[d - 1];
    sorted_merges.resize(merges.size());
    for (const Arrival& m : merges)
      sorted_merges[size_t(first_of_depth[arena[size_t(m.target)].depth]++)] = m;
    // The merges stay in this order (a stable sort by depth), so a resumed generation, which
    // appends to them, sorts them into the same order as a fresh one.
    merges.swap(sorted_merges);
    size_t next_merge = 0;
    mass[0] = 1.0;
    for (size_t k = 1; k < order.size(); ++k) {
      const Prefix& pr = arena[size_t(order[k])];
      mass[size_t(order[k])] = mass[size_t(pr.parent)] * pr.edge;
      // Last node of this depth: add the merges into this depth's nodes (their parents, one
      // kick up, are final).
      if (k + 1 == order.size() || arena[size_t(order[k + 1])].depth != pr.depth) {
        while (next_merge < merges.size() && arena[size_t(merges[next_merge].target)].depth <= pr.depth) {
          const Arrival& m = merges[next_merge++];
          mass[size_t(m.target)] += mass[size_t(m.parent)] * m.edge;
        }
      }
    }
    // res.turns are the generation's last turns (a resumed generation returns the new ones).
    for (size_t i = res.turns.size(), j = turn_node.size(); i-- > 0;)
      res.turns[i].prior = float(mass[size_t(turn_node[--j])]);
  }

  // single-file: omit begin (resumable best-first generation: the exported bot does not resume)
  // --- saving and resuming (BestFirstState) -----------------------------------------------

  static const SavedHeader& header_of(const BestFirstState& st) {
    return *reinterpret_cast<const SavedHeader*>(st.data_.get());
  }

  // May the generation saved in st go on under opt (see the resumable best_first_turns)?
  static bool can_resume(const BestFirstState& st, const Position& root, uint64_t print,
                         const BestFirstOptions& opt) {
    if (st.empty()) return false;
    const SavedHeader& h = header_of(st);
    return h.root_hash == root.hash() && h.logits_print == print && bool(h.sum_chains) == opt.sum_chains &&
           bool(h.greedy_completion) == opt.greedy_completion && h.turns_passed < int64_t(opt.max_turns) &&
           h.expansions_passed < opt.max_expansions && h.min_frontier_passed >= opt.min_remaining_mass;
  }

  template <class T>
  static const uint64_t* read_array(const uint64_t* at, std::vector<T>& v, size_t n) {
    v.resize(n);
    if (n) std::memcpy(v.data(), at, n * sizeof(T));
    return at + words_for(n * sizeof(T));
  }

  template <class T>
  static uint64_t* write_array(uint64_t* at, const std::vector<T>& v) {
    if (!v.empty()) std::memcpy(at, v.data(), v.size() * sizeof(T));
    return at + words_for(v.size() * sizeof(T));
  }

  // Reads the saved generation back into this working state; res gets its counters.
  void load(const BestFirstState& st, BestFirstResult& res) {
    const SavedHeader& h = header_of(st);
    const uint64_t* at = st.data_.get() + words_for(sizeof(SavedHeader));
    at = read_array(at, arena, h.arena);
    at = read_array(at, heap, h.heap);
    at = read_array(at, merges, h.merges);
    at = read_array(at, turn_node, h.turns);
    index.clear();
    expanded.clear();
    bool inserted;
    for (uint32_t i = 0; i < h.turns; ++i, at += 2) *index.find_or_insert(at[0], &inserted) = at[1];
    for (uint32_t i = 0; i < h.expanded; ++i, at += 2) *expanded.find_or_insert(at[0], &inserted) = at[1];
    frontier_mass = h.frontier_mass;
    seq = h.seq;
    turns_passed = h.turns_passed;
    expansions_passed = h.expansions_passed;
    min_frontier_passed = h.min_frontier_passed;
    res.expansions = h.expansions;
    res.dropped_mass = h.dropped_mass;
  }

  // Saves this generation into st, or clears st when it would take more than max_bytes.
  void save(BestFirstState& st, const Position& root, uint64_t print, const BestFirstOptions& opt,
            const BestFirstResult& res, size_t max_bytes) const {
    const size_t words =
        words_for(sizeof(SavedHeader)) + words_for(arena.size() * sizeof(Prefix)) +
        words_for(heap.size() * sizeof(QueueEntry)) + words_for(merges.size() * sizeof(Arrival)) +
        words_for(turn_node.size() * sizeof(int32_t)) + 2 * index.size() + 2 * expanded.size();
    if (words * sizeof(uint64_t) > max_bytes || turn_node.size() > UINT32_MAX || arena.size() > UINT32_MAX ||
        heap.size() > UINT32_MAX || merges.size() > UINT32_MAX) {
      st.clear();
      return;
    }
    if (st.bytes() != words * sizeof(uint64_t)) st.data_.reset(new uint64_t[words]);
    SavedHeader h{};
    h.words = words;
    h.root_hash = root.hash();
    h.logits_print = print;
    h.frontier_mass = frontier_mass;
    h.dropped_mass = res.dropped_mass;
    h.min_frontier_passed = min_frontier_passed;
    h.seq = seq;
    h.expansions = res.expansions;
    h.turns_passed = turns_passed;
    h.expansions_passed = expansions_passed;
    h.arena = uint32_t(arena.size());
    h.heap = uint32_t(heap.size());
    h.merges = uint32_t(merges.size());
    h.turns = uint32_t(turn_node.size());
    h.expanded = uint32_t(expanded.size());
    h.sum_chains = opt.sum_chains;
    h.greedy_completion = opt.greedy_completion;
    uint64_t* at = st.data_.get();
    std::memcpy(at, &h, sizeof h);
    at += words_for(sizeof(SavedHeader));
    at = write_array(at, arena);
    at = write_array(at, heap);
    at = write_array(at, merges);
    at = write_array(at, turn_node);
    // The turn ends in the generation's order (their index is their place).
    uint64_t* ends = at;
    index.for_each([&](uint64_t key, uint64_t value) {
      ends[2 * value] = key;
      ends[2 * value + 1] = value;
    });
    at += 2 * index.size();
    expanded.for_each([&](uint64_t key, uint64_t value) {
      *at++ = key;
      *at++ = value;
    });
  }
  // single-file: omit end
};

// This thread's working state, shared by both forms of best_first_turns.
thread_local BestFirst thread_best_first;

}  // namespace detail

// single-file: omit begin (resumable best-first generation: the exported bot does not resume)
int64_t BestFirstState::turns() const {
  return empty() ? 0 : int64_t(detail::BestFirst::header_of(*this).turns);
}
// single-file: omit end

BestFirstResult best_first_turns(const Position& root, const float* logits,
                                 const BestFirstOptions& opt) {
  BestFirstResult res;
  best_first_turns(root, logits, opt, &res);
  return res;
}

void best_first_turns(const Position& root, const float* logits, const BestFirstOptions& opt,
                      BestFirstResult* out) {
  BestFirstResult& res = *out;
  res.turns.clear();
  // single-file: omit begin
  res.first_turn = 0;
  // single-file: omit end
  res.remaining_mass = 0.0;
  res.dropped_mass = 0.0;
  res.expansions = 0;
  res.complete = false;
  if (root.game_over()) {
    res.complete = true;
    return;
  }
  auto& bf = detail::thread_best_first;
  bf.reset();
  bf.run(root, logits, opt, res);
}

// single-file: omit begin (resumable best-first generation: the exported bot does not resume)
void best_first_turns(const Position& root, const float* logits, const BestFirstOptions& opt,
                      BestFirstState* state, size_t max_state_bytes, BestFirstResult* out) {
  BestFirstResult& res = *out;
  const uint64_t print =
      root.game_over() ? 0 : detail::logits_print(logits, size_t(root.pitch().num_points()) * kNumDirs);
  auto& bf = detail::thread_best_first;
  if (!root.game_over() && detail::BestFirst::can_resume(*state, root, print, opt)) {
    res.turns.clear();
    bf.load(*state, res);  // the generation's counters
    res.first_turn = int64_t(bf.turn_node.size());
    bf.run(root, logits, opt, res);
  } else {
    best_first_turns(root, logits, opt, out);  // from the first turn, in this thread's bf
  }
  if (res.complete) {
    state->clear();
  } else {
    bf.save(*state, root, print, opt, res, max_state_bytes);
  }
}
// single-file: omit end

}  // namespace ps
