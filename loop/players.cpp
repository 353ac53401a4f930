#include "loop/players.h"

#include <iostream>
#include <map>
#include <mutex>

#include "nn/checkpoint.h"
#include "search/alphabeta.h"
#include "search/baselines.h"
#include "search/mcts_player.h"
#include "search/nnue_eval.h"
#include "search/value_net_file.h"
#include "search/params.h"
#include "tournament/registry.h"

namespace ps {

namespace {

std::mutex g_mu;
std::map<std::string, std::shared_ptr<Evaluator>> g_evaluators;
std::map<std::string, std::shared_ptr<const ValueNet>> g_value_nets;  // by path, read once

std::shared_ptr<const ValueNet> shared_value_net(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_value_nets.find(path);
  if (it != g_value_nets.end()) return it->second;
  auto net = std::make_shared<const ValueNet>(load_value_net(path));
  g_value_nets[path] = net;
  return net;
}

// A player that keeps its network service alive.
class NetMctsPlayer final : public Player {
 public:
  NetMctsPlayer(std::shared_ptr<Evaluator> eval, const SearchParams& params, uint64_t seed,
                const std::string& name, const Ablation& ablation = {}, bool search_stats = false)
      : eval_(std::move(eval)), player_(*eval_, params, seed, name, ablation), search_stats_(search_stats) {}
  // search_stats: the game's search totals, one line on stderr (a tournament makes a player
  // per game, so one line per game).
  ~NetMctsPlayer() override {
    if (search_stats_ && player_.totals().searches > 0) {
      const std::string line = "search stats of " + player_.name() + ": " + player_.totals().summary() + "\n";
      std::cerr << line << std::flush;  // one string: lines of games in parallel stay whole
    }
  }
  std::string name() const override { return player_.name(); }
  void new_game(const Pitch& pitch, Variant variant) override { player_.new_game(pitch, variant); }
  std::string choose_turn(const Game& game, const TurnBudget& budget) override {
    return player_.choose_turn(game, budget);
  }

 private:
  std::shared_ptr<Evaluator> eval_;
  MctsPlayer player_;
  bool search_stats_;
};

// The factory of a player type with no keys of its own: a P from the context's seed.
template <class P>
tour::PlayerFactory seeded_player() {
  return [](ConfigReader&, const tour::PlayerContext& c) { return std::make_unique<P>(c.seed); };
}

// The `uct` player type: its own keys are UctPlayer::Options.
std::unique_ptr<Player> make_uct_player(ConfigReader& r, const tour::PlayerContext& c) {
  UctPlayer::Options o;
  r.read(field("default_visits", o.default_visits), field("exploration", o.exploration),
         field("max_children", o.max_children), field("max_nodes", o.max_nodes));
  return std::make_unique<UctPlayer>(o, c.seed);
}

// The leaf evaluation of an `alphabeta` player: eval: hand (search/leaf_eval.h; nullptr) or
// nnue, the small value net of the file value_net (search/nnue_eval.h; trained by `papersoccer
// train-value`).
std::unique_ptr<LeafEvaluator> read_leaf_evaluator(ConfigReader& r) {
  const std::string eval = r.get<std::string>("eval", "hand");
  std::unique_ptr<LeafEvaluator> ev;
  if (eval == "nnue") {
    const std::string path = r.require<std::string>("value_net");
    try {
      ev = std::make_unique<NnueEvaluator>(shared_value_net(path), path);
    } catch (const ValueNetError& e) {
      r.fail_key("value_net", e.what());
    }
  } else if (eval != "hand") {
    r.fail_key("eval", "unknown evaluation '" + eval + "' (known: hand, nnue)");
  } else if (r.has("value_net")) {
    r.fail_key("value_net", "is only read with eval: nnue");
  }
  return ev;
}

// The `alphabeta` player type: AlphaBetaPlayer::Options, then its leaf evaluation.
std::unique_ptr<Player> make_alphabeta_player(ConfigReader& r, const tour::PlayerContext& c) {
  AlphaBetaPlayer::Options o;
  r.read(field("default_time_ms", o.default_time_ms), field("max_depth", o.max_depth),
         field("tt_mb", o.tt_mb));
  std::unique_ptr<LeafEvaluator> ev = read_leaf_evaluator(r);
  return std::make_unique<AlphaBetaPlayer>(o, std::move(ev), c.seed);
}

}  // namespace

std::shared_ptr<Evaluator> shared_net_evaluator(const std::string& checkpoint,
                                                const nn::ServiceOptions& options) {
  // Every option is part of the key: a player asking for other workers or torch threads gets
  // its own service rather than silently the first one's.
  const std::string key = checkpoint + "@" + options.device + "/" +
                          std::to_string(options.max_batch) + "/" +
                          std::to_string(options.batch_timeout_us) + "/" +
                          std::to_string(options.workers) + "/" +
                          std::to_string(options.torch_threads) + "/" +
                          std::to_string(options.cache_entries);
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_evaluators.find(key);
  if (it != g_evaluators.end()) return it->second;
  std::shared_ptr<Evaluator> e(nn::make_net_evaluator(checkpoint, options).release());
  g_evaluators[key] = e;
  return e;
}

std::unique_ptr<Player> make_net_player(const std::string& checkpoint,
                                        const nn::ServiceOptions& service,
                                        const SearchParams& search, uint64_t seed,
                                        const std::string& name) {
  return std::make_unique<NetMctsPlayer>(shared_net_evaluator(checkpoint, service), search, seed,
                                         name);
}

void clear_net_evaluators() {
  std::lock_guard<std::mutex> lock(g_mu);
  g_evaluators.clear();
  g_value_nets.clear();
}

namespace {

// The `mcts` player type: checkpoint, the service's keys, a search: map, the diagnostics
// uniform_priors and zero_value (search/mcts_player.h: Ablation; default false), and
// search_stats (default false: true writes each game's visits, evaluations and depth per search
// to stderr, search/mcts_player.h: SearchTotals).
std::unique_ptr<Player> make_mcts_player(ConfigReader& r, const tour::PlayerContext& c) {
  const std::string ckpt = r.require<std::string>("checkpoint");
  nn::ServiceOptions so = nn::parse_service_options(r);
  Ablation ab;
  bool stats = false;
  r.read(field("uniform_priors", ab.uniform_priors), field("zero_value", ab.zero_value),
         field("search_stats", stats));
  ConfigReader sr = r.child("search");
  SearchParams sp = parse_search_params(sr);
  return std::make_unique<NetMctsPlayer>(shared_net_evaluator(ckpt, so), sp, c.seed,
                                         c.name.empty() ? "mcts" : c.name, ab, stats);
}

}  // namespace

void register_builtin_players() {
  static std::once_flag once;
  std::call_once(once, [] {
    tour::register_player_type("random", seeded_player<RandomPlayer>(), "uniformly random distinct turn");
    tour::register_player_type(
        "greedy", seeded_player<GreedyPlayer>(),
        "one-turn heuristic: wins at once when it can, never allows an avoidable immediate goal, "
        "else moves the ball towards the attacked goal");
    tour::register_player_type("uct", make_uct_player, "pure MCTS with random rollouts (UCT)");
    tour::register_player_type(
        "alphabeta", make_alphabeta_player,
        "iterative-deepening alpha-beta over complete turns with a transposition table and "
        "the hand evaluation (goal distance, mobility, bounce points) or, with eval: nnue, a "
        "small value net (value_net: FILE)");
    tour::register_player_type("mcts", make_mcts_player, "PUCT search guided by a network checkpoint");
  });
}

}  // namespace ps
