// The small value net (search/value_net.h) behind the network interface (nn/evaluator.h), so
// that the searches written for the residual net run on it: best-first minimax (UBFM,
// search/descent.h) over the value net is the design of the strongest CodinGame Paper Soccer
// bot (best-first minimax over a 1156-32-32-1 value net; issue 12).
//   - value: ValueNet::evaluate from scratch (the sum over the drawn segments, O(drawn x h1);
//     about 2-4 microseconds on 8x10 late in a game), for the side to move;
//   - policy: equal logits for every kick (the net has no policy head), so a search that lists
//     turns by prior lists them in generation order and should be told to list them all.
// Thread-safety: evaluate() may be called from any number of threads (the net is read-only,
// ValueNet::evaluate keeps per-thread buffers).
#pragma once

#include <memory>
#include <string>

#include "nn/evaluator.h"
#include "search/value_net.h"

namespace ps {

class ValueNetEvaluator final : public Evaluator {
 public:
  /// source: the net's file, for name(). Throws std::invalid_argument for a null net.
  ValueNetEvaluator(std::shared_ptr<const ValueNet> net, std::string source);
  /// pos: an unfinished turn start of the net's rules (std::invalid_argument otherwise).
  void evaluate(const Position& pos, Evaluation& out) override;
  std::string name() const override { return "value-net:" + source_; }
  const ValueNet& net() const { return *net_; }

 private:
  std::shared_ptr<const ValueNet> net_;
  std::string source_;
};

}  // namespace ps
