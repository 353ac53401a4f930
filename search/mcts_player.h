// The PUCT search (search/mcts.h) as a ps::Player, optionally with a proof step before it: an
// MCTS-minimax hybrid (Baier and Winands, "MCTS-Minimax Hybrids", IEEE TCIAIG 7(2), 2015; here
// their root variant, as in the root proof checks of MCTS-Solver programs).
//
// Proof step (SearchParams::proof_fraction > 0, timed turns only): alpha-beta over complete
// turns (AlphaBetaPlayer::prove_root, search/alphabeta.h: iterative deepening, transposition
// table of 16 MiB, the engine's win check, hand-evaluation move ordering) proves root turns won
// or lost within proof_fraction of the turn's search time:
//  - a turn proven won is played at once (the one proven at the lowest depth);
//  - turns proven lost are marked proven lost in PUCT's root (Search::exclude_root_turns);
//  - when every turn is proven lost (and the list is complete), the turn proven at the largest
//    depth is played: the longest resistance found;
//  - otherwise PUCT searches for the rest of the time (what the proof did not use).
// A share under kMinProofMs skips the step: listing a heavy position's turns is not
// interrupted by the deadline, so a small share overran its turn (a gauntlet at 20 ms
// per turn and proof_fraction 0.9: 159 ms turns; at 100 ms per turn none was late).
// Endgame search (SearchParams::endgame_from_turn >= 0, turns timed and without visits): from that many
// complete turns on, the player answers with alpha-beta over complete turns (search/alphabeta.h,
// leaf evaluation SearchParams::endgame_eval) and the whole turn's budget instead of this search:
// the net's search for the opening and middle game, alpha-beta for the endgame, the oldest
// split of game programs (opening books and endgame searchers beside a middle-game search).
// Measured against alphabeta at 200 ms per turn in docs/experiments/alphabeta-from-which-turn.md.
// The proof step runs in the calling thread before the search, within the turn's time; like the
// search, the player serves one caller at a time. Measured against alphabeta at 200 ms per
// turn it did not change the score (docs/experiments/root-proof-step.md), so it is off
// by default.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/evaluator.h"
#include "search/alphabeta.h"
#include "search/mcts.h"
#include "search/player.h"

namespace ps {

/// Diagnostics: which heads of the network a search does without (the `mcts` player's keys
/// uniform_priors and zero_value, loop/players.cpp). docs/STRENGTH.md measures with them what
/// each head of a trained net adds over a random-weight net.
struct Ablation {
  bool uniform_priors = false;  ///< policy logits replaced by zeros: uniform per-kick priors
  bool zero_value = false;      ///< value replaced by 0 at every leaf
  bool any() const { return uniform_priors || zero_value; }
};

/// An evaluator seen through an Ablation: the wrapped network's policy logits replaced by zeros
/// (turns are still generated best-first, under uniform per-kick priors) and/or its value by 0.
/// Thread-safe when the wrapped evaluator is. It measures what each head of a net adds to the
/// search; it is not a way to play well.
class AblatedEvaluator final : public Evaluator {
 public:
  /// inner must outlive this object.
  AblatedEvaluator(Evaluator& inner, const Ablation& ablation);
  void evaluate(const Position& pos, Evaluation& out) override;
  void evaluate_many(const Position* const* positions, size_t n, Evaluation* out) override;
  /// "<inner name>+uniform_priors", "+zero_value" or both.
  std::string name() const override;

 private:
  void ablate(const Position& pos, Evaluation& e) const;
  Evaluator& inner_;
  Ablation ablation_;
};

/// What the searches of one game reached (MctsPlayer::totals; reset by new_game): sums over
/// its choose_turn calls, for per-turn means (docs/STRENGTH.md reports visits per turn).
struct SearchTotals {
  int64_t searches = 0;     ///< choose_turn calls
  int64_t visits = 0;       ///< new simulations
  int64_t evaluations = 0;  ///< evaluator positions
  double elapsed_ms = 0;    ///< search wall time
  int64_t proofs = 0;       ///< proof steps run (SearchParams::proof_fraction)
  int64_t proof_wins = 0;   ///< turns played because the proof step proved them won
  int64_t proof_resigned = 0;  ///< turns played with every root turn proven lost
  int64_t proof_excluded = 0;  ///< root turns proven lost and excluded from PUCT (sum)
  double proof_ms = 0;         ///< proof steps' wall time
  int64_t endgame_turns = 0;   ///< turns searched by alpha-beta (SearchParams::endgame_from_turn)
  int64_t endgame_depth = 0;   ///< sum of their deepest completed iterations (turns)
  int64_t endgame_nodes = 0;   ///< sum of their nodes
  double endgame_ms = 0;       ///< their wall time
  /// "N searches, per search: V visits, E evaluations, T ms" (means; "0 searches" when there
  /// were none); with proof steps "; proof steps: P ms, X excluded per turn, W won, L all
  /// lost" follows (per-step means, W and L counts); with alpha-beta endgame turns "; alpha-beta
  /// endgame: N turns, per turn: depth D, K nodes, T ms" (the searches above exclude them).
  std::string summary() const;

