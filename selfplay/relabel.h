// Relabelled games: the value target of every sampled position is the score of an alpha-beta
// search deeper than the one that played, instead of one game result shared by ~50 positions.
// This is how NNUE evaluations are trained (search scores of self-play positions,
// mixed with results: Stockfish's nnue-pytorch trainer, "lambda") and Descent's search-value
// target (Cohen-Solal 2020): the small value net learns what its own search sees a few turns
// further, for positions of the games it actually plays (a tournament's or ladder's games.pgn).
//
// Per relabelled position (turn starts from `from_turn` on, every `every` turns) the sample holds:
//   root_value  alpha-beta's score for the side to move with the value net `value_net` after
//               `nodes` nodes (TurnBudget visits read as nodes: deterministic), divided by the
//               net's value_scale and clipped to [-1, 1]; a proven win +1, a proven loss -1;
//   result      the game's result for the side to move (+1 / -1), turns_left as in self-play;
//   policy      none (full_search false: the sample is a value target only).
// Positions whose search ended before its first iteration (a single legal turn) are not sampled.
// `train-value --target root` (or mix) then trains on them.
//
// Output: chunks of games_per_chunk games, "<prefix>-NNNNNN.psd" (chunk index over the input
// games in order), written atomically; a chunk already there is kept, so a stopped run resumes
// where it stopped when given the same games; "<prefix>.relabel" records the settings (the net's
// file name and FNV-1a checksum, the games' count and the checksum of their records, nodes,
// turns, chunk size), and a run with other settings into the same folder is refused, naming the
// first that differs. Unfinished games and games of other rules than the net's are skipped
// (counted).
//
// Thread-safety: relabel_games runs `threads` worker threads, each with its own alpha-beta
// player; the value net is shared read-only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/record.h"

namespace ps {

struct RelabelOptions {
  std::string value_net;     ///< .vnet file of the search's evaluation (required)
  int64_t nodes = 50000;     ///< alpha-beta node budget per position (>= 1)
  int from_turn = 10;        ///< first turn start relabelled (>= 0)
  int every = 3;             ///< then every this many turns (>= 1)
  int threads = 1;           ///< worker threads, [1, 256]
  int games_per_chunk = 32;  ///< [1, 100000]
  int tt_mb = 16;            ///< transposition table per thread (MiB)
  /// Throws FieldError (core/field_check.h) naming the field.
  void validate() const;
};

struct RelabelStats {
  int64_t games = 0;          ///< games relabelled in this call
  int64_t skipped_games = 0;  ///< unfinished, or of other rules than the net's
  int64_t kept_chunks = 0;    ///< chunks already in out_dir (a resumed run)
  int64_t written_chunks = 0;
  int64_t positions = 0;  ///< samples written
  int64_t dropped = 0;    ///< positions whose search completed no iteration (nodes too few)
  int64_t proven = 0;     ///< of them, proven won or lost by the search
  int64_t nodes = 0;      ///< alpha-beta nodes, all positions
  int64_t depth_sum = 0;  ///< sum of the searches' completed depths (turns)
  double seconds = 0;
};

/// Relabels `games` into out_dir (created if missing). progress(done, total) after each game
/// (games of kept chunks count as done). Throws std::invalid_argument for bad options, a bad
/// value net (naming the file), or games of which none is finished on the net's rules (before
/// out_dir is made); std::runtime_error when a chunk cannot be written.
RelabelStats relabel_games(const std::vector<Game>& games, const RelabelOptions& options,
                           const std::string& out_dir, const std::string& prefix,
                           const std::function<void(int64_t, int64_t)>& progress = {});

}  // namespace ps
