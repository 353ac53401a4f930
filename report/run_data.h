// Reading a training run directory (the layout the training loop writes) into plain structs.
// Tolerant by design: missing files leave their part empty, unknown JSON fields are ignored, and
// lines or files that cannot be read are skipped with a note that the report shows.
//
//   RUNDIR/config.yaml                 run: {name, pitch: "8x10" or "WxLgG", variant, generations}
//   RUNDIR/state.json                  {generation, best, started, seconds}
//   RUNDIR/logs/train.jsonl            one object per logged training step
//   RUNDIR/logs/selfplay.jsonl         self-play totals per session, a line per chunk of games
//                                      and one at the session's end (summed per generation)
//   RUNDIR/logs/generations.jsonl      one object per generation's evaluation (Elo, scores)
//   RUNDIR/logs/verdict.jsonl          the best network against generation 0 after the last
//                                      generation (loop/phases.h play_verdict)
//   RUNDIR/logs/config.jsonl          config keys changed on resuming (loop/run.h)
//   RUNDIR/ratings.json                {anchor, players: [...], crosstable: {names, wins}}
//   RUNDIR/eval/gen-NNNN/games.tsv     W L G variant record winner reason kicks
//   RUNDIR/eval/gen-NNNN/games.csv     header line; columns player0, player1, winner, termination, turns
//   RUNDIR/data/genNNNN-CCCCCC.tsv     self-play games of net gen-NNNN, same TSV form
//   RUNDIR/data/genNNNN-CCCCCC.psd     their training data: games and positions are counted here
//   RUNDIR/checkpoints/*.ckpt          listed only
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/record.h"

