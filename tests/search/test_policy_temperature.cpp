// SearchParams::policy_temperature (search/policy_temperature.h): the per-kick softmax over
// logits / T. T = 1 keeps the network's priors, large T approaches uniform per-kick priors,
// T < 1 sharpens them, and ps::Search applies it wherever logits reach turn generation (PUCT's
// expansions and widening).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "core/config.h"
#include "engine/random_positions.h"
#include "engine/turns.h"
#include "search/fixed_cost_evaluator.h"
#include "search/mcts.h"
#include "search/params.h"
#include "search/policy_temperature.h"

using namespace ps;

namespace {

// Every turn of pos with its exact prior under the evaluator's logits (complete enumeration:
// with sum_chains the prior is the turn's probability under the per-kick policy).
std::map<uint64_t, double> exact_priors(Evaluator& ev, const Position& pos) {
  Evaluation e;
  ev.evaluate(pos, e);
  BestFirstOptions o;
  o.max_turns = 1 << 20;
  const BestFirstResult r = best_first_turns(pos, e.policy_logits.data(), o);
  REQUIRE(r.complete);
  std::map<uint64_t, double> out;
  for (const Turn& t : r.turns) out[t.hash] = t.prior;
  return out;
}

double max_prior(const std::map<uint64_t, double>& p) {
  double m = 0;
  for (const auto& kv : p) m = std::max(m, kv.second);
  return m;
}

}  // namespace

TEST_CASE("policy temperature: T = 1 leaves the logits, T scales them by 1 / T", "[search]") {
  FixedCostEvaluator net(0, 0.5f, 2.0f, 7);
  const Position start(Pitch::standard(), Variant::kStandard);
  Evaluation raw, one, two;
  net.evaluate(start, raw);
  PolicyTemperatureEvaluator t1(net, 1.0), t2(net, 2.0);
  t1.evaluate(start, one);
  t2.evaluate(start, two);
  REQUIRE(one.policy_logits == raw.policy_logits);
  REQUIRE(one.value == raw.value);
  REQUIRE(two.value == raw.value);
  for (size_t i = 0; i < raw.policy_logits.size(); ++i)
    REQUIRE(two.policy_logits[i] == raw.policy_logits[i] / 2);
  REQUIRE(t2.name() == net.name() + "/T=2");
}

TEST_CASE("policy temperature: turn priors of one-kick turns are softmax(logits / T)", "[search]") {
  // At the start every turn is one kick, so a turn's prior is its kick's softmax: the log
  // ratio of two turns' priors is the logit difference, divided by T.
  FixedCostEvaluator net(0, 0.5f, 2.0f, 11);
  const Position start(Pitch::standard(), Variant::kStandard);
  const std::map<uint64_t, double> base = exact_priors(net, start);
  REQUIRE(base.size() == 8);
  double last_max = 1.0;
  for (double t : {0.5, 1.0, 2.5, 10.0}) {
    PolicyTemperatureEvaluator tempered(net, t);
    const std::map<uint64_t, double> p = exact_priors(tempered, start);
    REQUIRE(p.size() == base.size());
    for (const auto& a : p)
      for (const auto& b : p)
        REQUIRE(std::log(a.second / b.second) ==
                Approx(std::log(base.at(a.first) / base.at(b.first)) / t).margin(1e-4));
    // Sharper below 1, flatter above: the largest prior falls as T grows.
    const double m = max_prior(p);
    if (t > 0.5) REQUIRE(m < last_max);
    last_max = m;
  }
  REQUIRE(max_prior(exact_priors(*std::make_unique<PolicyTemperatureEvaluator>(net, 0.5), start)) >
          max_prior(base));
}

TEST_CASE("policy temperature: a large T approaches uniform per-kick priors", "[search]") {
  FixedCostEvaluator net(0, 0.5f, 3.0f, 5);
  UniformEvaluator uniform;
  PolicyTemperatureEvaluator hot(net, 1e6);
  int compared = 0;
  for (const Position& pos : random_positions(Pitch::standard(), Variant::kStandard, 12, 3, 20)) {
    const std::map<uint64_t, double> u = exact_priors(uniform, pos);
    const std::map<uint64_t, double> h = exact_priors(hot, pos);
    const std::map<uint64_t, double> b = exact_priors(net, pos);
    REQUIRE(h.size() == u.size());
    double diff_hot = 0, diff_base = 0;
    for (const auto& kv : u) {
      diff_hot = std::max(diff_hot, std::abs(h.at(kv.first) - kv.second));
      diff_base = std::max(diff_base, std::abs(b.at(kv.first) - kv.second));
    }
    REQUIRE(diff_hot < 1e-4);
    if (u.size() > 1) REQUIRE(diff_base > 1e-2);  // the net itself is far from uniform
    compared += int(u.size());
  }
  REQUIRE(compared > 50);
}

