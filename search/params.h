// Every knob of the PUCT search (search/mcts.h) in one struct, parsed from YAML in one function.
//
// Sources: the PUCT rule and its visit-dependent exploration constant follow the AlphaZero
// pseudocode (Silver et al. 2018, Science, supplementary "pseudocode.py": pb_c_base, pb_c_init,
// root Dirichlet noise, temperature by move number); first-play urgency as a reduction below the
// parent value and virtual loss for several threads on one tree follow KataGo (Wu 2019,
// "Accelerating Self-Play Learning in Go") and Leela Chess Zero; proven results use the
// MCTS-solver (Winands, Bjornsson, Saito 2008, "Monte-Carlo Tree Search Solver").
#pragma once

#include <cstdint>
#include <string>

namespace ps {

// single-file: omit begin (the exported bot reads no config)
class ConfigReader;
// single-file: omit end

/// Parameters of ps::Search. YAML keys are the field names; defaults are the values below.
/// Units: visits are simulations (one network evaluation or one proven/terminal leaf each),
/// times are wall-clock milliseconds, values are in [-1, 1] for the player concerned.
struct SearchParams {
  // --- budget ------------------------------------------------------------------------------
  /// visits: new simulations per search when the caller's budget gives neither visits nor time.
  int64_t visits = 800;
  /// time_ms: wall time per search when the caller's budget gives none; -1 = not limited.
  int64_t time_ms = -1;
  /// num_threads: threads on one tree (play/analysis). 1 = the search runs in the calling
  /// thread with no thread start-up (self-play: many single-threaded searches in parallel).
  int num_threads = 1;
  /// leaf_batch: leaves each search thread gathers (under virtual loss) before it evaluates
  /// them in one Evaluator::evaluate_many call (Leela Chess Zero's minibatch gathering), so a
  /// single-threaded search hands the batching service leaf_batch positions at a time. A
  /// descent that meets a leaf already waiting ends the batch early. 1 = each leaf alone.
  int leaf_batch = 1;

  // --- PUCT (AlphaZero pseudocode) -----------------------------------------------------------
  /// c_puct_init, c_puct_base: exploration c(s) = log((1 + N(s) + base) / base) + init, where
  /// N(s) is the parent's visit count; score = Q + c(s) * P * sqrt(N(s)) / (1 + N(child)).
  double c_puct_init = 1.25;
  double c_puct_base = 19652.0;
  /// fpu_reduction: Q of an unvisited child = parent Q - fpu_reduction * sqrt(sum of the priors
  /// of visited children) (KataGo/Lc0 first-play urgency). root_fpu_reduction at the root.
  double fpu_reduction = 0.25;
  double root_fpu_reduction = 0.0;
  /// virtual_loss: visits (each a loss for the selecting player) added to every node of a path
  /// while a simulation is in flight; only matters with num_threads > 1.
  int virtual_loss = 1;

  // --- root noise and move choice ------------------------------------------------------------
  /// root_noise: mix Dirichlet noise into the root priors (self-play exploration).
  bool root_noise = false;
  /// dirichlet_alpha_total: alpha per child = dirichlet_alpha_total / number of root children
  /// (the alpha is scaled to the branching factor, as KataGo does; 0.3 x ~33 chess moves ~ 10).
  double dirichlet_alpha_total = 10.0;
  /// dirichlet_fraction: epsilon, prior' = (1 - eps) * prior + eps * noise.
  double dirichlet_fraction = 0.25;
  /// temperature: turns 0 .. temperature_turns - 1 of a game (0-based, counted over both
  /// players) are sampled with probability ~ visits^(1/temperature); later turns use
  /// temperature_final. 0 = the most visited turn.
  double temperature = 1.0;
  int temperature_turns = 0;
  double temperature_final = 0.0;
  /// reuse_tree: keep the subtree of the position actually reached (found by hash up to two
  /// turns below the previous root) for the next search.
  bool reuse_tree = true;

  // --- children: best-first turn generation with progressive widening ------------------------
  /// initial_turns: turns generated (in prior order) when a node is expanded.
  int initial_turns = 16;
  /// root_initial_turns: turns generated at the root before the search starts.
  int root_initial_turns = 256;
  /// widen_per_sqrt_visit: a node may hold initial_turns + widen_per_sqrt_visit * sqrt(N)
  /// children; when it holds fewer and more exist, it is widened (regenerated to at least
  /// twice as many turns, new ones appended). Widening does not ask the network again: a node
  /// keeps the policy logits of its expansion ([num_points * 8] floats: 3,360 bytes per
  /// expanded node on 8x10, 105 points) until its turn list is complete or exhausted, at most
  /// 256 MiB per search (past that, widening evaluates the position again).
  double widen_per_sqrt_visit = 4.0;
  /// widen_min_remaining_mass: stop generating once the prior mass of turns not yet generated
  /// is below this; such a node widens again only when the solver needs it (all its children
  /// lost).
  double widen_min_remaining_mass = 1e-3;
  /// turn_gen_max_expansions: cap on chain prefixes one best-first generation may pop.
  int64_t turn_gen_max_expansions = 20000;
  /// sum_chains: the prior of a turn reached by several kick chains is the sum of the chains'
  /// probabilities (true: the turn's probability under the per-kick policy) or the probability
  /// of its best chain (false). A match of the two (configs/experiments/chains-sum-vs-best.yaml)
  /// found no difference in 240 games; see docs/experiments/sum-of-chains-priors.md.
  bool sum_chains = true;
  /// policy_temperature: the per-kick policy softmax is taken over logits / policy_temperature
  /// (Leela Chess Zero's policy softmax temperature; search/policy_temperature.h): > 1 flattens
  /// the turn priors towards uniform over kicks, < 1 sharpens them, 1 = the network's priors.
  /// Expansions and widening see it. Must be > 0.
  double policy_temperature = 1.0;

