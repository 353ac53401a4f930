// Self-play: many games at once, each searched single-threaded by its own ps::Search, all
// sharing one thread-safe Evaluator (the batched inference service), which is how KataGo and
// lc0 keep the network busy. Finished games go to training data chunks (selfplay/data.h) and
// record files, written atomically, so a killed run loses at most the games in progress.
//
// Config keys (the `selfplay:` map; defaults in brackets):
//   games: 64                games to play per run_selfplay call
//   concurrent_games: 16     games in flight (one thread each), all feeding one evaluator
//   pitches: [8x10]          pitch mix: "WxL" (goal 2) or "WxLgG"; one is drawn per game
//   variants: [standard]     variant mix: standard | single-bounce | no-bounce
//   visits: 100              visits of a full search, at most kMaxTurnVisits
//   cheap_visits: 25         visits of a cheap search (playout cap randomization, KataGo:
//                            cheap searches have no root noise, pick their best turn and are
//                            kept as value-only samples, not policy targets)
//   full_search_prob: 0.25   probability that a turn gets a full search
//   max_turns: 1000          safety cap on turns per game (games always end by the rules)
//   games_per_chunk: 32      games per data chunk file
//   seed: 1
//   resign:                  resignation (off by default)
//     enabled: false
//     threshold: 0.95        resign when the root value is below -threshold ...
//     consecutive: 3         ... for this many consecutive own turns
//     playthrough_fraction: 0.1  share of games that ignore resignation and are played out,
//                            to measure the false-resignation rate (reported in stats)
//   search: {...}            SearchParams (search/params.h); self-play defaults there:
//                            root_noise true, temperature 1 for temperature_turns 10, then 0,
//                            leaf_batch 8 (each search hands the service 8 leaves at a time).
//                            Full and cheap searches of a game share one tree (tree reuse).
//                            proof_fraction must be 0 (the proof step needs timed turns).
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/config.h"
#include "nn/evaluator.h"
#include "search/params.h"
#include "selfplay/data.h"

namespace ps {

/// The most visits of one search of a turn in self-play (selfplay.visits, cheap_visits) and in
/// a run's evaluation games (evaluate.visits).
constexpr int64_t kMaxTurnVisits = 100000;

struct ResignOptions {
  bool enabled = false;
  double threshold = 0.95;
  int consecutive = 3;
  double playthrough_fraction = 0.1;
};

struct SelfplayConfig {
  int64_t games = 64;
  int concurrent_games = 16;
  std::vector<PitchChoice> pitches{PitchChoice{}};
  std::vector<Variant> variants{Variant::kStandard};
  int64_t visits = 100;
  int64_t cheap_visits = 25;
  double full_search_prob = 0.25;
  int max_turns = 1000;
  int games_per_chunk = 32;
  uint64_t seed = 1;
  ResignOptions resign;
  SearchParams search;

  SelfplayConfig();  // sets the self-play search defaults (root noise, temperature)
  /// Throws std::invalid_argument naming the first bad field.
  void validate() const;
};

/// Reads the keys above (finish() is called: unknown keys are errors). Throws ConfigError.
SelfplayConfig parse_selfplay_config(ConfigReader& r);
// PitchChoice and parse_pitch_spec ("8x10", "10x14g4") are in engine/pitch.h.

struct SelfplayStats {
  int64_t games = 0;
  int64_t samples = 0;          ///< positions written (full + cheap)
  int64_t full_samples = 0;     ///< positions with a policy target
  int64_t turns = 0;            ///< turns played
  int64_t kicks = 0;
  int64_t searches = 0;
  int64_t root_turns = 0;       ///< sum over searches of root children generated (PUCT
                                ///< searches; the teacher's alpha-beta leaves it 0)
  int64_t visits = 0;           ///< new simulations over all searches (reused ones excluded)
  int64_t evaluations = 0;      ///< positions the searches sent to the evaluator (cache hits of
                                ///< a caching evaluator included)
  int64_t wins[2] = {0, 0};     ///< games won by player 0 / player 1
  int64_t resigned = 0, playthroughs = 0, false_resignations = 0;
  double seconds = 0;

