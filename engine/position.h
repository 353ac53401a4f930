// A Paper Soccer position: drawn segments, ball, side to move, turn state and result, with an
// incrementally updated 64-bit Zobrist hash. Fixed size (no heap), cheap to copy.
#pragma once

#include <cstdint>
#include <cstring>

#include "engine/pitch.h"

namespace ps {

enum class Reason : uint8_t { kNone = 0, kGoal = 1, kBlocked = 2 };
const char* reason_name(Reason r);  // "none", "goal", "blocked"

/// What make_kick() needs to undo a kick exactly.
struct KickUndo {
  uint64_t hash;
  uint16_t from;
  uint16_t kicks_in_turn;
  uint8_t dir;
  uint8_t side;
  int8_t winner;
  Reason reason;
};

/// The drawn segments are kept as an 8-bit direction mask per point (a segment sets one bit at
/// each end), so the legal kicks of a point are one AND and "touched" is one compare. The
/// walls are drawn at construction. Player 0 attacks the north goal and kicks first.
class Position {
 public:
  /// The start position of `pitch` (ball on the centre point, player 0 to kick).
  Position(const Pitch& pitch, Variant variant);

  const Pitch& pitch() const { return *pitch_; }
  Variant variant() const { return variant_; }
  int ball() const { return ball_; }
  /// The player who kicks next (0 or 1). After a goal it stays the player who kicked it in;
  /// after a block it is the blocked player (the loser).
  int side_to_move() const { return side_; }
  /// Kicks already made in the current turn (0 at the start of a turn).
  int kicks_in_turn() const { return kicks_in_turn_; }
  bool turn_start() const { return kicks_in_turn_ == 0; }
  bool game_over() const { return winner_ >= 0; }
  /// Winning player, or -1 while the game goes on.
  int winner() const { return winner_; }
  Reason reason() const { return reason_; }
  /// Kicks made since the start position.
  int num_kicks() const { return num_kicks_; }
  uint64_t hash() const { return hash_; }
  /// The hash recomputed from scratch (tests compare it with hash()).
  uint64_t compute_hash() const;

  /// Drawn directions at point p (walls included), bit d = segment towards direction d.
  uint8_t drawn_mask(int p) const { return drawn_[p]; }
  bool is_drawn(int p, int d) const { return (drawn_[p] >> d) & 1; }
  /// A point is touched when any drawn segment ends on it.
  bool touched(int p) const { return drawn_[p] != 0; }
  /// Legal kick directions from the ball as a bit mask (0 once the game is over).
  uint8_t legal_kicks() const {
    return game_over() ? 0 : uint8_t(pitch_->allowed_dirs(ball_) & ~drawn_[ball_]);
  }
  bool is_legal(int d) const { return d >= 0 && d < kNumDirs && ((legal_kicks() >> d) & 1); }

  /// Makes kick d, which must be legal (unchecked in release builds). Applies, in order: goal,
  /// who kicks next (bounce per variant), blocked ball. Returns what unmake_kick needs.
  KickUndo make_kick(int d);
  void unmake_kick(const KickUndo& u);

  // single-file: omit begin (not needed by the exported bots)
  /// Left-right mirrored position (x -> W - x); same player to move and turn state.
  Position mirrored() const;

  bool operator==(const Position& o) const;
  bool operator!=(const Position& o) const { return !(*this == o); }
  // single-file: omit end

 private:
  const Pitch* pitch_;
  uint64_t hash_;
  uint16_t ball_;
  uint16_t num_kicks_ = 0;
  Variant variant_;
  uint8_t side_ = 0;
  uint16_t kicks_in_turn_ = 0;
  int8_t winner_ = -1;
  Reason reason_ = Reason::kNone;
  uint8_t drawn_[kMaxPoints];
};

inline KickUndo Position::make_kick(int d) {
  KickUndo u{hash_, ball_, kicks_in_turn_, uint8_t(d), side_, winner_, reason_};
  const int from = ball_;
  const int to = from + pitch_->dir_offset(d);
  const bool bounced = drawn_[to] != 0;  // touched before this kick's segment is drawn
  drawn_[from] |= uint8_t(1u << d);
  drawn_[to] |= uint8_t(1u << opposite_dir(d));
  uint64_t h = hash_ ^ pitch_->segment_key(from, d) ^ pitch_->ball_key(from) ^ pitch_->ball_key(to);
  if (kicks_in_turn_) h ^= pitch_->pending_key();
  ball_ = uint16_t(to);
  ++num_kicks_;
  if (pitch_->is_goal(to)) {
    winner_ = int8_t(pitch_->goal_winner(to));
    reason_ = Reason::kGoal;
    kicks_in_turn_ = 0;
    hash_ = h ^ pitch_->winner_key(winner_);
    return u;
  }
  bool again;
  switch (variant_) {
    case Variant::kStandard: again = bounced; break;
    case Variant::kSingleBounce: again = bounced && kicks_in_turn_ == 0; break;
    default: again = false; break;
  }
  if (again) {
    ++kicks_in_turn_;
    h ^= pitch_->pending_key();
  } else {
    kicks_in_turn_ = 0;
    side_ ^= 1;
    h ^= pitch_->side_key();
  }
  if ((pitch_->allowed_dirs(to) & ~drawn_[to]) == 0) {
    winner_ = int8_t(side_ ^ 1);
    reason_ = Reason::kBlocked;
    h ^= pitch_->winner_key(winner_);
  }
  hash_ = h;
  return u;
}

inline void Position::unmake_kick(const KickUndo& u) {
  const int to = ball_;
  drawn_[u.from] &= uint8_t(~(1u << u.dir));
  drawn_[to] &= uint8_t(~(1u << opposite_dir(u.dir)));
  ball_ = u.from;
  side_ = u.side;
  kicks_in_turn_ = u.kicks_in_turn;
  winner_ = u.winner;
  reason_ = u.reason;
  hash_ = u.hash;
  --num_kicks_;
}

}  // namespace ps
