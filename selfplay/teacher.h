// Teacher self-play: games of the `alphabeta` player (search/alphabeta.h, hand evaluation by default)
// against itself, written as training data in the chunk format of selfplay/data.h, so that
// `train` reads them unchanged. It is the supervised bootstrap of AlphaGo's SL stage
// and of Leela's first nets: a net learns the policy and the value of a stronger searcher's
// games before it learns from its own, whose results are coin flips until the last ~15 turns
// (docs/STRENGTH.md). The value target is the teacher's search value, as in Descent's
// search-value target (train.loss.search_value_weight; Cohen-Solal 2020).
//
// Per turn start of a game the sample holds:
//   policy      the teacher's chosen turn with one visit (a one-hot target: alpha-beta proves
//               only bounds for the other root turns, so their scores are no distribution);
//   root_value  the teacher's root score for the side to move, in [-1, 1]: a proven win +1, a
//               proven loss -1, else tanh(score / value_scale) (score in the hand evaluation's
//               units, from the deepest completed iteration);
//   result, turns_left   as in self-play (selfplay/selfplay.h).
// Turn starts with a single legal turn, and those where the node budget ended before the
// first iteration did, are not sampled (nothing to learn for the policy, no search value).
//
// Diversity: the first opening_turns turns of a game are random turns, and each of the next
// turns up to random_turns is one with probability random_turn_prob; the sample of such a
// position still records the teacher's choice, not the random turn played. A random turn is a
// random chain (engine random_turn) that neither loses at once nor lets the opponent score
// at once, when one of those is found in 32 tries (else the teacher's turn is played).
//
// Config keys: the `selfplay:` map of selfplay/selfplay.h gives games, concurrent_games (games
// in parallel, one thread each), pitches, variants, max_turns and games_per_chunk (its search
// keys and seed are not used: a game's seed comes from its file prefix and number, so one prefix
// gives the same games whatever the seed, and another --prefix gives others; the shipped value
// net's recipe and the reference games depend on it); the teacher's own keys are the map `selfplay.teacher` (defaults
// in brackets):
//   player: alphabeta        the teacher (the only one: it reports a root score)
//   nodes: 40000             node budget per turn (alphabeta reads TurnBudget visits as
//                            nodes: deterministic); -1: none (then time_ms must be set)
//   time_ms: -1              wall time per turn (ms); -1: none. Both set: whichever ends first
//   tt_mb: 16                transposition table per game (MiB)
//   opening_turns: 2         random turns at the start of every game
//   random_turn_prob: 0.1    probability of a random turn at each later turn ...
//   random_turns: 20         ... up to this many complete turns into the game
//   value_scale: 400         S of tanh(score / S), in hand-evaluation units; the `teacher`
//                            command prints the S that best predicts the results of its games
//                            (teacher_calibration) to set it from the data
//   eval: hand               the teacher's leaf evaluation (search/leaf_evals.h): hand, noise
//                            (a random one: its root scores say nothing, so train on the
//                            result, or on proven scores) or nnue
//   noise_range: 1000        eval: noise, the range of the random scores
//   value_net: ""            eval: nnue, the .vnet file
//
// Thread-safety: run_teacher_selfplay runs concurrent_games threads, each with its own player;
// the other functions touch only their arguments.
#pragma once

#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/config.h"
#include "search/alphabeta.h"
#include "search/leaf_evals.h"
#include "selfplay/selfplay.h"

namespace ps {

struct TeacherOptions {
  std::string player = "alphabeta";  ///< the teacher's player type
  int64_t nodes = 40000;             ///< node budget per turn (nodes), -1: none
  int64_t time_ms = -1;              ///< time per turn (ms), -1: none
  int tt_mb = 16;                    ///< transposition table (MiB)
  int opening_turns = 2;             ///< random turns at the start of a game
  double random_turn_prob = 0.1;     ///< probability of a random turn ...
  int random_turns = 20;             ///< ... while fewer complete turns were played
  double value_scale = 400;          ///< S of tanh(score / S) (hand-evaluation units)
  std::string eval = "hand";         ///< the teacher's leaf evaluation (search/leaf_evals.h)
  int noise_range = NoiseEvaluator::kDefaultRange;  ///< eval: noise
  std::string value_net;                            ///< eval: nnue, the .vnet file

