#include "loop/players.h"

#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>

#include "nn/checkpoint.h"
#include "search/alphabeta.h"
#include "search/baselines.h"
#include "search/bot_player.h"
#include "search/leaf_evals.h"
#include "search/mcts_player.h"
#include "search/params.h"
#include "tournament/registry.h"
#include "valuenet/value_net_eval.h"
#include "valuenet/value_net_file.h"

namespace ps {

namespace {

std::mutex g_mu;
std::map<std::string, std::shared_ptr<Evaluator>> g_evaluators;

// The factory of a player type with no keys of its own: a P from the context's seed.
template <class P>
tour::PlayerFactory seeded_player() {
  return [](ConfigReader&, const tour::PlayerContext& c) { return std::make_unique<P>(c.seed); };
}

// "a, b, c": the keys `read` reads, run on an empty map (the parser's own list, for the
// descriptions `tournament --list-types` prints).
template <class Read>
std::string keys_read_by(Read read) {
  ConfigReader r(YAML::Node(), "<keys>");
  read(r);
  std::string out;
  for (const std::string& k : r.keys_read()) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// The `uct` player type: its own keys are UctPlayer::Options.
UctPlayer::Options read_uct_options(ConfigReader& r) {
  UctPlayer::Options o;
  r.read(field("default_visits", o.default_visits), field("exploration", o.exploration),
         field("max_children", o.max_children), field("max_nodes", o.max_nodes));
  return o;
}
std::unique_ptr<Player> make_uct_player(ConfigReader& r, const tour::PlayerContext& c) {
  return std::make_unique<UctPlayer>(read_uct_options(r), c.seed);
}

// The leaf evaluation of an `alphabeta` player: eval: hand (search/leaf_eval.h; nullptr) or
// nnue, the small value net of the file value_net (valuenet/value_net_eval.h; trained by `papersoccer
// train-value`), or noise, a random evaluation of range noise_range seeded by the game's seed.
std::unique_ptr<LeafEvaluator> read_leaf_evaluator(ConfigReader& r, const tour::PlayerContext& c) {
  LeafEvalSpec spec;
  r.read(field("eval", spec.eval), field("noise_range", spec.noise_range), field("value_net", spec.value_net),
         field("eval_noise", spec.eval_noise));
  if (spec.eval != "noise" && r.has("noise_range"))
    r.fail_key("noise_range", "is only read with eval: noise");
  if (spec.eval == "nnue" && spec.value_net.empty()) r.require<std::string>("value_net");  // "missing key"
  try {
    std::unique_ptr<LeafEvaluator> ev = make_leaf_evaluator(spec, c.seed);
    // A value net for other rules is refused with the config's line, not at every game's start.
    if (spec.eval == "nnue" && c.pitch) check_value_net_rules(spec.value_net, *c.pitch, c.variant);
    return ev;
  } catch (const LeafEvalError& e) {
    r.fail_key(e.field(), e.what());
  } catch (const std::invalid_argument& e) {
    r.fail_key("value_net", e.what());
  }
}

// The `alphabeta` player type: AlphaBetaPlayer::Options, then its leaf evaluation.
AlphaBetaPlayer::Options read_alphabeta_options(ConfigReader& r) {
  AlphaBetaPlayer::Options o;
  r.read(field("default_time_ms", o.default_time_ms), field("max_depth", o.max_depth),
         field("tt_mb", o.tt_mb), field("pvs", o.pvs), field("lmr", o.lmr), field("lmr_first", o.lmr_first),
         field("lmr_min_depth", o.lmr_min_depth), field("lmr_divisor", o.lmr_divisor),
         field("soft_stop", o.soft_stop));
  // The player's own checks, said with the key and its line.
  try {
    AlphaBetaPlayer::check_options(o);
  } catch (const AlphaBetaPlayer::OptionError& e) {
    r.fail_key(e.field(), e.why());
  }
  return o;
}
std::unique_ptr<Player> make_alphabeta_player(ConfigReader& r, const tour::PlayerContext& c) {
  const AlphaBetaPlayer::Options o = read_alphabeta_options(r);
  std::unique_ptr<LeafEvaluator> ev = read_leaf_evaluator(r, c);
  return std::make_unique<AlphaBetaPlayer>(o, std::move(ev), c.seed);
}

}  // namespace

std::shared_ptr<Evaluator> shared_net_evaluator(const std::string& checkpoint,
                                                const nn::ServiceOptions& options) {
  // Every option is part of the key: a player asking for other workers or torch threads gets
  // its own service rather than silently the first one's.
  const std::string key = checkpoint + "@" + options.device + "/" + std::to_string(options.max_batch) + "/" +
                          std::to_string(options.batch_timeout_us) + "/" + std::to_string(options.workers) +
                          "/" + std::to_string(options.torch_threads) + "/" +
                          std::to_string(options.cache_entries);
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_evaluators.find(key);
  if (it != g_evaluators.end()) return it->second;
  std::shared_ptr<Evaluator> e(nn::make_net_evaluator(checkpoint, options).release());
  g_evaluators[key] = e;
  return e;
}

std::unique_ptr<Player> make_net_player(const std::string& checkpoint, const nn::ServiceOptions& service,
                                        const SearchParams& search, uint64_t seed, const std::string& name) {
  return std::make_unique<NetMctsPlayer>(shared_net_evaluator(checkpoint, service), search, seed, name);
}

namespace {

// The `mcts` type's keys of its network besides checkpoint and search: the service's, the
// diagnostics and search_stats (the `bot` type reads them too).
void read_network_keys(ConfigReader& r, MctsPlayerOptions& o) {
  o.service = nn::parse_service_options(r);
  r.read(field("uniform_priors", o.ablation.uniform_priors), field("zero_value", o.ablation.zero_value),
         field("search_stats", o.search_stats));
}

// A checkpoint that is not there, named with the player and the config line that gave it.
void check_checkpoint_exists(const ConfigReader& r, const std::string& checkpoint, const std::string& name) {
  std::error_code ec;
  if (!std::filesystem::exists(checkpoint, ec))
    r.fail_key("checkpoint", "player '" + name + "': the checkpoint file " + checkpoint + " does not exist");
}

// The network of a player's checkpoint (checked to exist first: check_checkpoint_exists), loaded
// once per process: a file that cannot be loaded (a value net, a corrupt file) is named with the
// player and the config line that gave it.
std::shared_ptr<Evaluator> player_net_evaluator(const ConfigReader& r, const MctsPlayerOptions& o,
                                                const std::string& name) {
  try {
    return shared_net_evaluator(o.checkpoint, o.service);
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    r.fail_key("checkpoint", "player '" + name + "': cannot load its network: " + e.what());
  }
}

}  // namespace

MctsPlayerOptions read_mcts_player_options(ConfigReader& r) {
  MctsPlayerOptions o;
  o.checkpoint = r.require<std::string>("checkpoint");
  read_network_keys(r, o);
  ConfigReader sr = r.child("search");
  o.search = parse_search_params(sr);
  return o;
}

std::vector<std::string> mcts_player_keys() {
  ConfigReader r(YAML::Load("{checkpoint: x}"), "<mcts keys>");
  read_mcts_player_options(r);
  ConfigReader sr(YAML::Node(), "<mcts keys>", "search");
  parse_search_params(sr);  // the reader read_mcts_player_options runs on the search map
  std::vector<std::string> keys;
  for (const std::string& k : r.keys_read())
    if (k != "search") keys.push_back(k);
  for (const std::string& k : sr.keys_read()) keys.push_back("search." + k);
  return keys;
}

void clear_net_evaluators() {
  std::lock_guard<std::mutex> lock(g_mu);
  g_evaluators.clear();
  clear_shared_value_nets();
}

namespace {

// The `mcts` player type: checkpoint, the service's keys, a search: map, and the diagnostics
// uniform_priors and zero_value (search/mcts_player.h: Ablation; default false), and
// search_stats (default false: true writes each game's visits, evaluations and time per search
// to stderr, search/mcts_player.h: SearchTotals). A checkpoint that is not there or cannot be
// loaded is named with the player and the config line that gave it.
std::unique_ptr<Player> make_mcts_player(ConfigReader& r, const tour::PlayerContext& c) {
  const MctsPlayerOptions o = read_mcts_player_options(r);
  const std::string name = c.name.empty() ? "mcts" : c.name;
  check_checkpoint_exists(r, o.checkpoint, name);
  // The alpha-beta endgame's value net: a file that cannot be read, or one for other rules, is
  // named with its key and line here (it failed every game's new_game).
  if (o.search.endgame_from_turn >= 0 && !o.search.endgame_value_net.empty()) try {
      if (c.pitch) check_value_net_rules(o.search.endgame_value_net, *c.pitch, c.variant);
      else (void)shared_value_net(o.search.endgame_value_net);
    } catch (const std::exception& e) {
      r.child("search").fail_key("endgame_value_net", e.what());
    }
  std::shared_ptr<Evaluator> net = player_net_evaluator(r, o, name);
  return std::make_unique<NetMctsPlayer>(std::move(net), o.search, c.seed, name, o.ablation, o.search_stats);
}

// The keys of the `bot` type's network: read_network_keys' and search.
std::vector<std::string> bot_network_keys() {
  ConfigReader r(YAML::Node(), "<bot keys>");
  MctsPlayerOptions o;
  read_network_keys(r, o);
  std::vector<std::string> keys = r.keys_read();
  keys.push_back("search");
  return keys;
}

// The `bot` player type: the shipped bot of the games' rules (search/bot_player.h), made by
// make_bot_player. value_net: alpha-beta's evaluation as --value-net names it (a .vnet file,
// none, hand; default: the shipped net of the rules, else the random evaluation). checkpoint: a
// network whose PUCT search answers the turns given visits, with the `mcts` type's other keys
// (the service's, the diagnostics, search_stats, and a search: map read over the bot's search);
// without it alpha-beta answers every turn (a visit budget is its nodes) and those keys are
// refused. `play`'s mcts opponent and `ladder`'s model and previous bot are of this type.
std::unique_ptr<Player> make_bot_type_player(ConfigReader& r, const tour::PlayerContext& c) {
  const std::string name = c.name.empty() ? "bot" : c.name;
  BotSpec spec;
  spec.pitch = c.pitch ? c.pitch : &Pitch::standard();
  spec.variant = c.variant;
  spec.seed = c.seed;
  spec.name = name;
  r.read(field("value_net", spec.value_net));
  if (r.has("value_net") && spec.value_net.empty())
    r.fail_key("value_net", "an empty name: give a .vnet file, none or hand");
  std::optional<ConfigReader> search;
  if (r.has("checkpoint")) {
    MctsPlayerOptions o;
    o.checkpoint = r.require<std::string>("checkpoint");
    read_network_keys(r, o);
    check_checkpoint_exists(r, o.checkpoint, name);
    spec.network = player_net_evaluator(r, o, name);
    search.emplace(r.child("search"));
    spec.search = &*search;
    spec.ablation = o.ablation;
    spec.search_stats = o.search_stats;
  } else {
    for (const std::string& key : bot_network_keys())
      if (r.has(key))
        r.fail_key(key,
                   "is read with checkpoint (the network's) only: without it alpha-beta plays every turn");
  }
  try {
    return make_bot_player(spec).player;
  } catch (const BotValueNetError& e) {
    using By = BotValueNetError::NamedBy;
    if (e.named_by() == By::kCaller) r.fail_key("value_net", e.what());
    if (e.named_by() == By::kSearchMap) throw ConfigError(e.where() + ": " + e.what());  // its key and line
    throw ConfigError(r.source() + ": player '" + name + "': " + e.where() + ": " + e.what());
  }
}

// "keys: a, b, c, search: {x, y}" of the `mcts` type's description.
std::string mcts_keys_text() {
  std::string top, search;
  for (const std::string& k : mcts_player_keys()) {
    const bool sub = k.rfind("search.", 0) == 0;
    std::string& list = sub ? search : top;
    list += (list.empty() ? "" : ", ") + (sub ? k.substr(7) : k);
  }
  return "keys: " + top + ", search: {" + search + "}";
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
    tour::register_player_type(
        "uct", make_uct_player,
        "pure MCTS with random rollouts (UCT) (keys: " + keys_read_by(read_uct_options) + ")");
    tour::register_player_type(
        "alphabeta", make_alphabeta_player,
        "iterative-deepening alpha-beta over complete turns with a transposition table and "
        "the hand evaluation (goal distance, mobility, bounce points), with eval: nnue a small "
        "value net (value_net: FILE), or with eval: noise "
        "a random evaluation of range noise_range; eval_noise: R adds one of range R to hand or nnue "
        "(keys: " +
            keys_read_by(read_alphabeta_options) + ", eval, value_net, noise_range, eval_noise)");
    tour::register_player_type(
        "bot", make_bot_type_player,
        "the shipped bot: alpha-beta over complete turns on every timed turn with the small value net "
        "(keys: value_net, a .vnet file, none or hand; default: the shipped models/<pitch>-<variant>.vnet, "
        "else the random evaluation); with checkpoint, the network's PUCT search answers turns given "
        "visits (keys: the mcts type's; its search: map is read over the bot's search), without it "
        "alpha-beta answers every turn, a visit budget read as nodes");
    tour::register_player_type(
        "mcts", make_mcts_player,
        "PUCT search guided by a network checkpoint (" + mcts_keys_text() + "; checkpoint is required)");
  });
}

}  // namespace ps
