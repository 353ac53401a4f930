// Network input encoding, the mover frame, the left-right mirror and policy targets.
// Torch-free (library ps_nn_core): search and selfplay may include it without LibTorch.
//
// Grid. Every plane covers the pitch's whole point grid, goal rows included: for a W x L pitch
// the grid has H = L + 3 rows and GW = W + 1 columns, and the flat spatial index of row r,
// column c is r * GW + c, which is exactly the engine's point index of the point shown there
// (Pitch::point(x, y) = (y + 1) * (W + 1) + x). Shapes below: [C, H, GW] per position,
// [B, C, H, GW] per batch, row-major float32.
//
// Mover frame. Encodings, policy outputs and policy targets are always from the point of view
// of the side to move, which therefore always attacks north (y = -1). For player 0 the mover
// frame is the engine frame; for player 1 the board is rotated 180 degrees: engine point p is
// shown at Pitch::rotate_point(p) and direction d becomes rotate_dir(d). The rotation is its own
// inverse, so mover_point/mover_dir convert both ways.
//
// Input planes (format version kInputFormatVersion), all 0/1:
//   0..7   drawn[d]: the segment from this point in direction d is drawn (walls included;
//          d in the mover frame, so plane d of a point is set exactly when drawn_mask bit d is)
//   8      ball: the ball's point
//   9      field: field points (0 <= y <= L)
//   10     attacked goal: the goal points the side to move scores in (mover-frame north)
//   11     defended goal: the goal points of the side to move's own goal (mover-frame south)
//   12     touched: points with at least one drawn segment (a kick landing there bounces)
//   13..15 variant one-hot (standard, single-bounce, no-bounce), constant planes
//   16     extra kick pending: the side to move is in the middle of a turn (kicks_in_turn > 0),
//          constant plane
//   17     ones: 1 on the whole grid (lets convolutions see the zero padding at the border)
// Points of the goal rows outside the goals are 0 in every plane but `ones`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/position.h"

namespace ps::nn {

/// Bumped whenever the meaning of the planes changes; stored in checkpoints and checked on load.
constexpr int kInputFormatVersion = 1;

enum Plane : int {
  kPlaneDrawn0 = 0,  // 8 planes, one per mover-frame direction
  kPlaneBall = 8,
  kPlaneField = 9,
  kPlaneGoalAttacked = 10,
  kPlaneGoalDefended = 11,
  kPlaneTouched = 12,
  kPlaneVariant0 = 13,  // kNumVariants planes
  kPlanePending = 16,
  kPlaneOnes = 17,
};
constexpr int kNumPlanes = 18;

/// Floats of one position's planes: kNumPlanes * H * GW.
inline size_t planes_size(const Pitch& pitch) { return size_t(kNumPlanes) * pitch.num_points(); }
/// Floats of one policy map [8, H, GW].
inline size_t policy_size(const Pitch& pitch) { return size_t(kNumDirs) * pitch.num_points(); }

/// Mover-frame point of engine point p when `side` is to move (and back: an involution).
inline int mover_point(const Pitch& pitch, int side, int p) {
  return side == 0 ? p : pitch.rotate_point(p);
}
/// Mover-frame direction of engine direction d when `side` is to move (and back).
inline int mover_dir(int side, int d) { return side == 0 ? d : rotate_dir(d); }

/// Writes the planes of pos, [kNumPlanes, H, GW], every float of `out` (planes_size floats).
void encode_position(const Position& pos, float* out);
// single-file: omit begin (batches and mirrors: not needed by the exported bot)
/// Encodes n positions into out, [n, kNumPlanes, H, GW]. All must share one pitch; throws
/// std::invalid_argument naming the first position whose pitch differs.
void encode_positions(const Position* const* positions, size_t n, float* out);

/// Left-right mirror (x -> W - x) of one position's planes [kNumPlanes, H, GW]: every plane is
/// flipped horizontally and the drawn planes are permuted by mirror_dir. Equals the encoding of
/// pos.mirrored(). in and out must not overlap.
void mirror_planes(const Pitch& pitch, const float* in, float* out);
/// Left-right mirror of a policy map [8, H, GW] (logits or targets, either frame).
void mirror_policy(const Pitch& pitch, const float* in, float* out);
// single-file: omit end

/// Converts a mover-frame policy map [8, H, GW] of a position with `side` to move into the
/// engine-frame layout of Evaluation::policy_logits ([num_points * 8], index p * 8 + d).
void policy_to_engine(const Pitch& pitch, int side, const float* mover, float* engine);
// single-file: omit begin (the inverse and the training targets: not needed by the exported bot)
/// The inverse of policy_to_engine.
void policy_to_mover(const Pitch& pitch, int side, const float* engine, float* mover);

// ---- Policy targets --------------------------------------------------------------------------
//
// The policy is factorised per kick: a turn's probability is the product, along its kick chain,
// of softmax(logits[:, point]) restricted to the directions legal at that kick. A turn-level
// target (e.g. search visit shares) therefore becomes a set of per-kick targets: each row below
// is one (point, legal set) context met along the target chains, with the target mass of each
// direction taken there. The exact cross-entropy of the chain model against the target is
//     loss = - sum_rows sum_d target[d] * log_softmax_{d' in legal}(logits[d', point])[d]
// (nn/net.h: policy_loss computes it). Each row's targets sum to the probability that a
// target chain passes through that context, so rows of the first kick sum to 1.

/// One per-kick context of a policy target, in the mover frame.
struct KickTargetRow {
  uint16_t point = 0;       ///< mover-frame point index (flat spatial index of [H, GW])
  uint8_t legal = 0;        ///< mover-frame legal directions at that kick (bit d)
  float target[kNumDirs] = {};  ///< target mass per mover-frame direction (0 where illegal)
};

struct PolicyTarget {
  std::vector<KickTargetRow> rows;
};

/// A turn (kick digits, engine frame, as in Turn::kicks) with its target weight.
struct WeightedTurn {
  std::string kicks;
  float weight = 0.0f;
};

/// Builds the per-kick target of pos (at a turn start, not finished) from weighted turns; the
/// weights are normalised to sum 1 and each turn contributes its given kick chain. Throws
/// std::invalid_argument naming the turn (index and digits) and kick when a chain is not a
/// complete legal turn of pos, when a weight is negative or not finite, or when they sum to 0.
PolicyTarget make_policy_target(const Position& pos, const std::vector<WeightedTurn>& turns);
/// Mirrors a target left-right in place (points and directions), matching mirror_planes.
void mirror_policy_target(const Pitch& pitch, PolicyTarget& target);
/// Dense view [8, H, GW]: the target mass of each (direction, point), summed over the rows
/// (loses the legal-set context; for inspection and simple losses).
void dense_policy_target(const Pitch& pitch, const PolicyTarget& target, float* out);
// single-file: omit end

}  // namespace ps::nn
