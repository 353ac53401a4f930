// Pitch geometry, directions and Zobrist keys for Paper Soccer.
//
// The rules are those of shared/RULES.md. A pitch is W squares wide and L squares long with a
// goal G squares wide centred on each short side. The ball sits on lattice points (x, y),
// 0 <= x <= W, -1 <= y <= L + 1 (y = -1 and y = L + 1 are the goal pockets). Points are indexed
// row-major over the full (L + 3) x (W + 1) grid, including off-pitch points of the goal rows:
//
//     point(x, y) = (y + 1) * (W + 1) + x
//
// so the network can use the same grid as its input/output planes ([L + 3, W + 1]).
#pragma once

#include <cstdint>
#include <string>

namespace ps {

/// Directions, clockwise from north, as in the record notation (RULES.md).
enum Dir : int { kN = 0, kNE = 1, kE = 2, kSE = 3, kS = 4, kSW = 5, kW = 6, kNW = 7 };
constexpr int kNumDirs = 8;
constexpr int kDirDx[kNumDirs] = {0, 1, 1, 1, 0, -1, -1, -1};
constexpr int kDirDy[kNumDirs] = {-1, -1, 0, 1, 1, 1, 0, -1};

constexpr int opposite_dir(int d) { return (d + 4) & 7; }
/// Left-right mirror (x -> W - x): N<->N, NE<->NW, E<->W, SE<->SW, S<->S.
constexpr int mirror_dir(int d) { return (8 - d) & 7; }
/// 180-degree rotation of the board.
constexpr int rotate_dir(int d) { return (d + 4) & 7; }

/// Largest grid (W + 1) * (L + 3) the fixed-size Position supports (e.g. 12 x 16 = 247).
constexpr int kMaxPoints = 256;

/// Rule variants (RULES.md, "Variants").
enum class Variant : uint8_t { kStandard = 0, kSingleBounce = 1, kNoBounce = 2 };
constexpr int kNumVariants = 3;

/// "standard", "single-bounce", "no-bounce".
const char* variant_name(Variant v);
/// Parses a variant name; throws std::invalid_argument naming the bad text.
Variant parse_variant(const std::string& name);

// single-file: omit begin (the exported bots read no pitch spec: see engine/pitch.cpp)
/// A pitch size as configs write it.
struct PitchChoice {
  int width = 8, length = 10, goal = 2;
};
/// Parses a pitch spec, the exact inverse of Pitch::name(): "WxL" (goal `default_goal`) or
/// "WxLgG" (goal G), e.g. "8x10", "8x12", "10x14g4"; an upper-case 'X' reads as 'x'. W, L and G
/// are decimal numbers of at most 9 digits, with nothing before, between or after them (no
/// spaces or signs). The one parser of configs, command-line options, PGN tags, run
/// directories and the report. Throws std::invalid_argument naming the text, or Pitch::get's
/// error for an impossible pitch.
PitchChoice parse_pitch_spec(const std::string& text, int default_goal = 2);
/// True when a spec names its goal ("10x14g4"), so a separate goal setting must agree with it.
bool pitch_spec_has_goal(const std::string& text);
// single-file: omit end

/// Immutable geometry of one pitch size, with its Zobrist keys. Obtain one with Pitch::get();
/// instances live for the whole program, so positions may hold a plain pointer.
class Pitch {
 public:
  /// Returns the shared pitch W x L with goal G. Throws std::invalid_argument when
  /// W or L is odd or < 4, G < 1 or G > W - 2, W - G odd, or the grid exceeds kMaxPoints.
  static const Pitch& get(int width, int length, int goal);
  static const Pitch& standard() { return get(8, 10, 2); }

  int width() const { return w_; }
  int length() const { return l_; }
  int goal() const { return g_; }
  /// Grid size (W + 1) * (L + 3), the number of point indices.
  int num_points() const { return n_; }
  int grid_width() const { return w_ + 1; }   // columns of the point grid
  int grid_height() const { return l_ + 3; }  // rows of the point grid
  /// "8x10" (goal 2) or "8x10g4" for other goal widths.
  std::string name() const;

  int point(int x, int y) const { return (y + 1) * (w_ + 1) + x; }
  int x_of(int p) const { return p % (w_ + 1); }
  int y_of(int p) const { return p / (w_ + 1) - 1; }
  /// Index offset of a kick in direction d (valid only where allowed_dirs has bit d).
  int dir_offset(int d) const { return offset_[d]; }

  /// A point the ball may stand on: a field point or a goal point.
  bool is_ball_point(int p) const { return (flags_[p] & (kFieldFlag | kGoalFlag)) != 0; }
  bool is_field(int p) const { return (flags_[p] & kFieldFlag) != 0; }
  bool is_goal(int p) const { return (flags_[p] & kGoalFlag) != 0; }
  /// The player who wins when the ball enters goal point p: 0 for the north goal (y = -1),
  /// 1 for the south goal (y = L + 1). Only meaningful when is_goal(p).
  int goal_winner(int p) const { return y_of(p) < 0 ? 0 : 1; }
  /// Directions from p whose segment stays on the pitch and ends on a ball point (walls count
  /// as allowed here; they are drawn at the start of every position).
  uint8_t allowed_dirs(int p) const { return allowed_[p]; }
  /// Directions from p that are walls (drawn before the first kick).
  uint8_t wall_dirs(int p) const { return walls_[p]; }
  int start_point() const { return point(w_ / 2, l_ / 2); }
  /// Left-right mirror of a point: (x, y) -> (W - x, y).
  int mirror_point(int p) const { return point(w_ - x_of(p), y_of(p)); }
  /// 180-degree rotation: (x, y) -> (W - x, L - y).
  int rotate_point(int p) const { return point(w_ - x_of(p), l_ - y_of(p)); }

  // Zobrist keys.
  /// Key of the undirected segment from p in direction d (same key from either end).
  uint64_t segment_key(int p, int d) const;
  uint64_t ball_key(int p) const { return ball_key_[p]; }
  uint64_t side_key() const { return side_key_; }
  /// XORed in while the mover is in the middle of a turn (an extra kick is pending).
  uint64_t pending_key() const { return pending_key_; }
  uint64_t winner_key(int player) const { return winner_key_[player]; }
  /// Hash of the walls alone (the start of every position's hash).
  uint64_t walls_hash() const { return walls_hash_; }

 private:
  Pitch(int width, int length, int goal);
  static constexpr uint8_t kFieldFlag = 1, kGoalFlag = 2;

  int w_, l_, g_, n_;
  int offset_[kNumDirs];
  uint8_t flags_[kMaxPoints] = {};
  uint8_t allowed_[kMaxPoints] = {};
  uint8_t walls_[kMaxPoints] = {};
  uint64_t seg_key_[kMaxPoints * 4] = {};  // forward directions E, SE, S, SW per point
  uint64_t ball_key_[kMaxPoints] = {};
  uint64_t side_key_, pending_key_, winner_key_[2], walls_hash_ = 0;
};

inline uint64_t Pitch::segment_key(int p, int d) const {
  // Segments are stored at the end from which they point "forward" (E, SE, S, SW = 2..5).
  if (d >= kE && d <= kSW) return seg_key_[p * 4 + (d - kE)];
  return seg_key_[(p + offset_[d]) * 4 + (opposite_dir(d) - kE)];
}

}  // namespace ps
