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
// From a config file: `papersoccer tournament CONFIG` (load_tournament_config).
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
  /// Games between each pair that meets; even, half with each colour. Game k of a pairing uses
  /// opening (k / 2) mod openings, with colours swapped between k and k + 1.
  int games_per_pairing = 2;
  int openings = 1;          ///< number of distinct openings (generate_openings)
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
};

/// One finished game.
struct GameResult {
  int index = 0;             ///< position in the schedule (0-based)
  int seat[2] = {0, 0};      ///< player index of player 0 (north attacker, first) and player 1
  int opening = -1;          ///< opening index, -1 = start position (no opening)
  int winner_seat = 0;       ///< 0 or 1
  int winner = 0, loser = 0; ///< player indices
  /// "goal", "blocked" (by the rules), or a forfeit: "illegal turn", "incomplete turn",
  /// "garbage output", "time forfeit", "engine crash", "engine start failure", "player error".
  std::string termination;
  std::string detail;        ///< forfeit reason in words ("" for goal/blocked)
  std::string record;        ///< record notation of the game, opening included
  std::string pgn;           ///< the game in PGN (write_pgn), with tags
  int turns = 0;             ///< turns played, opening included
  int64_t max_turn_ms[2] = {0, 0};  ///< longest answer of each seat, ms
  double seconds = 0;        ///< wall time of the game
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

/// Plays one game between two players (seat 0 moves first) from the opening's turns, with
/// each seat's per-turn budget. The result's seat/opening/index fields are left for the caller;
/// winner/loser are seats (0/1) here. A player's exception or illegal answer loses the game.
GameResult play_game(Player& player0, Player& player1, const Pitch& pitch, Variant variant,
                     const std::vector<std::string>& opening, const TurnBudget& budget0,
                     const TurnBudget& budget1, const std::map<std::string, std::string>& pgn_tags = {});

/// Ratings and cross-table of a list of games between num_players players.
RatingResult rate_games(int num_players, const std::vector<GameResult>& games, int anchor,
                        double prior_draws = -1);

/// A tournament config file: top-level keys of TournamentSpec (pitch "8x10", goal, variant,
/// format, gauntlet_size, games_per_pairing, openings, opening_turns, opening_balance_rollouts,
/// seed, concurrency, time_ms, visits, anchor, prior_draws, out_dir, name) and a list
/// `players`, each a map with name, type, optional time_ms / visits and the type's own keys.
/// See configs/tournament.yaml. Throws ConfigError naming the file, key and line.
struct TournamentConfig {
  TournamentSpec spec;
  std::vector<PlayerSpec> players;
};
TournamentConfig load_tournament_config(const std::string& path);
TournamentConfig parse_tournament_config(ConfigReader& reader);

/// The readable summary: ratings table (rank, name, Elo, 95% interval, games, wins, score),
/// the cross-table (wins/games of the row player against the column player), termination
/// counts and notes.
std::string format_results(const TournamentResult& result);
/// results.json, ratings.csv, crosstable.csv and games.csv in dir, each written atomically.
/// Throws std::runtime_error naming the file on failure.
void write_results(const TournamentResult& result, const std::string& dir);

}  // namespace ps::tour
