#include "apps/bench_value_in_search.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <mutex>
#include <vector>

#include "core/stats.h"
#include "nn/evaluator.h"
#include "search/alphabeta.h"
#include "search/leaf_eval.h"
#include "search/mcts_player.h"
#include "tournament/openings.h"
#include "tournament/referee.h"
#include "valuenet/value_net_eval.h"

namespace ps::cmd {

namespace {

// A value net as the PUCT search's evaluator: value tanh(score / value_scale) of the side to
// move (the value the net was trained on), sign-flipped when `negate`; uniform per-kick priors.
// The search evaluates turn starts only (whole turns are its moves). Thread-safe (one lock: the
// incremental evaluator keeps a path).
class ValueNetAsEvaluator final : public Evaluator {
 public:
  ValueNetAsEvaluator(const std::shared_ptr<const ValueNet>& net, const std::string& name, bool negate)
      : eval_(net, name), scale_(net->value_scale), sign_(negate ? -1.0f : 1.0f) {}
  void evaluate(const Position& pos, Evaluation& out) override {
    out.policy_logits.assign(size_t(pos.pitch().num_points()) * 8, 0.0f);
    std::lock_guard<std::mutex> lock(mu_);
    out.value = sign_ * float(std::tanh(eval_.evaluate(pos) / double(scale_)));
  }
  std::string name() const override { return "value net"; }

 private:
  ValueNetEvaluator eval_;
  float scale_, sign_;
  std::mutex mu_;
};

// One row: `games` games of the player make_player builds (its budget: budget) against the
// zero-value PUCT search at `visits`, over the openings, colours swapped in each pair.
void play_row(const char* label, const std::function<std::unique_ptr<Player>(uint64_t)>& make_player,
              const TurnBudget& budget, const std::vector<std::vector<std::string>>& openings, int visits,
              const Pitch& pitch, Variant variant, uint64_t seed) {
  UniformEvaluator zero;
  SearchParams sp;
  sp.visits = visits;
  const TurnBudget opponent_budget{-1, visits};
  int wins = 0, games = 0, turns = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < openings.size(); ++i)
    for (int seat = 0; seat < 2; ++seat) {
      std::unique_ptr<Player> p = make_player(seed + 2 * i + seat);
      MctsPlayer opponent(zero, sp, seed + 1000003 + 2 * i + seat, "PUCT, value 0");
      const tour::GameResult r =
          seat == 0 ? tour::play_game(*p, opponent, pitch, variant, openings[i], budget, opponent_budget)
                    : tour::play_game(opponent, *p, pitch, variant, openings[i], opponent_budget, budget);
      wins += r.winner_seat == seat;
      turns += r.turns;
      ++games;
    }
  const auto [lo, hi] = wilson_interval(wins, games);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  %-44s %4d/%-4d = %5.1f%% [%4.1f, %4.1f]  %5.1f turns/game  %6.1f s\n", label, wins, games,
              100.0 * wins / games, 100 * lo, 100 * hi, double(turns) / games, s);
  std::fflush(stdout);
}

}  // namespace

void bench_value_in_search(const std::shared_ptr<const ValueNet>& net, const std::string& name, int games,
                           int visits, int leaf_replies, uint64_t seed) {
  const Pitch& pitch = net->pitch();
  const Variant variant = net->variant;
  tour::OpeningOptions oo;
  oo.count = games / 2;
  oo.turns = 3;
  oo.seed = seed;
  const auto openings = tour::generate_openings(pitch, variant, oo);
  std::printf(
      "the value net in PUCT and alpha-beta: %d games per row against PUCT at %d visits with value 0 and "
      "uniform priors (%zu openings of 3 random turns, colours swapped)\n",
      games, visits, openings.size());
  const TurnBudget puct_budget{-1, visits};
  // PUCT, then the same search with a one-turn minimax over the first leaf_replies turns of each
  // leaf (SearchParams::leaf_reply_turns; 16 were too few to find the replies that matter under
  // uniform priors, 64 used the value most): with the net's value, its negation, and with leaf
  // replies also value 0 (what the replies' win checks alone give).
  for (int replies : {0, leaf_replies}) {
    const std::string search =
        replies > 0 ? "PUCT, " + std::to_string(replies) + " leaf replies, " : "PUCT, ";
    const char* const values[3] = {"the value net's value", "the value net's value negated", "value 0"};
    for (int row = 0; row < (replies > 0 ? 3 : 2); ++row) {
      auto evaluator = std::make_shared<ValueNetAsEvaluator>(net, name, row == 1);
      UniformEvaluator zero;
      Evaluator& ev = row == 2 ? static_cast<Evaluator&>(zero) : *evaluator;
      play_row((search + values[row]).c_str(),
               [&](uint64_t s) {
                 SearchParams sp;
                 sp.visits = visits;
                 if (replies > 0) {
                   sp.initial_turns = replies;
                   sp.leaf_reply_turns = replies;
                 }
                 return std::make_unique<MctsPlayer>(ev, sp, s, "PUCT, value net");
               },
               puct_budget, openings, visits, pitch, variant, seed);
    }
  }
  // Alpha-beta to a fixed depth: a node budget far above what the depth needs.
  const TurnBudget depth_budget{-1, int64_t(1) << 40};
  struct Row {
    const char* label;
    int depth;
    bool random;
  };
  for (const Row& row : {Row{"alpha-beta to depth 1, the value net", 1, false},
                         Row{"alpha-beta to depth 2, the value net", 2, false},
                         Row{"alpha-beta to depth 2, the random evaluation", 2, true}})
    play_row(row.label,
             [&](uint64_t s) {
               AlphaBetaPlayer::Options ao;
               ao.max_depth = row.depth;
               std::unique_ptr<LeafEvaluator> le;
               if (row.random) le = std::make_unique<NoiseEvaluator>(NoiseEvaluator::kDefaultRange, s);
               else le = std::make_unique<ValueNetEvaluator>(net, name);
               return std::make_unique<AlphaBetaPlayer>(ao, std::move(le), s);
             },
             depth_budget, openings, visits, pitch, variant, seed);
}

}  // namespace ps::cmd
