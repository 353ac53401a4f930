// A small, fast value network for the alpha-beta search: a multilayer perceptron over
// the drawn segments and the ball point, NNUE-style (an "efficiently updatable neural network",
// Nasu 2018, as used in Stockfish since 2020): the first layer is a sum of one weight column per
// active input, so a kick changes it by one column per perspective (valuenet/value_net_eval.h keeps
// those sums, the "accumulators", along the search). The strongest CodinGame Paper Soccer bots
// evaluate alpha-beta leaves with nets of this kind (an MLP over about 6,300 binary inputs with
// 12 and 8 hidden units; a 1156-32-32-1 value net).
//
// Inputs, all binary and in the frame of the side to move (nn/encoder.h's convention: player 1
// sees the board rotated 180 degrees, so the mover always attacks north):
//   - one per segment slot: point p (0 <= p < num_points, the engine's point grid) times the 4
//     "forward" directions E, SE, S, SW (every undirected segment has exactly one such end):
//     feature 4 * p + (d - E), set when that segment is drawn and is not a wall (walls are
//     drawn in every position; their slots are never set);
//   - one per point for the ball: feature 4 * num_points + p;
//   - optionally (window = r > 0, file version 2) the segments around the ball, relative to it:
//     for each cell (dx, dy) of the (2r+1) x (2r+1) square centred on the ball (mover's frame;
//     cell c = (dy + r) * (2r + 1) + (dx + r)) and each forward direction E, SE, S, SW, feature
//     5 * num_points + 4 * c + (d - E), set when the segment from that point in that direction is
//     drawn and not a wall. Walls and cells off the grid are a function of the ball's point, which
//     the ball's column already carries, so they have no features. These inputs let one hidden
//     unit see a local pattern (a dead end, a bounce point next to the ball) wherever the ball
//     is; with segments and ball alone a unit can only tie a pattern to one ball point. They move
//     with the ball, so they are summed for each evaluation, not kept in the accumulators;
//   - optionally (window_points, file version 3) two more inputs per window cell, so that a cell
//     has K = 6 inputs instead of 4 (feature 5 * num_points + K * c + k): k = 4 set when the
//     point is touched (any segment, walls included, ends there: a kick to it bounces), k = 5
//     set when at most one of its directions is free (a kick to it ends blocked, or leaves one
//     way on). Both are ORs and thresholds over eight segments, which a first-layer unit (a sum)
//     cannot form for every cell at once; the engine's rules turn on exactly these.
// So num_features = 5 * num_points + K * (2r+1)^2 (585 on 8x10 without a window, 685 with r = 2,
// 735 with r = 2 and window_points).
// Layers: features -> h1 -> ... -> hk -> 1. Hidden units are clipped ReLU, min(max(x, 0), 1);
// the output is tanh: the value for the side to move in [-1, 1] (the expected game result, as
// the residual net's value head). Sizes come from the file (valuenet/value_net_file.h).
//
// Thread-safety: a ValueNet is immutable after loading; any number of threads may evaluate one
// at a time (each with its own scratch buffers / accumulators).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/position.h"

namespace ps {

/// One dense layer: out x in weights, row-major (the layout of torch::nn::Linear).
struct DenseLayer {
  int in = 0, out = 0;
  std::vector<float> weight;  ///< out * in
  std::vector<float> bias;    ///< out
};

/// tanh(x) within 1e-4 everywhere (1e-6 for |x| < 3): the value net's output (1e-4 of the
/// value is 0.1 score unit at value_scale 1000), several times faster than std::tanh. Pure.
float fast_tanh(float x);

class ValueNet {
 public:
  int width = 8, length = 10, goal = 2;  ///< the pitch it was trained on
  Variant variant = Variant::kStandard;  ///< the rules it was trained on
  float value_scale = 1000.0f;           ///< search score = value * value_scale (centi-kicks)
  int window = 0;                        ///< radius of the ball window (0: none; at most kMaxWindow)
  bool window_points = false;            ///< the window's cells also carry touched and trap inputs
  static constexpr int kMaxWindow = 8;
  /// layers[0] is the feature transformer (in = num_features), the last one has out = 1.
  std::vector<DenseLayer> layers;

  /// Inputs per window cell: 4 (its forward segments), 6 with window_points (and touched, trap).
  static int cell_inputs(bool window_points) { return window_points ? 6 : 4; }
  /// Number of input features for a pitch and window: 5 * num_points + K * (2r+1)^2.
  static int num_features(const Pitch& pitch, int window = 0, bool window_points = false) {
    return 5 * pitch.num_points() +
           cell_inputs(window_points) * (2 * window + 1) * (2 * window + 1) * (window > 0);
  }
  int num_features() const { return num_features(pitch(), window, window_points); }
  /// Checks the shapes against each other and against the pitch; finite weights. Throws
  /// std::invalid_argument saying what is wrong.
  void validate() const;
  /// Builds the transposed first layer (feature columns) used by the accumulators. Call after
  /// filling `layers` (the file reader does).
  void finalize();

  const Pitch& pitch() const { return Pitch::get(width, length, goal); }
  /// Whether the net was trained for these rules (pitch size, goal width and variant): its
  /// inputs are laid out for one pitch, and its values learned under one variant.
  bool plays(const Pitch& p, Variant v) const {
    return width == p.width() && length == p.length() && goal == p.goal() && variant == v;
  }
  int hidden1() const { return layers.front().out; }
  /// The first-layer column of feature f: hidden1() floats.
  const float* column(int f) const { return columns_.data() + size_t(f) * size_t(hidden1()); }

