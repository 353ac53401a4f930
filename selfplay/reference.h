// Reference games: a fixed set of games of a stronger player (by default alpha-beta with the
// shipped value net, `teacher` games: selfplay/teacher.h) on which each generation's network is
// scored, so that a run shows what its network learns with less noise than its games against
// generation 0 (the evaluation of `run`, loop/run.h, `evaluate.reference`).
//
// Per sampled position of the reference games, with the network's value v (side to move) and
// its turn priors (nn/turn_priors.h, best first):
//   value MSE        (v - result)^2, result +1 / -1 for the side to move (a constant 0 scores 1);
//   early value MSE  the same over positions more than kEarlyTurnsLeft turns before the end,
//                    where the win checks of the search do not see the result yet, and late
//                    value MSE over the others;
//   sign accuracy    v > 0 exactly where result is +1, over positions of decided games;
//   policy top-1     the network's most probable turn reaches the same position as the
//                    reference player's turn (the sample's turn with the most visits), over
//                    samples with a policy turn; the priors come from the first turns of the
//                    best-first generation (64 turns), enough for the most probable one.
// The figures are those of the positions' own frame; no mirror augmentation. A figure over no
// position is NaN.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nn/evaluator.h"
#include "selfplay/data.h"

namespace ps {

/// Positions more than this many turns before the end count as "early".
constexpr int kEarlyTurnsLeft = 15;

struct ReferenceScore {
  int64_t positions = 0;         ///< sampled positions scored (value figures)
  int64_t early_positions = 0;   ///< of which more than kEarlyTurnsLeft turns before the end
  int64_t policy_positions = 0;  ///< of which with a policy turn (top-1)
  double value_mse = 0, early_value_mse = 0, late_value_mse = 0, value_sign_accuracy = 0, policy_top1 = 0;
};

/// The games of every .psd chunk at `path` (one file, or every *.psd directly in a folder, in
/// name order), their samples in order. Throws DataError (read_chunk) for a bad chunk and
/// std::invalid_argument naming the path when it is missing, a folder without a .psd file, or
/// holds no sample.
std::vector<GameData> read_reference_games(const std::string& path);

/// Scores the network behind `net` on the samples of `games` (positions evaluated in batches of
/// up to 256 through evaluate_many). Positions whose game is over are skipped. Throws what the
/// evaluator throws, and RecordError for a game whose record cannot be replayed. Thread-safe
/// when the evaluator is.
ReferenceScore score_reference_games(Evaluator& net, const std::vector<GameData>& games);

}  // namespace ps
