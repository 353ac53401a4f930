// Tournament config files (`papersoccer tournament CONFIG`; example configs/tournament.yaml).
#pragma once

#include <string>
#include <vector>

#include "core/config.h"
#include "tournament/tournament.h"

namespace ps::tour {

/// A tournament config file: top-level keys of TournamentSpec (pitch "8x10", goal, variant,
/// format, gauntlet_size, games_per_pairing, openings, opening_turns, opening_balance_rollouts,
/// seed, concurrency, time_ms, visits, anchor, prior_draws, out_dir, name) and a list
/// `players`, each a map with name, type, optional time_ms / visits and the type's own keys.
/// See configs/tournament.yaml. Throws ConfigError naming the file, key and line.
struct TournamentConfig {
  TournamentSpec spec;
  std::vector<PlayerSpec> players;
  void validate() const { spec.validate(); }  // the spec's keys are the file's top-level keys
};
TournamentConfig load_tournament_config(const std::string& path);
TournamentConfig parse_tournament_config(ConfigReader& reader);

}  // namespace ps::tour
