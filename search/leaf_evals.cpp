#include "search/leaf_evals.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "valuenet/value_net_eval.h"
#include "valuenet/value_net_file.h"

namespace ps {

namespace {
std::mutex g_mu;

// An evaluator's score plus another evaluation's score of the same position (the sum clamped to
// +-99,999): eval_noise, the noise evaluation beside hand or nnue. Every call is forwarded, so an
// incremental evaluator keeps its path.
class TermAddedEvaluator final : public LeafEvaluator {
 public:
  TermAddedEvaluator(std::unique_ptr<LeafEvaluator> inner, std::unique_ptr<LeafEvaluator> term)
      : inner_(std::move(inner)), term_(std::move(term)) {}
  std::string name() const override { return inner_->name() + "+" + term_->name(); }
  int evaluate(const Position& pos) override { return add(inner_->evaluate(pos), pos); }
  void reset(const Position& root) override { inner_->reset(root); }
  void push_turn(const Position& parent, const uint8_t* kicks, int n) override {
    inner_->push_turn(parent, kicks, n);
  }
  void pop_turn() override { inner_->pop_turn(); }
  int evaluate_current(const Position& pos) override { return add(inner_->evaluate_current(pos), pos); }
  int evaluate_child(const Position& parent, const uint8_t* kicks, int n, const Position& child) override {
    return add(inner_->evaluate_child(parent, kicks, n, child), child);
  }

 private:
  int add(int score, const Position& pos) { return std::clamp(score + term_->evaluate(pos), -99999, 99999); }
  std::unique_ptr<LeafEvaluator> inner_, term_;
};

std::map<std::string, std::shared_ptr<const ValueNet>> g_nets;  // by path
}  // namespace

void clear_shared_value_nets() {
  std::lock_guard<std::mutex> lock(g_mu);
  g_nets.clear();
}

std::shared_ptr<const ValueNet> shared_value_net(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_nets.find(path);
  if (it != g_nets.end()) return it->second;
  auto net = std::make_shared<const ValueNet>(load_value_net(path));
  g_nets[path] = net;
  return net;
}

void check_value_net_rules(const std::string& path, const Pitch& pitch, Variant variant) {
  const std::shared_ptr<const ValueNet> net = shared_value_net(path);
  if (!net->plays(pitch, variant))
    throw std::invalid_argument("value net " + path + ": trained for " + net->pitch().name() + " " +
                                variant_name(net->variant) + ", the games are " + pitch.name() + " " +
                                variant_name(variant));
}

LeafEvalSpec leaf_eval_from_name(const std::string& name) {
  if (name.empty()) throw LeafEvalError("value_net", "an empty name: give a .vnet file, none or hand");
  LeafEvalSpec spec;
  if (name == "hand") return spec;
  if (name == "none") {
    spec.eval = "noise";
    return spec;
  }
  spec.eval = "nnue";
  spec.value_net = name;
  return spec;
}

std::string leaf_eval_name(const LeafEvalSpec& spec) {
  const LeafEvalSpec plain;
  if (spec.eval_noise != 0 || spec.noise_range != plain.noise_range ||
      (spec.eval == "nnue") == spec.value_net.empty())
    throw std::invalid_argument("evaluation " + describe_leaf_eval(spec) + ": no --value-net name gives it");
  if (spec.eval == "nnue") return spec.value_net;
  if (spec.eval == "noise") return "none";
  if (spec.eval == "hand") return "hand";
  throw std::invalid_argument("unknown evaluation '" + spec.eval + "' (known: " + kLeafEvalNames + ")");
}

std::unique_ptr<LeafEvaluator> make_leaf_evaluator(const LeafEvalSpec& spec, uint64_t seed) {
  // The name first: a misspelt one was reported against value_net.
  if (spec.eval != "hand" && spec.eval != "noise" && spec.eval != "nnue")
    throw LeafEvalError("eval", "unknown evaluation '" + spec.eval + "' (known: " + kLeafEvalNames + ")");
  if (spec.eval_noise < 0 || spec.eval_noise > 99999)
    throw LeafEvalError("eval_noise",
                        "must be in [0, 99999] (0: none), not " + std::to_string(spec.eval_noise));
  if (spec.eval_noise > 0) {
    if (spec.eval != "hand" && spec.eval != "nnue")
      throw LeafEvalError("eval_noise",
                          "is only added to eval: hand or nnue (the evaluation is " + spec.eval + ")");
    LeafEvalSpec inner = spec;
    inner.eval_noise = 0;
    return std::make_unique<TermAddedEvaluator>(make_leaf_evaluator(inner, seed),
                                                std::make_unique<NoiseEvaluator>(spec.eval_noise, seed));
  }
  if (spec.eval != "nnue" && !spec.value_net.empty())
    throw LeafEvalError("value_net", "is only read with eval: nnue (the evaluation is " + spec.eval + ")");
  if (spec.eval == "hand") return std::make_unique<HandEvaluator>();
  if (spec.eval == "noise") {
    try {
      return std::make_unique<NoiseEvaluator>(spec.noise_range, seed);
    } catch (const std::invalid_argument& e) {
      throw LeafEvalError("noise_range", e.what());
    }
  }
  if (spec.eval == "nnue") {
    if (spec.value_net.empty())
      throw LeafEvalError("value_net", "eval: nnue needs a value net (a .vnet file)");
    try {
      return std::make_unique<ValueNetEvaluator>(shared_value_net(spec.value_net), spec.value_net);
    } catch (const ValueNetError& e) {
      throw LeafEvalError("value_net", e.what());
    }
  }
  throw LeafEvalError("eval", "unknown evaluation '" + spec.eval + "' (known: " + kLeafEvalNames + ")");
}

}  // namespace ps
