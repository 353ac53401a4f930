// Turn generation: a whole chain of kicks is one turn (RULES.md, "Turns as the unit of play").
//
// Distinct turns are distinct end positions (same segments, ball, mover, result), deduplicated by
// Zobrist hash. The representative kick string of a turn is its lexicographically smallest
// chain (the first one a depth-first search in direction order 0..7 reaches).
//
// Chains can explode combinatorially; every enumerator here memoises the mid-turn positions it
// has expanded (by hash), so the work grows with the number of distinct mid-turn positions,
// not with the number of chains. That number is itself unbounded in practice (a dense tangle of
// drawn segments holds millions), so every enumerator also has a state limit and a defined way
// to degrade when it is reached (see each function); nothing here grows without bound.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/position.h"

namespace ps {

/// One distinct complete turn.
struct Turn {
  std::string kicks;      ///< direction digits, e.g. "435"
  uint64_t hash = 0;      ///< hash of the position after the turn
  int8_t winner = -1;     ///< -1 unless the turn ends the game
  Reason reason = Reason::kNone;
  float prior = 0.0f;     ///< probability mass (best_first_turns only)
};

/// Open-addressing hash map from 64-bit position hashes to 64-bit values: linear probing over
/// one array of {key, value} slots (a probe touches one cache line), load at most 1/2. Reused
/// across calls: the slot array grows to the largest use and is kept, and clear() costs
/// O(entries) (the occupied slots are listed), so a table grown once by a huge enumeration
/// does not make every later small use clear it. Each use after clear() runs on an active
/// table at the array's front of at most max(kKeepCapacity, what the use before needed)
/// slots, so it neither probes megabytes with a cache miss each (88% of this map's time in
/// self-play when the whole grown array was the table) nor rehashes when uses are alike (perft's
/// levels, the search's expansions). Memory: 16 bytes per slot, at most 4 slots per entry, 4
/// bytes per entry for the list, plus 16 per entry while it grows. Pointers into it stay
/// valid until the next insertion. Not thread-safe.
class HashMap64 {
 public:
  static constexpr size_t kMinCapacity = 1024;   ///< the first table, slots (16 KiB)
  static constexpr size_t kKeepCapacity = 4096;  ///< a larger table shrinks on clear(), slots

  void clear();
  /// Returns a pointer to the value for key, inserting 0 when new (*inserted says which).
  uint64_t* find_or_insert(uint64_t key, bool* inserted) {
    if (key == kEmpty) return zero_entry(inserted);
    if ((size_ + 1) * 2 > capacity_) grow();
    for (size_t j = home(key);; j = (j + 1) & mask_) {
      Slot& s = slots_[j];
      if (s.key == key) {
        *inserted = false;
        return &s.value;
      }
      if (s.key == kEmpty) {
        s.key = key;
        s.value = 0;
        used_.push_back(uint32_t(j));
        ++size_;
        *inserted = true;
        return &s.value;
      }
    }
  }
  /// The value already stored for key; when key is new, stores value and returns nullptr (the
  /// first arrival wins).
  const uint64_t* find_or_set(uint64_t key, uint64_t value) {
    bool inserted;
    uint64_t* slot = find_or_insert(key, &inserted);
    if (!inserted) return slot;
    *slot = value;
    return nullptr;
  }
  const uint64_t* find(uint64_t key) const {
    if (key == kEmpty) return has_zero_ ? &zero_value_ : nullptr;
    if (size_ == 0) return nullptr;
    for (size_t j = home(key);; j = (j + 1) & mask_) {
      const Slot& s = slots_[j];
      if (s.key == key) return &s.value;
      if (s.key == kEmpty) return nullptr;
    }
  }
  size_t size() const { return size_ + (has_zero_ ? 1 : 0); }
  /// Slots of the active table: 0 before the first insertion, then a power of two, at least
  /// twice the entries (key 0 aside).
  size_t capacity() const { return capacity_; }
  /// Slots allocated: the largest active table since construction.
  size_t allocated() const { return slots_.size(); }
  // single-file: omit begin (resumable best-first generation: the exported bot does not resume)
  /// Calls fn(key, value) for every entry, in no particular order.
  template <class Fn>
  void for_each(Fn&& fn) const {
    if (has_zero_) fn(uint64_t(0), zero_value_);
    for (uint32_t j : used_) fn(slots_[j].key, slots_[j].value);
  }
  // single-file: omit end