  /// Adds o's counts (every field but seconds) to these: one game's stats into a run's.
  void add_counts(const SelfplayStats& o);
  double games_per_s() const { return seconds > 0 ? games / seconds : 0; }
  double samples_per_s() const { return seconds > 0 ? samples / seconds : 0; }
  double mean_game_turns() const { return games ? double(turns) / games : 0; }
  double mean_root_turns() const { return searches ? double(root_turns) / searches : 0; }
  double evaluations_per_search() const { return searches ? double(evaluations) / searches : 0; }
  double evaluations_per_visit() const { return visits ? double(evaluations) / visits : 0; }
  /// "games 12 (0.50/s), positions 340 (14.1/s, 300 with policy), 28.3 turns/game, 17.5 root
  /// turns/search, wins p0/p1 7/5" (root turns/search only when root_turns > 0)
  std::string summary() const;
};

/// Called after each finished game (one call at a time): stats so far, target game count.
using SelfplayProgress = std::function<void(const SelfplayStats& stats, int64_t target)>;

/// Plays config.games games (minus those already in out_dir with this file prefix, so an
/// interrupted call resumes) with `evaluator`, writing chunks `<out_dir>/<prefix>-NNNNNN.psd`
/// and their records `<out_dir>/<prefix>-NNNNNN.tsv` (test-vector form: W L G variant record
/// winner reason kicks). network names the net in the data. Stops when *cancel becomes true:
/// with cancel_ends_games (a stop signal) the games in progress end before their next turn's
/// search and are not stored (they are played again on resume); without it (a worker's pause,
/// loop/selfplay_worker.cpp) they are played to their end and stored. Evaluator errors stop all
/// games and are rethrown.
SelfplayStats run_selfplay(const SelfplayConfig& config, Evaluator& evaluator, const std::string& network,
                           const std::string& out_dir, const std::string& prefix,
                           const SelfplayProgress& progress = {}, const std::atomic<bool>* cancel = nullptr,
                           bool cancel_ends_games = true);

/// Plays one game of a run and returns its data; adds its counts to *stats when not null.
/// game_seed: the game's seed (from the run's file prefix and the game's id).
using GamePlayer = std::function<GameData(uint64_t game_seed, SelfplayStats* stats)>;

/// The games of a run, whoever plays them (run_selfplay's network searches, the alphabeta
/// teacher of selfplay/teacher.h): plays `games` games (minus those already in out_dir under
/// prefix, so an interrupted call resumes) on concurrent_games threads, one game per thread
/// at a time, calling play for each; writes the chunks `<out_dir>/<prefix>-NNNNNN.psd` (each
/// rewritten atomically after every game, games_per_chunk games each) and their records
/// `<out_dir>/<prefix>-NNNNNN.tsv` (test-vector form: W L G variant record winner reason kicks).
/// Stops early (between games) when *cancel becomes true; a game that play gives up by throwing
/// GameCancelled is not stored. Any other exception of play stops all games and is rethrown.
/// play is called from several threads at once.
SelfplayStats run_games(int64_t games, int concurrent_games, int games_per_chunk, const std::string& out_dir,
                        const std::string& prefix, const GamePlayer& play,
                        const SelfplayProgress& progress = {}, const std::atomic<bool>* cancel = nullptr);

/// The start of a game's data: its pitch and variant drawn by rng from config's mixes (in
/// that order), and the network's name.
GameData new_game_data(const SelfplayConfig& config, std::mt19937_64& rng, const std::string& network);
/// The end of a game's data: its record, winner (-1: none), reason, and each sample's result
/// (from sample_side[i], the side to move at sample i) and turns left.
void finish_game_data(const Game& game, int winner, const std::vector<int>& sample_side, GameData& data);
/// Adds a finished game to stats (resigner: the side that resigned or would have, -1 for none;
/// playthrough: the game ignored resignation).
void count_game(const GameData& data, const Position& end, int total_turns, int resigner, bool playthrough,
                SelfplayStats& stats);

/// Plays one self-play game (exposed for tests): returns its data (samples with results).
/// Throws GameCancelled before a turn's search once *cancel is true.
GameData play_selfplay_game(const SelfplayConfig& config, Evaluator& evaluator, uint64_t game_id,
                            const std::string& network, SelfplayStats* stats = nullptr,
                            const std::atomic<bool>* cancel = nullptr);

/// A game left unfinished because its run is stopping (SIGINT/SIGTERM): run_games drops it
/// (it is played again when the run resumes) and stops.
struct GameCancelled : std::exception {
  const char* what() const noexcept override { return "game cancelled: the run is stopping"; }
};

/// Games already stored in out_dir under prefix (reads the chunks; unreadable ones are skipped
/// with a warning on stderr).
int64_t count_stored_games(const std::string& out_dir, const std::string& prefix);

}  // namespace ps