TEST_CASE("policy temperature: the search sees logits / T, widening included", "[search]") {
  // Logits scaled by 4 (an evaluator at temperature 1/4) searched at T = 4 must give exactly
  // the search of the unscaled logits at T = 1 (powers of two: the division is exact in
  // float). A path that read the net's logits without T would see 4x sharper priors.
  FixedCostEvaluator net(0, 0.8f, 1.5f, 9);
  PolicyTemperatureEvaluator sharp(net, 0.25);
  SearchParams p;
  p.reuse_tree = false;
  p.root_initial_turns = 2;  // the root and every node grow by widening
  p.initial_turns = 1;
  SearchParams hot = p;
  hot.policy_temperature = 4.0;
  int differs = 0, widened = 0;
  for (const Position& pos : random_positions(Pitch::standard(), Variant::kStandard, 6, 17, 16)) {
    Search plain(net, p, 1), tempered(sharp, hot, 1), untempered(sharp, p, 1);
    SearchLimits lim;
    lim.visits = 200;
    const SearchResult a = plain.run(pos, lim), b = tempered.run(pos, lim), c = untempered.run(pos, lim);
    REQUIRE(a.children.size() == b.children.size());
    widened += a.children.size() > 2;  // more root turns than root_initial_turns
    for (size_t i = 0; i < a.children.size(); ++i) {
      REQUIRE(a.children[i].kicks == b.children[i].kicks);
      REQUIRE(a.children[i].prior == Approx(b.children[i].prior).margin(1e-6));
      REQUIRE(a.children[i].visits == b.children[i].visits);
    }
    REQUIRE(a.best_turn == b.best_turn);
    bool same = a.children.size() == c.children.size();
    for (size_t i = 0; same && i < a.children.size(); ++i)
      same = a.children[i].kicks == c.children[i].kicks &&
             std::abs(a.children[i].prior - c.children[i].prior) < 1e-6;
    differs += !same;
  }
  REQUIRE(differs > 0);
  REQUIRE(widened > 0);
}

TEST_CASE("policy temperature: the key is read and must be > 0", "[search]") {
  {
    auto cfg = ConfigReader::from_string("policy_temperature: 1.5\n", "t.yaml");
    REQUIRE(parse_search_params(cfg).policy_temperature == 1.5);
  }
  REQUIRE(SearchParams().policy_temperature == 1.0);
  for (const char* bad : {"0", "-1", ".nan", ".inf"}) {
    auto cfg = ConfigReader::from_string(std::string("policy_temperature: ") + bad + "\n", "t.yaml");
    REQUIRE_THROWS_WITH(parse_search_params(cfg),
                        "t.yaml: policy_temperature (line 1): must be > 0 and finite");
  }
  SearchParams p;
  p.policy_temperature = 0;
  UniformEvaluator u;
  REQUIRE_THROWS_WITH(Search(u, p), Catch::Contains("policy_temperature") && Catch::Contains("must be > 0"));
}

// Regression: `c_puct_base: .inf` or `dirichlet_alpha_total: .inf` (or 1e308) passed the check of
// a lower bound alone, and every self-play game of the run came out the same 53 turns.
TEST_CASE("search params: exploration and noise constants must be finite and bounded", "[search]") {
  const std::pair<const char*, const char*> cases[] = {{"c_puct_base", "must be > 0 and <= 1e9"},
                                                       {"c_puct_init", "must be in [0, 100]"},
                                                       {"dirichlet_alpha_total", "must be > 0 and <= 1000"},
                                                       {"widen_per_sqrt_visit", "must be in [0, 1e6]"}};
  for (const auto& [key, why] : cases)
    for (const char* bad : {".inf", ".nan", "1e308"}) {
      auto cfg = ConfigReader::from_string(std::string(key) + ": " + bad + "\n", "t.yaml");
      REQUIRE_THROWS_WITH(parse_search_params(cfg), std::string("t.yaml: ") + key + " (line 1): " + why);
    }
  auto ok = ConfigReader::from_string("c_puct_base: 19652\ndirichlet_alpha_total: 10\n", "t.yaml");
  CHECK(parse_search_params(ok).c_puct_base == 19652);
}