 private:
  struct Slot {
    uint64_t key;
    uint64_t value;
  };
  static constexpr uint64_t kEmpty = 0;  // marks a free slot; key 0 itself is kept aside
  size_t home(uint64_t key) const { return size_t((key * 0x9E3779B97F4A7C15ULL) >> 7) & mask_; }
  uint64_t* zero_entry(bool* inserted) {
    *inserted = !has_zero_;
    if (!has_zero_) zero_value_ = 0;
    has_zero_ = true;
    return &zero_value_;
  }
  void grow();
  std::vector<Slot> slots_;     // allocated slots; the active table is the first capacity_
  std::vector<uint32_t> used_;  // occupied slots of the active table, in insertion order
  std::vector<Slot> moved_;     // grow()'s scratch: the entries being rehashed
  // size_: entries in slots_ (key 0 aside).
  size_t size_ = 0, capacity_ = 0, mask_ = 0;
  bool has_zero_ = false;
  uint64_t zero_value_ = 0;
};

/// Thrown by exact enumerations that must not degrade (perft, the `turns` command) when a
/// position holds more distinct mid-turn positions and turn ends than their state limit.
class StateLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Enumerates complete turns. Holds reusable buffers: keep one per thread. Not thread-safe.
class TurnGenerator {
 public:
  struct Stats {
    uint64_t distinct = 0;  ///< distinct turns (end positions) found
    uint64_t chains = 0;    ///< kick chains (orderings), counted exactly via memoisation
                            ///< (a lower bound when !complete)
    bool complete = true;   ///< false: the enumeration limit or stop() ended it (turns are a subset)
    bool stopped = false;   ///< fn called stop(): the turns reported are the first ones
  };

  /// Calls fn(const Position& end, const uint8_t* kicks, int num_kicks) once per distinct turn
  /// from `pos` (which should be at a turn start; from a mid-turn position the remaining part of
  /// the turn is enumerated). A finished position has no turns.
  /// Bounded: stops once the distinct mid-turn positions plus turn ends it holds exceed
  /// enumeration_limit() (Stats::complete is then false and fn has seen a subset of the turns,
  /// the lexicographically first ones). Memory is up to about 80 bytes per state (the hash
  /// tables' slots at half load, and their growth), time about 0.3 us
  /// per kick made; the default limit (kDefaultEnumerationLimit) keeps one call under ~64 MB.
  template <class Fn>
  Stats for_each_turn(const Position& pos, Fn&& fn);
  /// Called by fn during for_each_turn: no further turn is reported and for_each_turn returns
  /// at once (Stats::stopped and !Stats::complete). A caller that needs only one turn of a
  /// kind (alpha-beta's cut at the frontier) skips the enumeration of the rest.
  void stop() {
    enum_complete_ = false;
    stopped_ = true;
  }

  /// Counts distinct turns and chains.
  Stats count(const Position& pos) {
    return for_each_turn(pos, [](const Position&, const uint8_t*, int) {});
  }

  /// All distinct turns, in depth-first (lexicographic representative) order; a subset when the
  /// enumeration limit stopped it (stats->complete false).
  std::vector<Turn> generate(const Position& pos, Stats* stats = nullptr);

  /// The first turn (depth-first order) whose end position satisfies pred(const Position&).
  /// Stops as soon as one is found; never revisits a mid-turn position. Writes its kicks.
  /// Subtrees of mid-turn positions for which prune(const Position&) is true are skipped.
  /// Gives up (returns false, last_search_complete() false) after state_budget() distinct
  /// mid-turn positions, so a pathological position cannot stall a caller.
  template <class Pred, class Prune>
  bool find_turn(const Position& pos, Pred&& pred, Prune&& prune, std::string* kicks);
  template <class Pred>
  bool find_turn(const Position& pos, Pred&& pred, std::string* kicks) {
    return find_turn(pos, pred, [](const Position&) { return false; }, kicks);
  }

  /// Can the side to move win this turn (score in the attacked goal, or, outside standard,
  /// leave the opponent blocked)? Writes one winning chain. In standard the answer is
  /// attacked_goal_reachable (exact, O(points), no state budget); the chain written is the
  /// first winning one in direction order (a search pruned where the goal is out of reach), or
  /// when the state budget runs out first, the reachability's own path. Outside standard, a
  /// search: false also when the state budget ran out first (see last_search_complete()).
  bool find_winning_turn(const Position& pos, std::string* kicks = nullptr);
  /// Does every turn of the side to move lose at once (own goal or blocked)? False when the
  /// game is over. In standard exact in O(points) (relaxed reachability of an untouched point
  /// or the attacked goal, as attacked_goal_reachable); outside standard a search that tries
  /// the kicks ending the turn first, false also when the state budget ran out before a proof.
  bool all_turns_lose(const Position& pos);