  /// The evaluation keys as make_leaf_evaluator's spec.
  LeafEvalSpec leaf_eval() const;

  /// Throws FieldError naming the first bad field (key relative to selfplay.teacher).
  void validate() const;
};

/// Reads the keys above from the `selfplay.teacher` map (finish_validated: unknown keys and
/// bad values are ConfigErrors naming file, key and line).
TeacherOptions parse_teacher_options(ConfigReader& r);

/// The root_value of a teacher score (for the side to move): +1 / -1 for a proven win / loss
/// (|score| > AlphaBetaPlayer::kWin - 1000), else tanh(score / scale).
float teacher_value(int score, double scale);

/// One search of the teacher.
struct TeacherChoice {
  std::string turn;      ///< the teacher's turn (kick digits)
  int score = 0;         ///< its root score (AlphaBetaPlayer::Info::score)
  int depth = 0;         ///< deepest completed iteration (turns; 0: none, or a forced turn)
  bool proven = false;   ///< the score is a proven win or loss
  bool sampled = false;  ///< the position becomes a sample (see the header comment)
  int64_t nodes = 0;     ///< nodes searched
};
/// The teacher's search of game.position() (a turn start of an unfinished game) within the
/// options' budget. Throws std::invalid_argument as AlphaBetaPlayer::choose_turn does.
TeacherChoice teacher_choose(AlphaBetaPlayer& teacher, const Game& game, const TeacherOptions& options);

/// A random turn of pos that neither loses at once nor lets the opponent score at once, when
/// one is found in 32 random chains; "" otherwise. pos: a turn start of an unfinished game.
std::string safe_random_turn(const Position& pos, std::mt19937_64& rng);

/// A sample's score and its game's result (for the side to move), for the calibration of S.
struct ScoredResult {
  int score = 0;
  int8_t result = 0;
};

/// Plays one teacher game (pitch and variant drawn from config by game_seed). scores: when not
/// null, gets the (score, result) pair of each sample whose score is not proven.
GameData play_teacher_game(const SelfplayConfig& config, const TeacherOptions& options, uint64_t game_seed,
                           SelfplayStats* stats = nullptr, std::vector<ScoredResult>* scores = nullptr);

/// The fit of S in tanh(score / S) to the game results: the S of a log-spaced grid (25 ...
/// 25,600, 41 values) with the least mean squared error over `scores`, and that error.
struct TeacherCalibration {
  int64_t positions = 0;
  double best_scale = 0, best_mse = 0;
  double mse_at(double scale) const;  ///< MSE of tanh(score / scale) on the same positions
  std::vector<ScoredResult> scores;
};
TeacherCalibration teacher_calibration(std::vector<ScoredResult> scores);

struct TeacherRunStats {
  SelfplayStats games;               ///< searches = teacher searches, visits = nodes searched, root_turns 0
                                     ///< (alpha-beta's root turns are not counted; summary() leaves them out)
  std::vector<ScoredResult> scores;  ///< of the games played by this call
};
/// Plays config.games teacher games into out_dir as run_games does (resumable; chunks
/// `<prefix>-NNNNNN.psd` with network "teacher:alphabeta"). Throws FieldError for bad options.
TeacherRunStats run_teacher_selfplay(const SelfplayConfig& config, const TeacherOptions& options,
                                     const std::string& out_dir, const std::string& prefix,
                                     const SelfplayProgress& progress = {},
                                     const std::atomic<bool>* cancel = nullptr);

}  // namespace ps
