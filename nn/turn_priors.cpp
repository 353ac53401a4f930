#include "nn/turn_priors.h"

#include <stdexcept>

namespace ps::nn {

BestFirstOptions parse_turn_prior_options(ConfigReader& r) {
  BestFirstOptions o;
  o.sum_chains = r.get<bool>("sum_chains", o.sum_chains);
  o.max_turns = r.get<int>("max_turns", o.max_turns);
  o.min_remaining_mass = r.get<double>("min_remaining_mass", o.min_remaining_mass);
  o.max_expansions = r.get<int64_t>("max_expansions", o.max_expansions);
  r.finish();
  if (o.max_turns < 1) throw ConfigError(r.source() + ": " + r.path("max_turns") + ": must be >= 1");
  if (!(o.min_remaining_mass >= 0 && o.min_remaining_mass < 1))
    throw ConfigError(r.source() + ": " + r.path("min_remaining_mass") + ": must be in [0, 1)");
  if (o.max_expansions < 1)
    throw ConfigError(r.source() + ": " + r.path("max_expansions") + ": must be >= 1");
  return o;
}

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
