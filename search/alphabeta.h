// Alpha-beta over complete turns: the classical yardstick the learned players are measured
// against (issue 12), in the design of the strongest public Paper Soccer bots: a negamax
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
// pop_turn around each descent), so an incremental evaluator (search/nnue_eval.h, the small
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

  struct Options {
    int64_t default_time_ms = 100;  ///< time per turn when the budget gives none (ms)
    int max_depth = 64;             ///< iterative deepening stops at this depth (turns)
    int tt_mb = 16;                 ///< transposition table size (MiB, >= 1)
    /// Visits in a TurnBudget are read as a node budget: stop deepening once an iteration has
    /// searched this many nodes (a deterministic budget for tests and equal-work matches).
  };
  /// Throws std::invalid_argument when options are out of range. evaluator null: HandEvaluator.
  AlphaBetaPlayer(const Options& options, std::unique_ptr<LeafEvaluator> evaluator,
                  uint64_t seed = 0);
  explicit AlphaBetaPlayer(uint64_t seed = 0) : AlphaBetaPlayer(Options{}, nullptr, seed) {}
  std::string name() const override { return "alphabeta"; }
  /// Frees the transposition table and the ply arrays (reallocated by the next choose_turn).
  void new_game(const Pitch& pitch, Variant variant) override;
  /// Transposition-table entries allocated now (0 after new_game until the next choose_turn).
  size_t tt_allocated() const { return tt_.size(); }
  /// Budget: time_ms (wall time; the search stops deepening and answers within it) and/or
  /// visits (read as nodes, see Options). Neither: default_time_ms. Throws
  /// std::invalid_argument when the game is over or in the middle of a turn.
  std::string choose_turn(const Game& game, const TurnBudget& budget) override;

  /// What the last choose_turn did.
  struct Info {
    int depth = 0;          ///< deepest completed iteration (turns)
    int score = 0;          ///< its score for the side to move (>= kWin - 1000: a proven win)
    int64_t nodes = 0;      ///< nodes searched (turn starts visited), all iterations
    int64_t leaves = 0;     ///< static evaluations
    double ms = 0.0;        ///< wall time
    std::vector<std::string> pv;  ///< principal variation from the TT (turns)
  };
  const Info& last_info() const { return info_; }

 private:
  struct Child {
    uint32_t kicks_at;  // offset into the ply's kick arena
    uint16_t num_kicks;
    int8_t winner;
    int order;          // ordering key, higher first
    uint64_t hash;
  };
  struct Ply {
    std::vector<Child> children;
    std::vector<uint8_t> kicks;
  };
  struct TTEntry {
    uint64_t key = 0;
    uint64_t best = 0;   // hash of the best child's position
    int32_t score = 0;
    int16_t depth = -1;
    uint8_t bound = 0;   // 1 exact, 2 lower, 3 upper
  };
  struct Aborted {};

  int search(const Position& pos, int depth, int alpha, int beta, int ply);
  void generate(const Position& pos, int ply, uint64_t tt_best);
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
  std::chrono::steady_clock::time_point deadline_;
  bool timed_ = false;
  int64_t node_limit_ = -1;
};

}  // namespace ps