  // --- solver ------------------------------------------------------------------------------
  /// solver: propagate proven wins/losses (MCTS-solver) and stop once the root is proven.
  /// Terminal turns and the win check always give exact leaf values, even when false.
  bool solver = true;

  // single-file: omit begin (the exported bot searches without leaf replies)
  // --- leaf replies --------------------------------------------------------------------------
  /// leaf_reply_turns: at each leaf the network evaluates (not the root), also evaluate the
  /// positions after its first leaf_reply_turns turns in prior order (the side to move's best
  /// candidates; each with the engine's win checks first, which settle some without the
  /// network) in one Evaluator::evaluate_many call, and back up the best of them for the side
  /// to move instead of the leaf's own value: a one-turn minimax at every leaf, so that a
  /// leaf's value has met the mover's replies (in this game the side to move holds the
  /// tactics; docs/experiments/resnet-loop-learning.md). Costs up to 1 + leaf_reply_turns
  /// evaluations per visit. 0 = off. In 0..256, and <= initial_turns.
  int leaf_reply_turns = 0;
  // single-file: omit end

  // single-file: omit begin (the exported bot has no proof step)
  // --- proof step (MCTS-minimax hybrid, search/mcts_player.h) --------------------------------
  /// proof_fraction: share of a timed turn's search time that the `mcts` player first spends
  /// on an alpha-beta win/loss proof over the root's turns (AlphaBetaPlayer::prove_root,
  /// search/alphabeta.h; Baier and Winands 2015, MCTS-minimax hybrids, root variant): a turn
  /// proven won is played at once, turns proven lost are excluded from the search
  /// (Search::exclude_root_turns), the rest of the time goes to PUCT. 0 = no proof step.
  /// Searches with a visit budget only skip it: self-play and a run's evaluation, whose configs
  /// refuse a proof_fraction other than 0 (SelfplayConfig::validate, loop/run_config.h); a
  /// tournament or ladder player needs a time_ms budget for it. In [0, 0.9].
  double proof_fraction = 0.0;

  // --- endgame search (search/mcts_player.h) -------------------------------------------------
  /// endgame_from_turn: once this many complete turns have been played, the `mcts` player
  /// searches a timed turn with alpha-beta over complete turns (search/alphabeta.h, the whole
  /// turn's budget) instead of this search: the net's search plays the opening and middle game,
  /// alpha-beta the endgame, where the pitch fills and the games are decided by deep tactics
  /// (docs/experiments/alphabeta-from-which-turn.md). -1 = never. A turn given a visit
  /// budget, with or without a time (self-play, `bot --visits`, a tournament player's visits),
  /// never switches. >= -1.
  int endgame_from_turn = -1;
  /// endgame_eval: alpha-beta's leaf evaluation in the endgame (search/leaf_evals.h): noise (a
  /// random evaluation, NoiseEvaluator, which measured stronger than the hand one), hand, or
  /// nnue (the small value net in the .vnet file endgame_value_net).
  std::string endgame_eval = "noise";
  /// endgame_value_net: the .vnet file of endgame_eval: nnue; "" otherwise.
  std::string endgame_value_net;
  /// endgame_eval_noise: with endgame_eval hand or nnue, the noise evaluation of this range is
  /// added to every leaf score (LeafEvalSpec::eval_noise; 0 = none; [0, 99,999]).
  int endgame_eval_noise = 0;
  // single-file: omit end

  /// Temperature for the 0-based turn index of a game.
  double temperature_at(int turn_index) const {
    return turn_index < temperature_turns ? temperature : temperature_final;
  }
  /// Throws std::invalid_argument naming the first out-of-range field.
  void validate() const;
};

/// Reads SearchParams from a YAML map (every key optional, defaults above). Unknown keys, wrong
/// types and out-of-range values throw ps::ConfigError naming the key path and line; finish()
/// is called on `cfg`, so pass a reader of a map that holds search keys only.
/// Keys not given keep their value in `defaults` (e.g. self-play's root noise).
// single-file: omit begin (the exported bot reads no config)
SearchParams parse_search_params(ConfigReader& cfg, const SearchParams& defaults = {});
// single-file: omit end

}  // namespace ps
