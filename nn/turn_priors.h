// Turn priors from one evaluation (torch-free, library ps_nn_core).
//
// A turn's prior is the product, along its kick chain, of the softmax over the legal directions
// at each kick, all read from the one Evaluation at the start of the turn (engine frame). A turn
// reached by several chains either sums its chains' probability (sum_chains: true, the turn's
// exact probability under the per-kick policy) or keeps its best chain (false). Which of the two
// makes the stronger search was measured (docs/BENCHMARKS.md): no difference in 240 games (51%
// for summing, 95% interval 45-58%). The default is sum_chains: true, the quantity the trainer's
// chain cross-entropy targets.
//
// Config keys (a map, e.g. `turn_priors:` in a search config), defaults as BestFirstOptions:
//   sum_chains: true          see above
//   max_turns: 64             stop after this many distinct turns
//   min_remaining_mass: 0.0   stop once the unexplored chain probability is below this
//   max_expansions: 2000000   hard cap on expanded chain prefixes
#pragma once

#include "core/config.h"
#include "engine/turns.h"
#include "nn/evaluator.h"

namespace ps::nn {

/// Reads the keys above (calls r.finish()); throws ps::ConfigError naming a bad key.
BestFirstOptions parse_turn_prior_options(ConfigReader& r);

/// best_first_turns over eval.policy_logits, then the priors of the returned turns are
/// renormalised to sum to 1 (needed with sum_chains: false, or when the enumeration stopped
/// early; remaining_mass still reports the unexplored mass before renormalisation).
/// Throws std::invalid_argument when eval.policy_logits does not have num_points * 8 floats.
BestFirstResult turn_priors(const Position& pos, const Evaluation& eval,
                            const BestFirstOptions& options = {});

}  // namespace ps::nn