  /// Did the last find_turn / find_winning_turn / all_turns_lose finish within the budget (so
  /// its answer is exact)?
  bool last_search_complete() const { return complete_; }
  /// Most distinct mid-turn positions one find_turn may visit (default kDefaultStateBudget).
  void set_state_budget(int64_t states) { budget_ = states; }
  int64_t state_budget() const { return budget_; }
  static constexpr int64_t kDefaultStateBudget = int64_t(1) << 16;
  /// Most states (distinct mid-turn positions + distinct turn ends) one for_each_turn may hold.
  void set_enumeration_limit(int64_t states) { limit_ = states < 1 ? 1 : states; }
  int64_t enumeration_limit() const { return limit_; }
  static constexpr int64_t kDefaultEnumerationLimit = int64_t(1) << 20;
  /// States the current (or last) for_each_turn holds.
  int64_t states_held() const { return int64_t(memo_.size() + finals_.size()); }

  /// Kicks made (and unmade) by this generator since construction; for benchmarks.
  uint64_t kicks_made() const { return kicks_made_; }

 private:
  template <class Fn>
  uint64_t dfs(Position& pos, Fn& fn);
  template <class Pred, class Prune>
  bool search(Position& pos, Pred& pred, Prune& prune);
  bool any_safe_turn(Position& pos, int mover);