  /// The value from a first-layer sum that already holds the bias and the segment columns of the
  /// mover's perspective; adds the ball's column (feature `ball_feature`) and runs the rest.
  /// `scratch` needs at least 2 * (largest layer width) floats.
  float forward(const float* accumulator, int ball_feature, float* scratch) const;
  /// The value of turn start pos from an accumulator (bias and segment columns of pos's side to
  /// move, `perspective`) that lacks the columns of `n_extra` features `extra` (the segments of
  /// a turn not pushed): adds them in order, then pos's ball window and ball, and runs the rest.
  /// The incremental path of valuenet/value_net_eval.h. Nets of two hidden layers of 16 or 32 units
  /// take a kernel of fixed sizes, compiled for AVX2 too and chosen by the CPU in finalize();
  /// both kernels and the general path do the same float operations in the same order (no
  /// fused multiply-add), so the value is bit-identical on every CPU (with the project's
  /// flags: -std=c++17 contracts no a * b + c; a build with FMA enabled, e.g. -march=native,
  /// under -ffp-contract=fast may fuse differently per kernel). `scratch`: at least
  /// scratch_size() floats. Thread-safe (const) with a scratch per thread.
  float value_incremental(const float* accumulator, const int* extra, int n_extra, const Position& pos,
                          int perspective, float* scratch) const {
    return kernel_(*this, accumulator, extra, n_extra, pos, perspective, scratch);
  }
  /// Floats of scratch value_incremental needs.
  int scratch_size() const { return 3 * max_width(); }
  /// The kernel finalize() chose, for benchmarks and tests: "general", "16x16" or "32x32",
  /// with "+avx2" when the CPU runs the AVX2 build of it.
  const char* kernel_name() const { return kernel_name_; }
  /// The kernels this net can take on this CPU ("general" first, the one finalize() chose last).
  std::vector<std::string> kernels() const;
  /// Makes value_incremental use kernel `name` (one of kernels()); for tests that compare them.
  /// Throws std::invalid_argument when it cannot run here.
  void use_kernel(const std::string& name);
  /// Adds the ball window's columns of pos (in `perspective`'s frame: pos's side to move) to
  /// `sum` (hidden1() floats); nothing when window is 0. O(window cells), one column per drawn cell
  /// (precomputed pattern sums; per drawn segment above kMaxPatternHidden units).
  void add_window(const Position& pos, int perspective, float* sum) const;
  /// The value of a turn start from scratch (no accumulator): the reference the incremental
  /// path is tested against, and what a one-off caller uses.
  float evaluate(const Position& pos) const;
  /// Largest layer width (scratch sizing).
  int max_width() const;

 private:
  std::vector<float> columns_;  // num_features x hidden1
  // Window nets with hidden1 <= kMaxPatternHidden: for each window cell and each of the 2^K
  // patterns of its K inputs, the sum of the set inputs' columns ((2r+1)^2 x 2^K x hidden1
  // floats; 25.6 KB for r = 2, K = 4 and 16 units, 102 KB with K = 6), so that add_window adds
  // one column per cell with an input set instead of one per input.
  static constexpr int kMaxPatternHidden = 64;
  std::vector<float> pattern_sums_;
  int cell_patterns() const { return 1 << cell_inputs(window_points); }  // 2^K per cell
  // Layers 1.. transposed (in x out), so that forward() adds one input's row to all outputs at
  // once (vectorised over outputs, and an input that the clipped ReLU zeroed costs nothing).
  std::vector<std::vector<float>> transposed_;
  // The ball window's cells for each perspective and ball point, in for_window_cells' order:
  // the engine point, its cell, its non-wall and its on-pitch directions, so that an evaluation
  // reads drawn masks without converting coordinates (window nets only; built by finalize()).
  struct WindowCell {
    uint16_t point;
    uint16_t cell;    // up to (2 * kMaxWindow + 1)^2 = 289 (a uint8_t wrapped for window 8)
    uint8_t open;     // directions of the point that are not walls (engine frame)
    uint8_t allowed;  // directions of the point that stay on the pitch (engine frame)
  };
  std::vector<WindowCell> window_cells_;
  std::vector<uint32_t> window_start_;  // [perspective * num_points + ball], num_points * 2 + 1 entries
  // Calls f(cell, pattern) for each window cell of pos with an input set (as
  // for_window_cells in value_net.cpp, from the table).
  template <class F>
  void for_window_patterns(const Position& pos, int perspective, F&& f) const;
  using Kernel = float (*)(const ValueNet&, const float*, const int*, int, const Position&, int, float*);
  Kernel kernel_ = nullptr;
  const char* kernel_name_ = "none";
  friend struct ValueNetKernels;
};

/// A net of the given hidden sizes with random weights (uniform, seeded), finalized: for tests
/// and benchmarks of speed, not for play.
ValueNet random_value_net(const Pitch& pitch, Variant variant, const std::vector<int>& hidden, uint64_t seed,
                          int window = 0, bool window_points = false);

/// The segment feature of the undirected segment from p in direction d, in `perspective`'s
/// frame (0: the engine's, 1: rotated 180 degrees).
int segment_feature(const Pitch& pitch, int p, int d, int perspective);
/// The ball feature of point p in `perspective`'s frame.
inline int ball_feature(const Pitch& pitch, int p, int perspective) {
  return 4 * pitch.num_points() + (perspective ? pitch.rotate_point(p) : p);
}
/// Appends the ball window's active features of pos (radius `window`, with the touched and trap
/// inputs when `points`, in `perspective`'s frame).
void window_features(const Position& pos, int window, int perspective, std::vector<int>& out,
                     bool points = false);
/// The active features of pos in the frame of its side to move: drawn non-wall segments
/// (ascending), the ball window's (radius `window`, window_points `points`, ascending), then the
/// ball, last. The trainer's inputs and the from-scratch reference.
void value_features(const Position& pos, std::vector<int>& out, int window = 0, bool points = false);

}  // namespace ps
