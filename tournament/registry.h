// A registry of player types, so tournaments, `play` and the training loop create players by a
// type name from a YAML map without depending on how they are built (search/, nn/ register
// their own types: "random", "greedy", "uct", "mcts", ...). This library registers "external"
// (an engine subprocess speaking the CodinGame protocol, see external_engine.h).
//
// Registering a type (e.g. once at program start, before any tournament runs):
//
//   ps::tour::register_player_type("random",
//       [](ps::ConfigReader& opts, const ps::tour::PlayerContext& ctx) {
//         return std::make_unique<RandomPlayer>(ctx.seed, opts.get<double>("temperature", 1.0));
//       }, "uniformly random distinct turn");
//
// The factory reads its own keys from `opts` (strict: after it returns, any key of the player's
// map it did not read is an error naming the key and the line). The keys "name", "type",
// "time_ms" and "visits" belong to the tournament and are already marked as read.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/config.h"
#include "engine/pitch.h"
#include "search/player.h"

namespace ps::tour {

/// What a factory may want besides its options.
struct PlayerContext {
  const Pitch* pitch = nullptr;        ///< pitch of the games this player will play
  Variant variant = Variant::kStandard;
  uint64_t seed = 0;                   ///< distinct per game and seat; use it for any randomness
  std::string name;                    ///< display name the tournament gives the player
};

/// Builds a player from its options. Throw ConfigError (or std::exception) for bad options.
using PlayerFactory =
    std::function<std::unique_ptr<Player>(ConfigReader& options, const PlayerContext& context)>;

/// Registers a player type. Thread-safe. Throws std::invalid_argument when the type name is
/// empty or already registered.
void register_player_type(const std::string& type, PlayerFactory factory,
                          const std::string& description = "");
/// True when `type` is registered (the built-in "external" always is).
bool has_player_type(const std::string& type);
/// Registered type names with their descriptions, sorted by name.
std::vector<std::pair<std::string, std::string>> player_types();

/// Creates a player of a registered type. `options` is the player's YAML map (may be null),
/// read strictly: unknown keys throw ConfigError "<source>: <where>.<key> (line N): unknown key".
/// Throws ConfigError when the type is not registered (naming the known types). Thread-safe
/// (factory calls are serialised, since YAML nodes are not safe to read concurrently).
std::unique_ptr<Player> create_player(const std::string& type, const YAML::Node& options,
                                      const PlayerContext& context,
                                      const std::string& source = "<code>",
                                      const std::string& where = "player");

}  // namespace ps::tour