  HashMap64 memo_;    // mid-turn hash -> chains from there
  HashMap64 finals_;  // end hashes seen
  std::vector<uint8_t> kicks_;
  int depth_ = 0;
  uint64_t kicks_made_ = 0;
  int64_t budget_ = kDefaultStateBudget;
  int64_t limit_ = kDefaultEnumerationLimit;
  bool complete_ = true;
  bool enum_complete_ = true;
  bool stopped_ = false;
};

/// A random complete turn in O(chain length) time and no memory beyond the chain: from `pos`
/// (a turn start), kicks a uniformly random legal direction until the turn ends, preferring a
/// kick that does not lose at once (an own goal, or a dead end that blocks the ball) when there
/// is one. Every chain ends (each kick draws a new segment). The fallback of the players when a
/// full enumeration would exceed its limit. Writes the end position to *end when given.
/// Throws std::invalid_argument for a finished position.
std::string random_turn(const Position& pos, std::mt19937_64& rng, Position* end = nullptr);

/// The first turn in direction order that does not lose at once if any chain does not (a greedy
/// walk: the lowest legal direction whose kick does not lose at once, else the lowest), in
/// O(chain length). Deterministic; for fallbacks that must answer immediately.
std::string first_turn(const Position& pos, Position* end = nullptr);

/// A bot's fallback turn, in bounded time and memory in every position (the protocol bot and
/// the single-file bot answer it when their search is late): a winning turn if the
/// state-budgeted win check finds one, else the first turn in direction order that does not
/// lose at once (budgeted search), else first_turn. Throws std::invalid_argument when the game
/// is over.
std::string fallback_turn(const Position& pos);

/// Relaxed reachability (segments are not used up): can the ball still reach a point of the
/// goal the side to move attacks by kicking along undrawn segments, landing only on touched
/// points (an untouched landing point would end the turn)? In the standard variant this is
/// exact: true if and only if a chain of this turn scores there (a path of the flood fill
/// visits distinct points, so it is itself a legal chain). O(touched points), no memory.
bool attacked_goal_reachable(const Position& pos);

/// perft(d): leaf positions reached by expanding distinct turns d levels deep; a finished game
/// is a leaf and is not expanded (RULES.md). kicks_made, when given, receives the number of
/// kicks made during the enumeration. Exact or nothing: throws StateLimitError when the
/// enumeration tables of all levels together would hold more than max_states states (up to about
/// 80 bytes each: the default, kDefaultPerftStates, stays under 0.7 GB; 20 << 20 reached 1.65 GB
/// on the corpus's heaviest position), or when max_seconds (> 0) of
/// wall time pass before it ends (memory is bounded by the states; time grows with the depth).
constexpr int64_t kDefaultPerftStates = int64_t(8) << 20;
uint64_t perft(const Position& pos, int depth, uint64_t* kicks_made = nullptr,
               int64_t max_states = kDefaultPerftStates, double max_seconds = 0);

/// Options of best_first_turns.
struct BestFirstOptions {
  int max_turns = 64;               ///< stop after this many distinct turns
  double min_remaining_mass = 0.0;  ///< stop once the unexplored probability mass is below
  int64_t max_expansions = 2000000; ///< hard cap on popped chain prefixes (bounded work)
  /// How a turn reached by several chains gets its prior. true: the sum of the probabilities
  /// of all explored chains into it, merges in the middle of a turn included (a chain reaching
  /// an already expanded mid-turn position adds its probability to everything explored below
  /// it; exact when the enumeration is complete). false: the probability of the first chain
  /// found, which is the best chain in strict best-first order.
  bool sum_chains = true;
  /// true: every popped prefix is completed greedily (the most probable kick at each step,
  /// the other kicks queued), so each pop yields a turn in O(chain length) even where chains
  /// are long and probability is spread thin (dense late-game positions, where strict
  /// best-first may pop many thousands of prefixes before any chain ends). Turns then come
  /// in approximately, not strictly, decreasing probability. false: strict best-first.
  bool greedy_completion = true;
};

struct BestFirstResult {
  std::vector<Turn> turns;        ///< in the order found (strict mode: non-increasing chain probability)
  // single-file: omit begin (resumable best-first generation: the exported bot does not resume)
  /// Index of turns[0] in the generation's order: 0, except for a resumed generation
  /// (BestFirstState), whose turns are the ones after the first_turn returned before.
  int64_t first_turn = 0;
  // single-file: omit end
  double remaining_mass = 0.0;    ///< probability of chains not yet finished when it stopped
  /// Probability (of their own chain) of chains that reached a mid-turn position already
  /// expanded through an earlier chain: not followed again, so the work stays bounded by the
  /// distinct mid-turn positions. With sum_chains it is merged into the turns below such
  /// positions (see BestFirstOptions::sum_chains); without, it is lost to the priors.
  double dropped_mass = 0.0;
  int64_t expansions = 0;         ///< mid-turn positions expanded (the max_expansions budget)
  bool complete = false;          ///< every chain was explored (turns is the full list)
};

/// Yields turns in order of probability under a per-kick policy: at every kick the ball's
/// point p gives a softmax over its legal directions of logits[p * 8 + d] (engine frame,
/// `logits` has pitch.num_points() * 8 floats, i.e. [num_points, 8]). A chain's probability is
/// the product along it, so a best-first search over chain prefixes emits chains in
/// non-increasing probability. Turn priors are filled in (see sum_chains).
BestFirstResult best_first_turns(const Position& pos, const float* logits,
                                 const BestFirstOptions& options = {});
/// The same into *out, whose turn list keeps its capacity from call to call: a caller that
/// keeps one result per thread (the search, an expansion at a time) allocates nothing per call
/// once the list has grown. Not thread-safe for one *out.
void best_first_turns(const Position& pos, const float* logits, const BestFirstOptions& options,
                      BestFirstResult* out);

// single-file: omit begin (resumable best-first generation: the exported bot does not resume)
namespace detail {
struct BestFirst;
}

/// A best-first generation kept between calls, so that progressive widening continues a
/// node's turn list where its last generation stopped instead of generating it again from the
/// first turn. It holds, in one allocation, what the generation needs to go on: the tree of
/// chain prefixes explored (12 bytes per prefix), the queue of prefixes not yet followed (24
/// bytes each), the expanded mid-turn positions and the turn ends found (16 bytes each, by
/// hash), the chains that merged into them (12 bytes each, for sum_chains), the position's
/// hash, a fingerprint of the logits, and the loosest stopping rule it has gone past. Empty
/// until a resumable best_first_turns saves into it. Movable; not thread-safe.
class BestFirstState {
 public:
  bool empty() const { return !data_; }
  /// Heap bytes held: 0 when empty.
  size_t bytes() const { return empty() ? 0 : size_t(data_[0]) * sizeof(uint64_t); }
  /// Turns the saved generation has returned so far (0 when empty).
  int64_t turns() const;
  /// Releases the memory; the next resumable call generates from the first turn.
  void clear() { data_.reset(); }