 private:
  std::string search_summary() const;
};

/// Runs ps::Search on the game's position and picks a turn with the temperature of
/// SearchParams::temperature_at(number of complete turns played). The tree is kept between
/// turns (tree reuse) and dropped by new_game().
class MctsPlayer final : public Player {
 public:
  /// The endgame_from_turn of the play-time search of `bot`, `play`, `serve` and `ladder`'s model:
  /// 0, alpha-beta with the value net answers every timed turn (PUCT answers turns given
  /// visits). With the random evaluation turn 20 measured best (of 10, 15, 20, 25, 35); with
  /// the first value net turn 10 lost fewer games to the net's PUCT falling into traps (against
  /// uct 96-97% instead of 84%); with the window value net turn 0 scored 449/600 = 74.8%
  /// against alphabeta-nnue where turn 10 had scored 278/400 = 69.5%, at 200 ms per turn
  /// (docs/experiments/value-net-from-teacher-games.md and docs/experiments/alphabeta-from-which-turn.md).
  static constexpr int kPlayEndgameFromTurn = 0;
  /// The smallest proof step run (ms of the turn's search time times proof_fraction).
  static constexpr int64_t kMinProofMs = 45;
  /// evaluator must outlive the player. name defaults to "mcts(<evaluator name>)". With an
  /// ablation the search sees the evaluator through an AblatedEvaluator. Throws
  /// std::invalid_argument for invalid params.
  MctsPlayer(Evaluator& evaluator, const SearchParams& params, uint64_t seed = 0, std::string name = "",
             const Ablation& ablation = {});
  std::string name() const override { return name_; }
  void new_game(const Pitch& pitch, Variant variant) override;
  /// Budget: visits and/or time_ms (the search stops at 90% of time_ms to leave a margin; the
  /// proof step, when on, takes its share of those 90% first); neither given -> SearchParams
  /// visits/time_ms. From SearchParams::endgame_from_turn complete turns on, a turn with a
  /// time_ms and no visits is searched by alpha-beta instead (AlphaBetaPlayer with endgame_eval,
  /// the whole time_ms; a budget that names visits gets this search, capped by its time too;
  /// last_result() then holds the turn played, its principal variation and a proven
  /// result when alpha-beta found one). Throws std::invalid_argument when the game is over or mid-turn; evaluator
  /// errors propagate.
  std::string choose_turn(const Game& game, const TurnBudget& budget) override;

  /// The full result of the last choose_turn (visits per root turn: the training target). A
  /// turn the proof step decided alone has one child, that turn, with 0 visits.
  const SearchResult& last_result() const { return last_; }
  /// The searches of this game so far.
  const SearchTotals& totals() const { return totals_; }
  Search& search() { return search_; }

 private:
  std::unique_ptr<AblatedEvaluator> ablated_;  // null unless an ablation is asked for
  Search search_;
  std::unique_ptr<AlphaBetaPlayer> prover_;  // the proof step's search; null when off
  std::unique_ptr<AlphaBetaPlayer> endgame_;  // the endgame's search; null when off
  std::string endgame_turn(const Game& game, const TurnBudget& budget);
  std::string name_;
  SearchResult last_;
  SearchTotals totals_;
};

/// An MctsPlayer over a shared evaluator (a network's inference service, loop/players.h) that
/// it keeps alive: the `mcts` player type's and the shipped bot's (search/bot_player.h). With
/// search_stats it writes the game's search totals as one line on stderr when it is destroyed (a
/// tournament makes a player per game, so one line per game).
class NetMctsPlayer final : public Player {
 public:
  NetMctsPlayer(std::shared_ptr<Evaluator> eval, const SearchParams& params, uint64_t seed,
                const std::string& name, const Ablation& ablation = {}, bool search_stats = false)
      : eval_(std::move(eval)), player_(*eval_, params, seed, name, ablation), search_stats_(search_stats) {}
  ~NetMctsPlayer() override;
  std::string name() const override { return player_.name(); }
  void new_game(const Pitch& pitch, Variant variant) override { player_.new_game(pitch, variant); }
  std::string choose_turn(const Game& game, const TurnBudget& budget) override {
    return player_.choose_turn(game, budget);
  }

 private:
  std::shared_ptr<Evaluator> eval_;
  MctsPlayer player_;
  bool search_stats_;
};

}  // namespace ps
