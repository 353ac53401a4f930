#include "nn/turn_priors.h"

#include <stdexcept>

namespace ps::nn {

BestFirstResult turn_priors(const Position& pos, const Evaluation& eval,
                            const BestFirstOptions& options) {
  const size_t want = size_t(pos.pitch().num_points()) * kNumDirs;
  if (eval.policy_logits.size() != want)
    throw std::invalid_argument("turn_priors: the evaluation has " +
                                std::to_string(eval.policy_logits.size()) +
                                " policy logits, pitch " + pos.pitch().name() + " needs " +
                                std::to_string(want));
  BestFirstResult res = best_first_turns(pos, eval.policy_logits.data(), options);
  double total = 0;
  for (const Turn& t : res.turns) total += t.prior;
  if (total > 0)
    for (Turn& t : res.turns) t.prior = float(t.prior / total);
  return res;
}

}  // namespace ps::nn
