#include "search/value_net_evaluator.h"

#include <stdexcept>

namespace ps {

ValueNetEvaluator::ValueNetEvaluator(std::shared_ptr<const ValueNet> net, std::string source)
    : net_(std::move(net)), source_(std::move(source)) {
  if (!net_) throw std::invalid_argument("ValueNetEvaluator: no value net");
}

void ValueNetEvaluator::evaluate(const Position& pos, Evaluation& out) {
  if (!net_->plays(pos.pitch(), pos.variant()))
    throw std::invalid_argument("value net " + source_ + " was trained for other rules than " +
                                pos.pitch().name() + " " + variant_name(pos.variant()));
  if (pos.game_over() || !pos.turn_start())
    throw std::invalid_argument("value net " + source_ + ": evaluates unfinished turn starts only");
  out.value = net_->evaluate(pos);
  out.policy_logits.assign(size_t(pos.pitch().num_points()) * 8, 0.0f);
}

}  // namespace ps
