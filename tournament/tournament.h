// Tournaments between players: round robin or gauntlet, balanced openings played twice with
// colours swapped, games in parallel, Bradley-Terry Elo ratings (ratings.h), a cross-table,
// every game saved (PGN and record notation), results as CSV and JSON. External engines are
// refereed like cutechess-cli does for chess: an illegal, incomplete, garbled or late answer
// and a crash lose the game, with the reason recorded.
//
// From code (e.g. the training loop's gating):
//
//   ps::tour::TournamentSpec spec;
//   spec.games_per_pairing = 20; spec.openings = 10; spec.concurrency = 4;
//   spec.budget.visits = 400;
//   std::vector<ps::tour::PlayerSpec> players(2);
//   players[0].name = "net-0042"; players[0].make = [&](const ps::tour::PlayerContext& c) {...};
//   players[1].name = "random";   players[1].type = "random";   // from the registry
//   ps::tour::TournamentResult r = ps::tour::run_tournament(spec, players);
//   double elo = r.ratings.players[0].elo;
//
// From a config file: `papersoccer tournament CONFIG` (tournament_config.h). One game is
// refereed by play_game (referee.h); the summary and the CSV/JSON files are results.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/record.h"
#include "search/player.h"
#include "tournament/ratings.h"
#include "tournament/referee.h"
#include "tournament/registry.h"

namespace ps::tour {

enum class Format { kRoundRobin, kGauntlet };
const char* format_name(Format f);  ///< "round-robin", "gauntlet"
/// Throws std::invalid_argument naming the bad text.
Format parse_format(const std::string& text);

struct PlayerSpec {
  std::string name;     ///< unique display name (defaults to the type)
  std::string type;     ///< registry type ("random", "mcts", "external", ...); unused with make
  YAML::Node options;   ///< the player's YAML map, read by the type's factory (may be null)
  std::optional<int64_t> time_ms;  ///< per-turn time, ms; unset = TournamentSpec::budget
  std::optional<int64_t> visits;   ///< per-turn visits; unset = TournamentSpec::budget
  /// Games of every pairing this player meets (even, >= 2); unset = games_per_pairing. Where
  /// both players of a pairing set it, the smaller. (The loop's last evaluation plays more
  /// games against generation 0 than against the other opponents.)
  std::optional<int> games;
  /// When set, creates the player instead of the registry (type and options are then unused).
  std::function<std::unique_ptr<Player>(const PlayerContext&)> make;
  std::string source = "<code>";  ///< config file, for error messages
  std::string where;              ///< key path in it ("players[2]"), for error messages
};

struct TournamentSpec {
  std::string name = "tournament";  ///< the PGN Event tag
  int width = 8, length = 10, goal = 2;
  Variant variant = Variant::kStandard;
  Format format = Format::kRoundRobin;
  /// Gauntlet: the first gauntlet_size players each play every other player (not each other).
  int gauntlet_size = 1;
  /// Games between each pair that meets; even, half with each colour, at most
  /// kMaxGamesPerPairing. Game k of a pairing uses opening (k / 2) mod openings, with colours
  /// swapped between k and k + 1.
  int games_per_pairing = 2;
  /// Bounds on the schedule, which is held in memory with every game's result: games per
  /// pairing, and games in all (pairings x games_per_pairing; run_tournament throws
  /// std::invalid_argument above it). A million games at 1 s each are 11 days of one core.
  static constexpr int kMaxGamesPerPairing = 1000000;
  static constexpr long long kMaxGames = 1000000;
  /// Games played at once (a thread and its players each): 100,000 took 2.4 GB in 4 s.
  static constexpr int kMaxConcurrency = 1024;
  /// Distinct openings (generate_openings). 0: one per pair of games, (the most games of a
  /// pairing) / 2, so that no game of deterministic players (a network's or alpha-beta's
  /// search at a visit or node budget) repeats another; run_tournament throws, saying so,
  /// when opening_turns does not give that many. A count below it repeats openings.
  int openings = 0;
  int opening_turns = 4;     ///< random turns per opening; 0 = always the start position
  int opening_balance_rollouts = 0;  ///< OpeningOptions::balance_rollouts
  uint64_t seed = 1;         ///< openings and per-game player seeds
  int concurrency = 1;       ///< games played at the same time (threads)
  TurnBudget budget;         ///< default per-turn budget (time ms, visits); -1 = not limited
  /// Player rated 0 Elo: a name; "" = the first player of type "random", else the first player.
  std::string anchor;
  double prior_draws = -1;   ///< RatingOptions::prior_draws (-1 = automatic)
  /// Directory for games.pgn, games.tsv (appended as games end), results.json, ratings.csv,
  /// crosstable.csv, games.csv (written atomically at the end); "" = write nothing.
  std::string out_dir;
  /// With out_dir: the games an earlier call of the same tournament (spec and players) left in
  /// out_dir/games.tsv are kept, reported to the progress callback first, and not played again:
  /// a stopped match goes on where it was (their longest answers are not kept: 0). A line that
  /// does not fit this schedule is an error naming the file and line; a torn last line (a kill
  /// while it was written) is dropped and its game played again.
  bool resume = false;
  /// Throws ps::FieldError (core/field_check.h) naming the first out-of-range field by its
  /// config key.
  void validate() const;
};

/// wins[i][j]: games player i won against player j.
struct CrossTable {
  std::vector<std::vector<int>> wins;
  int games(int i, int j) const { return wins[size_t(i)][size_t(j)] + wins[size_t(j)][size_t(i)]; }
  int total_wins(int i) const;
  int total_games(int i) const;
};

struct TournamentResult {
  TournamentSpec spec;
  std::vector<std::string> players;                 ///< display names, in PlayerSpec order
  std::vector<std::string> types;                   ///< registry types ("" when made by code)
  std::vector<std::vector<std::string>> openings;   ///< the openings' turns
  std::vector<GameResult> games;                    ///< finished games, in schedule order
  int scheduled_games = 0;
  bool cancelled = false;
  CrossTable cross;
  RatingResult ratings;                             ///< anchor = ratings.anchor
  std::vector<std::string> notes;                   ///< things the reader should know
  double seconds = 0;
};

/// Called after every game, from the thread that finished it, one call at a time.
using ProgressFn = std::function<void(const GameResult& game, int done, int total)>;

/// Runs the tournament. Every player is created once up front to check its options (config
/// errors throw ConfigError / std::runtime_error before any game starts), then afresh for every
/// game (so an external engine is one process per game, and randomness comes from
/// PlayerContext::seed). Throws std::invalid_argument for a bad spec (fewer than 2 players,
/// duplicate names, odd games_per_pairing, unknown anchor, ...). When *cancel becomes true,
/// games not yet started are skipped and the result has cancelled = true. Exceptions from
/// creating a player during the run are rethrown after the running games end.
TournamentResult run_tournament(const TournamentSpec& spec, const std::vector<PlayerSpec>& players,
                                const ProgressFn& progress = {},
                                const std::atomic<bool>* cancel = nullptr);

/// Ratings and cross-table of a list of games between num_players players.
RatingResult rate_games(int num_players, const std::vector<GameResult>& games, int anchor,
                        double prior_draws = -1);

}  // namespace ps::tour
