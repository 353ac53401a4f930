#include "engine/position.h"

namespace ps {

const char* reason_name(Reason r) {
  switch (r) {
    case Reason::kNone: return "none";
    case Reason::kGoal: return "goal";
    case Reason::kBlocked: return "blocked";
  }
  return "?";
}

Position::Position(const Pitch& pitch, Variant variant)
    : pitch_(&pitch), ball_(uint16_t(pitch.start_point())), variant_(variant) {
  std::memset(drawn_, 0, sizeof(drawn_));
  for (int p = 0; p < pitch.num_points(); ++p) drawn_[p] = pitch.wall_dirs(p);
  hash_ = compute_hash();
}

uint64_t Position::compute_hash() const {
  uint64_t h = 0;
  for (int p = 0; p < pitch_->num_points(); ++p)
    for (int d = kE; d <= kSW; ++d)
      if (drawn_[p] & (1u << d)) h ^= pitch_->segment_key(p, d);
  h ^= pitch_->ball_key(ball_);
  if (side_) h ^= pitch_->side_key();
  if (kicks_in_turn_) h ^= pitch_->pending_key();
  if (winner_ >= 0) h ^= pitch_->winner_key(winner_);
  return h;
}

// single-file: omit begin (not needed by the exported bots)
Position Position::mirrored() const {
  Position m = *this;
  std::memset(m.drawn_, 0, sizeof(m.drawn_));
  for (int p = 0; p < pitch_->num_points(); ++p) {
    uint8_t mask = 0;
    for (int d = 0; d < kNumDirs; ++d)
      if (drawn_[p] & (1u << d)) mask |= uint8_t(1u << mirror_dir(d));
    m.drawn_[pitch_->mirror_point(p)] = mask;
  }
  m.ball_ = uint16_t(pitch_->mirror_point(ball_));
  m.hash_ = m.compute_hash();
  return m;
}

bool Position::operator==(const Position& o) const {
  return pitch_ == o.pitch_ && variant_ == o.variant_ && ball_ == o.ball_ && side_ == o.side_ &&
         kicks_in_turn_ == o.kicks_in_turn_ && winner_ == o.winner_ && reason_ == o.reason_ &&
         hash_ == o.hash_ && std::memcmp(drawn_, o.drawn_, size_t(pitch_->num_points())) == 0;
}
// single-file: omit end

}  // namespace ps
