// Alpha-beta over complete turns: the classical yardstick the learned players are measured
// against, in the design of the strongest public Paper Soccer bots: a negamax
// alpha-beta search (Knuth and Moore 1975) whose moves are whole bounce chains, deepened
// iteratively under a time limit, with a transposition table and move ordering as in chess
// programs (TT move first, then the static evaluation of each child).
//
// Exactness where it is cheap: every node first asks the engine's win check
// (TurnGenerator::find_winning_turn) whether the side to move can win this turn, so a leaf is
// never scored statically when it is won at once (a one-turn quiescence search), and turns that
// lose at once (own goal, blocked ball) are scored as losses.
//
// Leaf evaluation goes through a LeafEvaluator (search/leaf_eval.h): every generated child is
// scored for move ordering with evaluate_child(parent, kicks), leaves with evaluate_current, and
// the search keeps the evaluator on its path (reset at the root of every iteration, push_turn /
// pop_turn around each descent), so an incremental evaluator (valuenet/value_net_eval.h, the small
// learned value net) updates its accumulators by the kicks of each turn rather than from scratch.
//
// Bounded in every position: a node's turn enumeration stops at kEnumerationLimit states (the
// children are then the turns found plus kRandomTurns engine random_turn chains); the
// transposition table has a fixed size (tt_mb); the search depth is at most max_depth turns; the
// clock is checked every 16 nodes and after every turn generation.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/turns.h"
#include "search/leaf_eval.h"
#include "search/player.h"

namespace ps {

class AlphaBetaPlayer final : public Player {
 public:
  static constexpr int64_t kEnumerationLimit = int64_t(1) << 16;
  static constexpr int kRandomTurns = 64;
  static constexpr int kWin = 1000000;  ///< score of a won position at ply 0 (minus the ply)
  /// |score| above this: a proven result (a won or lost position within 1,000 turns).
  static constexpr int kProvenBound = kWin - 1000;
  /// Whether a search score is a proven win or loss (|score| above kProvenBound).
  static constexpr bool is_proven(int score) { return score > kProvenBound || score < -kProvenBound; }

  struct Options {
    int64_t default_time_ms = 100;  ///< time per turn when the budget gives none (ms)
    int max_depth = 64;             ///< iterative deepening stops at this depth (turns)
    int tt_mb = 16;                 ///< transposition table size (MiB, >= 1)
    /// Principal variation search (Marsland and Campbell 1982; NegaScout, Reinefeld 1983):
    /// every child after the first is searched with a null window around alpha and re-searched
    /// with the full window only when it beats alpha. Same score as plain alpha-beta. Off by
    /// default, like lmr: level in play (docs/experiments/late-move-reductions-and-noise.md).
    bool pvs = false;
    /// Late move reductions (as in Fruit and Stockfish; needs pvs): from the child of 0-based
    /// index lmr_first (the default 3: the fourth child) of a node at depth >= lmr_min_depth, the null-window search goes 1 + ln(depth) ln(i) /
    /// lmr_divisor turns shallower (at least 1 turn remains), and a child that beats alpha
    /// there is searched again at full depth. Changes the score: a bet on the move ordering.
    /// Two turns deeper at 200 ms, and level with plain alpha-beta in play; the bot with it in
    /// its endgame scored lower against the hand evaluation (same section), so it is off.
    bool lmr = false;
    int lmr_first = 3;         ///< children before this index are never reduced (>= 1)
    int lmr_min_depth = 3;     ///< no reduction at nodes of lower depth (turns, >= 2)
    double lmr_divisor = 2.0;  ///< larger: smaller reductions (> 0, finite)
    /// Iterative deepening under a time budget: a new iteration starts only before this share
    /// of the budget has passed; the hard stop is 90% of it. An iteration cut off by the hard
    /// stop still counts: the previous answer is searched first, and a turn that beats its
    /// score at the new depth replaces it. In (0, 0.9]. The default, 0.9, uses the whole
    /// budget; 0.5 (the earlier default) left the rest of the turn idle whenever an
    /// iteration ended after half of it, and scored 92/200 = 46.0% against 0.9 with the shipped
    /// value net at 200 ms (docs/experiments/late-game.md).
    double soft_stop = 0.9;
    /// Visits in a TurnBudget are read as a node budget: stop deepening once an iteration has
    /// searched this many nodes (a deterministic budget for tests and equal-work matches).
  };
  /// An option out of range: field() names it ("tt_mb", "lmr_divisor", ...), so that a config
  /// reader can name its own key; what(): "alphabeta player: <field> must be ...".
  class OptionError : public std::invalid_argument {
   public:
    OptionError(std::string field, const std::string& why)
        : std::invalid_argument("alphabeta player: " + why), field_(std::move(field)), why_(why) {}
    const std::string& field() const { return field_; }
    const std::string& why() const { return why_; }  ///< what() without the "alphabeta player: "

