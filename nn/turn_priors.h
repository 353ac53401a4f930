// Turn priors from one evaluation (torch-free, library ps_nn_core).
//
// A turn's prior is the product, along its kick chain, of the softmax over the legal directions
// at each kick, all read from the one Evaluation at the start of the turn (engine frame). A turn
// reached by several chains either sums its chains' probability (sum_chains: true, the turn's
// exact probability under the per-kick policy) or keeps its best chain (false). Which of the two
// makes the stronger search was measured (docs/experiments/sum-of-chains-priors.md): no difference in 240
// games (51%
// for summing, 95% interval 45-58%). The default is sum_chains: true, the quantity the trainer's
// chain cross-entropy targets.
//
// The options are BestFirstOptions (engine/turns.h); search/params.h sets them from its keys
// (root_initial_turns, initial_turns, widen_min_remaining_mass, turn_gen_max_expansions,
// sum_chains).
#pragma once

#include "engine/turns.h"
#include "nn/evaluator.h"

namespace ps::nn {

/// best_first_turns over eval.policy_logits, then the priors of the returned turns are
/// renormalised to sum to 1 (needed with sum_chains: false, or when the enumeration stopped
/// early; remaining_mass still reports the unexplored mass before renormalisation).
/// Throws std::invalid_argument when eval.policy_logits does not have num_points * 8 floats.
BestFirstResult turn_priors(const Position& pos, const Evaluation& eval,
                            const BestFirstOptions& options = {});

}  // namespace ps::nn
