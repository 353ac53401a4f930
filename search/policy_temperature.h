// The policy softmax temperature (SearchParams::policy_temperature): the network's per-kick
// logits divided by T before any turn is generated from them, so every per-kick softmax of a
// turn's chain is softmax(logits / T). T > 1 flattens the turn priors towards uniform over kicks,
// T < 1 sharpens them, T = 1 leaves them as the network gave them.
//
// Source: Leela Chess Zero's policy softmax temperature (its search option PolicyTemperature,
// `--policy-softmax-temp`), which applies the same division to the network's move logits.
// Applied by ps::Search to its evaluator (search/mcts.cpp), so PUCT's expansions and widening
// (which reuses the logits kept at a node's expansion) all see the tempered logits.
// The single-file bot leaves it out (it searches at temperature 1; export/CMakeLists.txt).
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "nn/evaluator.h"

namespace ps {

/// logits[i] /= temperature for every entry. temperature must be > 0 (not checked here:
/// SearchParams::validate checks it).
inline void apply_policy_temperature(std::vector<float>& logits, double temperature) {
  const float inv = float(1.0 / temperature);
  for (float& l : logits) l *= inv;
}

/// An evaluator whose policy logits are divided by a temperature (values unchanged).
/// Thread-safe when the wrapped evaluator is.
class PolicyTemperatureEvaluator final : public Evaluator {
 public:
  /// inner must outlive this object; temperature > 0.
  PolicyTemperatureEvaluator(Evaluator& inner, double temperature)
      : inner_(inner), temperature_(temperature) {}
  void evaluate(const Position& pos, Evaluation& out) override {
    inner_.evaluate(pos, out);
    apply_policy_temperature(out.policy_logits, temperature_);
  }
  void evaluate_many(const Position* const* positions, size_t n, Evaluation* out) override {
    inner_.evaluate_many(positions, n, out);
    for (size_t i = 0; i < n; ++i) apply_policy_temperature(out[i].policy_logits, temperature_);
  }
  /// "<inner name>/T=<temperature>".
  std::string name() const override {
    std::ostringstream s;
    s << inner_.name() << "/T=" << temperature_;
    return s.str();
  }

 private:
  Evaluator& inner_;
  double temperature_;
};

}  // namespace ps