   private:
    std::string field_, why_;
  };
  /// Throws OptionError when an option is out of range.
  static void check_options(const Options& options);
  /// Throws OptionError (a std::invalid_argument) when options are out of range (check_options).
  /// evaluator null: HandEvaluator.
  AlphaBetaPlayer(const Options& options, std::unique_ptr<LeafEvaluator> evaluator,
                  uint64_t seed = 0);
  explicit AlphaBetaPlayer(uint64_t seed = 0) : AlphaBetaPlayer(Options{}, nullptr, seed) {}
  std::string name() const override { return "alphabeta"; }
  /// Frees the transposition table and the ply arrays (reallocated by the next choose_turn).
  /// Throws std::invalid_argument when the evaluator cannot score games of these rules (a value
  /// net trained for another pitch or variant).
  void new_game(const Pitch& pitch, Variant variant) override;
  /// Transposition-table entries allocated now (0 after new_game until the next choose_turn).
  size_t tt_allocated() const { return tt_.size(); }
  // single-file: omit begin (the single-file bot has no Game; it calls search_turn)
  /// search_turn at game.position().
  std::string choose_turn(const Game& game, const TurnBudget& budget) override;
  // single-file: omit end
  /// The turn for root's side to move. Budget: time_ms (wall time; the search stops deepening
  /// and answers within it) and/or visits (read as nodes, see Options). Neither:
  /// default_time_ms. Throws std::invalid_argument when the game is over or root is in the
  /// middle of a turn.
  std::string search_turn(const Position& root, const TurnBudget& budget);
  // single-file: omit begin
  /// Multi-PV by exclusion (as chess engines list their best few lines): later searches
  /// (search_turn, prove_root) skip the root turns that lead to these position hashes; empty:
  /// none. With every turn excluded search_turn answers "" and last_info() is empty.
  void exclude_root_turns(std::vector<uint64_t> hashes) { excluded_root_ = std::move(hashes); }
  // single-file: omit end

  /// What the last choose_turn (search_turn) did.
  struct Info {
    int depth = 0;          ///< deepest completed iteration (turns)
    /// The answer's score for the side to move (>= kWin - 1000: a proven win): the deepest
    /// completed iteration's, or, when an iteration cut off by the clock found a better turn,
    /// that turn's score in it (one turn deeper than `depth`).
    int score = 0;
    int64_t nodes = 0;      ///< nodes searched (turn starts visited), all iterations
    int64_t leaves = 0;     ///< static evaluations
    double ms = 0.0;        ///< wall time
    std::vector<std::string> pv;  ///< principal variation from the TT (turns), starting with the answer
  };
  const Info& last_info() const { return info_; }

  /// What prove_root found for each turn of a root position.
  struct TurnProof {
    std::string kicks;  ///< the turn's kick digits
    uint64_t hash = 0;  ///< position hash after the turn
    int proven = 0;     ///< +1 proven win / -1 proven loss for the root's side to move, 0 unknown
    /// Iteration that proved it (turns searched below the turn; 0: the turn ends the game):
    /// the shortest proof this search found; for a loss, a larger depth is a longer resistance.
    int depth = 0;
  };
  struct RootProof {
    std::vector<TurnProof> turns;  ///< every listed root turn, in move-ordering order
    bool complete = true;          ///< turns lists every distinct turn (false: over kEnumerationLimit)
    int depth = 0;                 ///< deepest iteration completed for every unproven turn
    int64_t nodes = 0;             ///< nodes searched
    double ms = 0.0;               ///< wall time
    /// Index of a proven winning turn (the one proven at the lowest depth), -1 if none.
    int winning_index() const;
    /// Turns proven lost.
    int lost() const;
  };
  /// The proof step of an MCTS-minimax hybrid (Baier and Winands, "MCTS-Minimax Hybrids", IEEE
  /// TCIAIG 2015, the root variant; the root proof checks of MCTS-Solver programs): proves root
  /// turns won or lost by iterative deepening over depth 1, 2, ... turns below each turn, with
  /// two null-window searches per unproven turn at the proven-result bound (is the opponent's
  /// score a proven win? is it a proven loss?). At that bound the leaf evaluation only orders
  /// moves, so a result is a proof, not a heuristic score (exact up to the enumeration limit:
  /// at a node with more than kEnumerationLimit turn states the listed turns are a sample, so a
  /// "proven" loss of the side to move there may miss an escape). Stops at the first proven
  /// win, when every turn is proven, after max_depth, or at time_ms (wall time, >= 1; the
  /// clock is checked every 16 nodes, so it overshoots by one turn generation at most). An
  /// interrupted test proves nothing; completed ones stand. Shares the transposition table
  /// (tt_mb) with choose_turn. Throws std::invalid_argument when the game is over, mid-turn or
  /// time_ms < 1. Not thread-safe (one caller at a time, like choose_turn).
  RootProof prove_root(const Position& root, int64_t time_ms);

