#include "search/leaf_evals.h"

#include <map>
#include <mutex>

#include "search/nnue_eval.h"
#include "search/value_net_file.h"

namespace ps {

namespace {
std::mutex g_mu;
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

std::unique_ptr<LeafEvaluator> make_leaf_evaluator(const LeafEvalSpec& spec, uint64_t seed) {
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
      return std::make_unique<NnueEvaluator>(shared_value_net(spec.value_net), spec.value_net);
    } catch (const ValueNetError& e) {
      throw LeafEvalError("value_net", e.what());
    }
  }
  throw LeafEvalError("eval", "unknown evaluation '" + spec.eval + "' (known: " + kLeafEvalNames + ")");
}

}  // namespace ps