 private:
  friend struct detail::BestFirst;
  std::unique_ptr<uint64_t[]> data_;  // data_[0]: the length in words; layout in turns.cpp
};

/// Resumable best_first_turns: when *state holds a generation of the same position (hash),
/// logits (fingerprint), sum_chains and greedy_completion, and `options` stop no earlier than
/// every call before did (max_turns and max_expansions above the counts at which they last
/// went on, min_remaining_mass at most the unexplored mass at which they did), it continues
/// that generation: out->turns holds only the turns after the out->first_turn ones returned
/// before. Otherwise it generates from the first turn (out->first_turn = 0). Either way the
/// turns, their order, their priors and the other fields of *out are bit for bit those of
/// best_first_turns(pos, logits, options) from turn out->first_turn on: a fresh generation
/// under `options` passes through the saved state, because the stopping rules are checked
/// between pops only and a looser rule cannot stop earlier. (With sum_chains, the turns
/// returned before may have a larger prior in a longer generation, as later chains merge into
/// them; only the new turns' priors are returned.)
/// Afterwards *state holds this generation when it is incomplete and its saved form takes at
/// most max_state_bytes; otherwise it is cleared, and the next call starts over (today's cost:
/// the whole list again). Saving and resuming copy the state (O(its size)); the logits are
/// read in full once per call for their fingerprint.
void best_first_turns(const Position& pos, const float* logits, const BestFirstOptions& options,
                      BestFirstState* state, size_t max_state_bytes, BestFirstResult* out);
// single-file: omit end

// ---------------------------------------------------------------------------------------------

template <class Fn>
TurnGenerator::Stats TurnGenerator::for_each_turn(const Position& start, Fn&& fn) {
  Stats st;
  enum_complete_ = true;
  stopped_ = false;
  if (start.game_over()) return st;
  memo_.clear();
  finals_.clear();
  if (kicks_.size() < 4 * kMaxPoints + 8) kicks_.resize(4 * kMaxPoints + 8);
  depth_ = 0;
  Position pos = start;
  st.chains = dfs(pos, fn);
  st.distinct = finals_.size();
  st.complete = enum_complete_;
  st.stopped = stopped_;
  return st;
}

template <class Fn>
uint64_t TurnGenerator::dfs(Position& pos, Fn& fn) {
  uint64_t chains = 0;
  const int mover = pos.side_to_move();
  for (unsigned m = pos.legal_kicks(); m && enum_complete_; m &= m - 1) {
    const int d = __builtin_ctz(m);
    kicks_[depth_++] = uint8_t(d);
    const KickUndo u = pos.make_kick(d);
    ++kicks_made_;
    if (pos.game_over() || pos.side_to_move() != mover || pos.turn_start()) {
      ++chains;
      if (!finals_.find(pos.hash())) {
        if (states_held() >= limit_) {
          enum_complete_ = false;  // a new turn end over the limit: not reported, not held
        } else {
          bool inserted;
          finals_.find_or_insert(pos.hash(), &inserted);
          fn(static_cast<const Position&>(pos), kicks_.data(), depth_);
        }
      }
    } else {
      if (const uint64_t* c = memo_.find(pos.hash())) {
        chains += *c;
      } else if (states_held() >= limit_) {
        enum_complete_ = false;
      } else {
        bool inserted;
        memo_.find_or_insert(pos.hash(), &inserted);
        const uint64_t sub = dfs(pos, fn);
        // The table may have grown during the recursion: look the slot up again.
        *memo_.find_or_insert(pos.hash(), &inserted) = sub;
        chains += sub;
      }
    }
    pos.unmake_kick(u);
    --depth_;
  }
  return chains;
}

template <class Pred, class Prune>
bool TurnGenerator::find_turn(const Position& start, Pred&& pred, Prune&& prune,
                              std::string* kicks) {
  complete_ = true;
  if (start.game_over()) return false;
  memo_.clear();
  if (kicks_.size() < 4 * kMaxPoints + 8) kicks_.resize(4 * kMaxPoints + 8);
  depth_ = 0;
  Position pos = start;
  if (!search(pos, pred, prune)) return false;
  if (kicks) {
    kicks->clear();
    for (int i = 0; i < depth_; ++i) kicks->push_back(char('0' + kicks_[i]));
  }
  return true;
}

template <class Pred, class Prune>
bool TurnGenerator::search(Position& pos, Pred& pred, Prune& prune) {
  const int mover = pos.side_to_move();
  for (unsigned m = pos.legal_kicks(); m; m &= m - 1) {
    const int d = __builtin_ctz(m);
    kicks_[depth_++] = uint8_t(d);
    const KickUndo u = pos.make_kick(d);
    ++kicks_made_;
    if (pos.game_over() || pos.side_to_move() != mover || pos.turn_start()) {
      if (pred(static_cast<const Position&>(pos))) return true;  // leaves depth_ = chain length
    } else {
      bool inserted;
      memo_.find_or_insert(pos.hash(), &inserted);
      if (inserted && int64_t(memo_.size()) > budget_) complete_ = false;
      if (!complete_) {
        pos.unmake_kick(u);
        --depth_;
        return false;
      }
      if (inserted && !prune(static_cast<const Position&>(pos)) && search(pos, pred, prune))
        return true;
    }
    pos.unmake_kick(u);
    --depth_;
  }
  return false;
}

}  // namespace ps
