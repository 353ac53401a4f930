// Player types for tournaments, `play`, `bot` and the training loop, registered by name in the
// tournament registry (tournament/registry.h):
//   random   uniformly random distinct turn                          (search/baselines.h)
//   greedy   one-turn heuristic                                      (search/baselines.h)
//   uct      pure MCTS with random rollouts; keys: exploration, max_children, default_visits,
//            max_nodes
//   mcts     PUCT search guided by a network; keys: checkpoint (path, required), device,
//            max_batch, batch_timeout_us, workers, torch_threads, cache_entries (the inference
//            service, nn/service.h), search: {...} (search/params.h), uniform_priors and
//            zero_value (diagnostics, search/mcts_player.h), search_stats (each game's
//            visits, evaluations and depth per search on stderr)
// Networks are loaded once per (checkpoint, service options) and shared by every player that uses them
// (the inference service is thread-safe), so a tournament does not reload a file per game.
#pragma once

#include <memory>
#include <string>

#include "nn/service.h"
#include "search/params.h"
#include "search/player.h"

namespace ps {

/// Registers the types above (idempotent; thread-safe).
void register_builtin_players();

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