namespace ps::report {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

/// A run directory that cannot be reported on at all (missing, not a directory, no run files).
class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunConfig {
  bool present = false;
  std::string name, pitch, variant;  ///< pitch as written ("8x10", "10x14g4")
  int width = 0, length = 0, goal = 0;  ///< parsed from pitch (the loop's parser); 0: not given
  int generations = 0;               ///< planned generations; 0: not given
};

struct RunState {
  bool present = false;
  int generation = -1;  ///< generations done; -1: not given
  std::string best, started;
  double seconds = kMissing;  ///< wall time so far
};

/// One line of logs/train.jsonl. Missing values are NaN.
struct TrainPoint {
  double step = kMissing;
  double policy_loss = kMissing, value_loss = kMissing, moves_left_loss = kMissing;
  double policy_accuracy = kMissing, value_accuracy = kMissing;
  double lr = kMissing, samples_per_s = kMissing, window = kMissing;
  std::string checkpoint;
};

/// One generation's self-play: logs/selfplay.jsonl summed over sessions; games, positions and
/// wins counted from the data chunks when there are any.
struct SelfplayGeneration {
  int generation = -1;
  std::string network;
  double games = kMissing, samples = kMissing, full_samples = kMissing;
  double mean_game_turns = kMissing, mean_root_turns = kMissing;
  double games_per_s = kMissing, samples_per_s = kMissing, seconds = kMissing;
  int wins[2] = {-1, -1};  ///< games won by player 0 / player 1; -1: not given
};

struct ScoreLine {
  std::string opponent;
  int wins = 0, games = 0;
};

/// One line of logs/generations.jsonl.
struct GenerationResult {
  int generation = -1;
  std::string network, best;
  double elo = kMissing, ci95 = kMissing;
  std::optional<bool> promoted;
  std::vector<ScoreLine> scores;  ///< in the file's order
};

/// One line of logs/reference.jsonl: a generation's scores on the reference games
/// (selfplay/reference.h).
struct ReferencePoint {
  int generation = -1;
  double value_mse = kMissing, early_value_mse = kMissing, value_sign_accuracy = kMissing,
         policy_top1 = kMissing;
  int64_t positions = -1;
};

/// One line of logs/verdict.jsonl: the run's verdict after its last generation, its best
/// network against generation 0 (no games when the best is generation 0).
struct Verdict {
  int after_generation = -1;
  std::string network, opponent;
  int wins = 0, games = 0;
};

struct PlayerRating {
  std::string name;
  double elo = kMissing, ci95 = kMissing;
  int games = -1, wins = -1;
};

struct Ratings {
  bool present = false;
  std::string anchor;
  std::vector<PlayerRating> players;
  std::vector<std::string> cross_names;
  std::vector<std::vector<int>> cross_wins;  ///< [row][col]: games row won against col
};

/// A finished game from a TSV file, replayed with the engine.
struct RecordedGame {
  std::string source;             ///< "eval/gen-0003/games.tsv line 2"
  std::string player0, player1;   ///< empty when unknown
  std::string termination;        ///< from games.csv when known (e.g. "goal", "resign")
  std::optional<Game> game;       ///< the replayed game
  int winner = -1;                ///< replayed winner, or the TSV's winner column if unfinished
  std::string reason;             ///< "goal", "blocked", or the TSV's reason column
  int turns = 0;
};

struct EvalGames {
  int generation = -1;
  std::string dir;                 ///< "eval/gen-0003"
  std::vector<RecordedGame> games; ///< the first few games of the directory
  int total_games = 0;             ///< lines with a game in games.tsv
};

struct SelfplayGames {
  int generation = -1;  ///< the number in the file name (the net that played)
  std::string network;  ///< "gen-0000"
  int files = 0;        ///< data files of this network
  std::optional<RecordedGame> sample;  ///< the first readable game
};

/// One resume with a changed config (a line of logs/config.jsonl, written by the loop).
struct ConfigChangeLine {
  std::string time;
  int after_generation = -1;
  std::vector<std::array<std::string, 3>> changes;  ///< key, old value, new value
};

struct FileEntry {
  std::string name;
  uintmax_t bytes = 0;
};

struct RunData {
  std::string dir;
  RunConfig config;
  RunState state;
  std::vector<TrainPoint> train;                 ///< sorted by step, one entry per step
  std::vector<SelfplayGeneration> selfplay;      ///< sorted by generation
  std::vector<GenerationResult> generations;     ///< sorted by generation
  std::vector<ReferencePoint> reference;         ///< sorted by generation (gen 0 included)
  std::optional<Verdict> verdict;                ///< the log's last line; none before the end
  Ratings ratings;
  std::vector<EvalGames> eval;                   ///< sorted by generation
  std::vector<SelfplayGames> selfplay_games;     ///< sorted by generation
  std::vector<FileEntry> checkpoints;
  std::vector<ConfigChangeLine> config_changes;  ///< in the log's order
  std::vector<std::string> notes;                ///< problems met while reading, for the page
  /// Data chunks (data/*.psd) that could not be read, and games of readable chunks that are not
  /// legal games: left out of the self-play counts, each with a line in notes.
  int chunks_skipped = 0, games_skipped = 0;
  std::vector<std::string> missing;              ///< expected files that do not exist (yet)

  /// Generations done: state.json's, else the largest generation seen in the logs; 0 if none.
  int generations_done() const;
};

struct LoadOptions {
  int eval_games_per_generation = 3;  ///< games kept (replayed) per eval directory
};

/// Reads the run directory. Throws ReportError when run_dir does not exist, is not a directory,
/// cannot be listed, or holds none of config.yaml, state.json, logs/, ratings.json, eval/, data/.
RunData load_run(const std::string& run_dir, const LoadOptions& options = {});

/// The files of a run directory that hold games, relative to it: every eval/gen-NNNN/games.tsv
/// (evaluation games), then every data/genNNNN-*.tsv (self-play games), each sorted by name.
/// Empty when there are none; throws ReportError as load_run does for a directory that is not a run.
std::vector<std::string> run_game_files(const std::string& run_dir);

/// The games of one of those files (`rel` must be one of run_game_files' names; anything else
/// throws ReportError): games offset .. offset + limit - 1 in file order, replayed, with the
/// players' names (games.csv for evaluation games, the network for self-play games). *total
/// receives the number of games in the file; lines that cannot be read are skipped with a note
/// in *notes.
std::vector<RecordedGame> read_run_games(const std::string& run_dir, const std::string& rel,
                                         int offset, int limit, int* total,
                                         std::vector<std::string>* notes);

/// "gen-0003" -> 3, "gen0003" -> 3; -1 for other names.
int generation_of(const std::string& name);


/// Splits one CSV line (RFC 4180 quoting: "a,b" and "" inside quotes).
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace ps::report
