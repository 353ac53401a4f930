// Player types for tournaments, `play`, `bot` and the training loop, registered by name in the
// tournament registry (tournament/registry.h):
//   random   uniformly random distinct turn                          (search/baselines.h)
//   greedy   one-turn heuristic                                      (search/baselines.h)
//   uct      pure MCTS with random rollouts; keys: exploration, max_children, default_visits,
//            max_nodes
//   mcts     PUCT search guided by a network; keys: checkpoint (path, required), device,
//            max_batch, batch_timeout_us, workers, torch_threads, cache_entries (the inference
//            service, nn/service.h), uniform_priors, zero_value (search/mcts_player.h:
//            Ablation), search_stats (each game's visits, evaluations and time per search on
//            stderr) and search: {...} (search/params.h); `tournament --list-types` lists
//            them from mcts_player_keys()
// Networks are loaded once per (checkpoint, service options) and shared by every player that uses them
// (the inference service is thread-safe), so a tournament does not reload a file per game.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/config.h"
#include "nn/service.h"
#include "search/mcts_player.h"
#include "search/params.h"
#include "search/player.h"

namespace ps {

/// Registers the types above (idempotent; thread-safe).
void register_builtin_players();

/// The options of an `mcts` player as its map gives them; nothing is loaded.
struct MctsPlayerOptions {
  std::string checkpoint;
  nn::ServiceOptions service;
  Ablation ablation;
  bool search_stats = false;  ///< each game's visits, evaluations and time per search on stderr
  SearchParams search;
};
/// Reads an `mcts` player's map (the keys of mcts_player_keys()). Throws ConfigError naming the
/// file, the key path and the line (a missing checkpoint key; a wrong type or value).
MctsPlayerOptions read_mcts_player_options(ConfigReader& r);
/// Every key read_mcts_player_options() knows, keys of the search map as "search.KEY": taken by
/// running its readers on an empty map, so the list is the parser's own.
std::vector<std::string> mcts_player_keys();

/// The shared inference service of a checkpoint (loaded on first use). Throws CheckpointError
/// naming the file.
std::shared_ptr<Evaluator> shared_net_evaluator(const std::string& checkpoint,
                                                const nn::ServiceOptions& options);
/// A PUCT player over a shared network service (the `mcts` type, built from code).
std::unique_ptr<Player> make_net_player(const std::string& checkpoint,
                                        const nn::ServiceOptions& service,
                                        const SearchParams& search, uint64_t seed,
                                        const std::string& name);

/// Drops every cached service (e.g. between generations, to free memory).
void clear_net_evaluators();

}  // namespace ps