 private:
  struct Child {
    uint32_t kicks_at;  // offset into the ply's kick arena
    uint16_t num_kicks;
    int8_t winner;
    int order;          // ordering key, higher first
    int eval;           // the leaf evaluation of the child for its side to move (unless final)
    uint64_t hash;
  };
  struct Ply {
    std::vector<Child> children;
    std::vector<uint8_t> kicks;
    bool complete = true;  // every distinct turn listed (within kEnumerationLimit)
    int cut_candidate = -1;  // generate() with a cut: the child that made it, else -1
    std::vector<uint8_t> tt_kicks;  // tt_first(): the TT move's kicks
  };
  struct TTEntry {
    uint64_t key = 0;
    uint64_t best = 0;   // hash of the best child's position
    int32_t score = 0;
    int16_t depth = -1;
    uint8_t bound = 0;   // 1 exact, 2 lower, 3 upper
  };
  struct Aborted {};

  void allocate();  // the transposition table and the ply arrays, when freed

  /// `static_eval`: at depth 0, the position's evaluation when the caller already has it (the
  /// move-ordering evaluation of the parent's generate()), else kNoEval.
  int search(const Position& pos, int depth, int alpha, int beta, int ply, int static_eval = kNoEval);
  static constexpr int kNoEval = INT32_MIN;
  /// search()'s transposition-table lookup of pos: the entry's best child in tt_best (0: no
  /// entry), and true, with its score in `score`, when the entry (below the root, at least this
  /// deep) ends the node's search: an exact score, or a bound outside (alpha, beta).
  bool tt_cut(const Position& pos, int depth, int alpha, int beta, int ply, uint64_t& tt_best, int& score);
  /// The TT move tt_first() found for plies_[ply] searched to depth - 1 with this node's window,
  /// before the node's other turns are generated: its score for pos's side to move.
  int search_tt_move(const Position& pos, int depth, int alpha, int beta, int ply);
  /// Child c, the i-th of p's sorted children (not one that ends the game), searched to
  /// depth - 1: the full window for the first child (or without options_.pvs), else a null window
  /// at alpha, reduced by reduction(depth, i) (late move reductions) and searched again at full
  /// depth, then with the full window, while it beats alpha. Its score for pos's side to move.
  int search_child(const Position& pos, const Ply& p, const Child& c, size_t i, int depth, int alpha,
                   int beta, int ply);
  /// The children of pos into plies_[ply], evaluated; sorted by their ordering key (TT move,
  /// winning turns, then the evaluation; losing turns last) unless sort is false. With `cut`
  /// (search_frontier's beta), the first child (in generation order) whose score for pos's side
  /// reaches it and from which the opponent cannot win at once ends the generation: its index
  /// goes to the ply's cut_candidate, and the turns after it are never enumerated (in a late
  /// position the enumeration is a third of the search's time).
  void generate(const Position& pos, int ply, uint64_t tt_best, bool sort = true, int cut = kNoCut);
  static constexpr int kNoCut = INT32_MAX;
  /// Enumerates pos's turns up to the one whose end has hash tt_best (the TT move) and puts its
  /// kicks into plies_[ply].tt_kicks; false when no such turn (the table's entry may come from
  /// a node over the enumeration limit) or when it ends the game.
  bool tt_first(const Position& pos, int ply, uint64_t tt_best);
  /// search() at depth 1 below the root: the best child's static score, by selection.
  int search_frontier(const Position& pos, int alpha, int beta, int ply, uint64_t tt_best);
  /// Late-move reduction (turns) of the index-th child of a node of this depth; 0 without lmr.
  int reduction(int depth, size_t index) const;
  Position child_position(const Position& pos, const Ply& p, const Child& c) const;
  TTEntry* tt_probe(uint64_t key);
  void tt_store(uint64_t key, int depth, int score, int bound, uint64_t best, int ply);
  void check_time();
  std::vector<std::string> principal_variation(const Position& root, int max_len);

  Options options_;
  std::unique_ptr<LeafEvaluator> eval_;
  std::mt19937_64 rng_;
  TurnGenerator gen_, win_;
  std::vector<Ply> plies_;
  std::vector<TTEntry> tt_;
  size_t tt_entries_ = 0;
  Info info_;
  std::string root_best_;  // best root turn of the current iteration so far
  uint64_t root_best_hash_ = 0;    // its position hash
  uint64_t root_answer_hash_ = 0;  // the previous iteration's answer (searched first at the root)
  // Its kicks, kept a child of an incomplete root list; cleared where search_turn and prove_root
  // start (the only callers of generate() at ply 0).
  std::string root_answer_;
  int root_best_score_ = 0;  // root_best_'s score in the current iteration
  std::vector<uint64_t> excluded_root_;  // root turns not searched (their positions' hashes)
  std::chrono::steady_clock::time_point deadline_;
  bool timed_ = false;
  int64_t node_limit_ = -1;
};

}  // namespace ps
