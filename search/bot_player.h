// The shipped bot's player, made in one place for every command that plays it: `bot` (with or
// without a network), `play`'s default and `mcts` opponents, `serve`'s bot and mcts opponents,
// `ladder`'s model and previous bot, and the registry's `bot` type (tournaments;
// loop/players.h), which `play`, `ladder` and tournaments create it through.
//
// The bot answers every timed turn with alpha-beta over complete turns (search/alphabeta.h)
// evaluating with the small value net (valuenet/value_net_eval.h). Its evaluation follows one rule on
// every command (bot_eval): the one `--value-net` names, else the shipped value net of the
// games' rules (models/<pitch>-<variant>.vnet), else the random evaluation. Given a network, the
// player is an MctsPlayer (search/mcts_player.h) whose PUCT search answers the turns given
// visits, and alpha-beta the timed ones (bot_search_params); without one it is the AlphaBetaPlayer
// alone, which reads a visit budget as nodes and needs no LibTorch (the `papersoccer` front
// makes it so).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <yaml-cpp/yaml.h>

#include "engine/pitch.h"
#include "nn/evaluator.h"
#include "search/leaf_evals.h"
#include "search/mcts_player.h"
#include "search/params.h"
#include "search/player.h"

namespace ps {

class ConfigReader;

/// The shipped model of a pitch and variant, models/<WxL>-<variant><extension> (e.g.
/// models/8x10-standard.model, or .vnet for the bot's small value net), looked up in the
/// working directory, then beside the executable's folder (build/../models); "" when there is
/// none. The default model of bot, play, analyse and ladder, and the default value net of the
/// bot (bot_eval). Throws std::runtime_error naming the path when a candidate exists but is not
/// a regular file (a folder, a broken link).
std::string default_model_path(const Pitch& pitch, Variant variant, const std::string& extension = ".model");

/// The bot's evaluation on rules for which no value net ships and none is given: the random
/// evaluation (`none`, eval noise). Measured stronger than the hand evaluation (67/100 against
/// it, docs/experiments/hand-vs-random-evaluation.md), and the network player's own default
/// (SearchParams::endgame_eval).
inline constexpr const char* kBotFallbackValueNet = "none";

/// The bot's alpha-beta evaluation and where it came from.
struct BotEval {
  enum class Source {
    kGiven,    ///< named by the caller (--value-net, a player's value_net key)
    kShipped,  ///< the shipped value net of the rules
    kFallback  ///< none given or shipped: kBotFallbackValueNet
  };
  LeafEvalSpec spec;
  Source source = Source::kFallback;
};

/// The evaluation of the bot's alpha-beta on these rules, the one rule of every command:
/// `value_net` as `--value-net` names it (leaf_eval_from_name: a .vnet file, none: the random
/// evaluation, hand: the hand evaluation), else the shipped value net of the rules (`shipped`:
/// as the caller found it, "" when none ships; nullopt: default_model_path(pitch, variant,
/// ".vnet")), else kBotFallbackValueNet. No file is read here (check_bot_eval reads it).
BotEval bot_eval(const std::string& value_net, const Pitch& pitch, Variant variant,
                 const std::optional<std::string>& shipped = std::nullopt);

/// A value net the bot cannot play: what() is "value net FILE: ..." (it cannot be read, is not a
/// value net, or was trained for other rules); named_by() says who named the file and where()
/// how a message names it: "" (kCaller, BotSpec::value_net: a command names its own flag), "the
/// shipped value net" (kShipped), or "<source>: <path>.endgame_value_net (line N)" (kSearchMap).
class BotValueNetError : public std::invalid_argument {
 public:
  enum class NamedBy { kCaller, kShipped, kSearchMap };
  BotValueNetError(const std::string& what, NamedBy named_by, std::string where)
      : std::invalid_argument(what), named_by_(named_by), where_(std::move(where)) {}
  NamedBy named_by() const { return named_by_; }
  const std::string& where() const { return where_; }

 private:
  NamedBy named_by_;
  std::string where_;
};

/// Reads the value net of `eval` (when it has one) and checks it against the rules; throws
/// BotValueNetError otherwise.
void check_bot_eval(const BotEval& eval, const Pitch& pitch, Variant variant);

/// Whether a search map turns the alpha-beta endgame off: its endgame_from_turn is an integer
/// below 0 (-1). Not a map, no such key, or not an integer as the config reader reads one (core/
/// config.h: "-01" is refused): false (the search's parser names a bad value).
bool endgame_turned_off(const YAML::Node& search);

/// The network player's search: the most visited turn (temperature 0, no root noise) and
/// alpha-beta evaluating with `eval` on every timed turn without visits (endgame_from_turn
/// MctsPlayer::kPlayEndgameFromTurn); then `search`, a search map (`bot --config`'s `search:`, a
/// player's `search:` key; null: none), read over these by parse_search_params (its keys win;
/// its errors name file, key and line). A map that chooses the evaluation (endgame_eval or
/// endgame_value_net; endgame_value_net alone means nnue) keeps its own, `eval`'s noise included;
/// one that turns the endgame off (endgame_turned_off) gets no evaluation.
SearchParams bot_search_params(const LeafEvalSpec& eval, ConfigReader* search = nullptr);

/// What make_bot_player makes.
struct BotSpec {
  const Pitch* pitch = nullptr;  ///< the games' rules (required)
  Variant variant = Variant::kStandard;
  /// Alpha-beta's evaluation as `--value-net` names it; "": the shipped net of the rules, else
  /// the random evaluation (bot_eval).
  std::string value_net;
  /// The shipped value net of the rules as the caller found it ("" when none ships); nullopt:
  /// looked up (default_model_path).
  std::optional<std::string> shipped_value_net;
  /// The network whose PUCT search answers the turns given visits (and the turns before the
  /// search map's endgame_from_turn); null: none, and alpha-beta answers every turn.
  std::shared_ptr<Evaluator> network;
  /// With a network: its search map (bot_search_params), read during make_bot_player only;
  /// null: the bot's search as it is.
  ConfigReader* search = nullptr;
  Ablation ablation;          ///< with a network: the `mcts` type's diagnostics
  bool search_stats = false;  ///< with a network: each game's search totals on stderr (NetMctsPlayer)
  uint64_t seed = 1;
  std::string name;  ///< the player's name; "": "mcts(<network>)" with a network, else "alphabeta"
};

/// The bot make_bot_player made, with what its start lines and headers name.
struct BotPlayer {
  std::unique_ptr<Player> player;
  BotEval eval;         ///< bot_eval of the spec: alpha-beta's evaluation unless `search` chose another
  SearchParams search;  ///< the network player's search (with a network; else the defaults)
};

/// The shipped bot of spec: an MctsPlayer over spec.network with bot_search_params, or without
/// a network an AlphaBetaPlayer (default options) evaluating with bot_eval's evaluation. A value
/// net it plays is read and checked against the rules first: BotValueNetError naming who named
/// it. Throws ConfigError for a bad search map, and std::invalid_argument for a spec without a
/// pitch, or with a search map but no network.
BotPlayer make_bot_player(const BotSpec& spec);

}  // namespace ps
