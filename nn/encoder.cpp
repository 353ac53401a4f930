#include "nn/encoder.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace ps::nn {

void encode_position(const Position& pos, float* out) {
  const Pitch& pitch = pos.pitch();
  const int n = pitch.num_points();
  const int side = pos.side_to_move();
  std::memset(out, 0, planes_size(pitch) * sizeof(float));
  auto plane = [&](int c) { return out + size_t(c) * n; };
  for (int q = 0; q < n; ++q) {  // q: mover-frame point
    const int p = mover_point(pitch, side, q);
    plane(kPlaneOnes)[q] = 1.0f;
    const unsigned drawn = pos.drawn_mask(p);
    for (unsigned m = drawn; m; m &= m - 1) {
      const int d = __builtin_ctz(m);
      plane(kPlaneDrawn0 + mover_dir(side, d))[q] = 1.0f;
    }
    if (drawn) plane(kPlaneTouched)[q] = 1.0f;
    if (pitch.is_field(p)) plane(kPlaneField)[q] = 1.0f;
    if (pitch.is_goal(p)) {
      // The side to move scores in the goal whose winner it is.
      plane(pitch.goal_winner(p) == side ? kPlaneGoalAttacked : kPlaneGoalDefended)[q] = 1.0f;
    }
  }
  plane(kPlaneBall)[mover_point(pitch, side, pos.ball())] = 1.0f;
  float* v = plane(kPlaneVariant0 + int(pos.variant()));
  std::fill(v, v + n, 1.0f);
  if (!pos.turn_start()) {
    float* pend = plane(kPlanePending);
    std::fill(pend, pend + n, 1.0f);
  }
}

// single-file: omit begin (not needed by the exported bot, which encodes one position at a time)
void encode_positions(const Position* const* positions, size_t n, float* out) {
  if (n == 0) return;
  const Pitch& pitch = positions[0]->pitch();
  const size_t stride = planes_size(pitch);
  for (size_t i = 0; i < n; ++i) {
    if (&positions[i]->pitch() != &pitch)
      throw std::invalid_argument("encode_positions: position " + std::to_string(i) +
                                  " is on pitch " + positions[i]->pitch().name() +
                                  " but position 0 is on " + pitch.name() +
                                  " (one batch holds one pitch size)");
    encode_position(*positions[i], out + i * stride);
  }
}

void mirror_planes(const Pitch& pitch, const float* in, float* out) {
  const int n = pitch.num_points();
  for (int c = 0; c < kNumPlanes; ++c) {
    const int oc = c < kNumDirs ? kPlaneDrawn0 + mirror_dir(c - kPlaneDrawn0) : c;
    const float* src = in + size_t(c) * n;
    float* dst = out + size_t(oc) * n;
    for (int q = 0; q < n; ++q) dst[pitch.mirror_point(q)] = src[q];
  }
}

void mirror_policy(const Pitch& pitch, const float* in, float* out) {
  const int n = pitch.num_points();
  for (int d = 0; d < kNumDirs; ++d) {
    const float* src = in + size_t(d) * n;
    float* dst = out + size_t(mirror_dir(d)) * n;
    for (int q = 0; q < n; ++q) dst[pitch.mirror_point(q)] = src[q];
  }
}

// single-file: omit end
void policy_to_engine(const Pitch& pitch, int side, const float* mover, float* engine) {
  const int n = pitch.num_points();
  for (int p = 0; p < n; ++p) {
    const int q = mover_point(pitch, side, p);
    for (int d = 0; d < kNumDirs; ++d) engine[p * kNumDirs + d] = mover[size_t(mover_dir(side, d)) * n + q];
  }
}

// single-file: omit begin (not needed by the exported bot; see export/single_file.h)
void policy_to_mover(const Pitch& pitch, int side, const float* engine, float* mover) {
  const int n = pitch.num_points();
  for (int p = 0; p < n; ++p) {
    const int q = mover_point(pitch, side, p);
    for (int d = 0; d < kNumDirs; ++d) mover[size_t(mover_dir(side, d)) * n + q] = engine[p * kNumDirs + d];
  }
}

namespace {

uint8_t to_mover_mask(int side, unsigned engine_mask) {
  uint8_t m = 0;
  for (unsigned e = engine_mask; e; e &= e - 1) m |= uint8_t(1u << mover_dir(side, __builtin_ctz(e)));
  return m;
}

uint8_t mirror_mask(uint8_t mask) {
  uint8_t m = 0;
  for (unsigned e = mask; e; e &= e - 1) m |= uint8_t(1u << mirror_dir(__builtin_ctz(e)));
  return m;
}

KickTargetRow& row_for(PolicyTarget& t, int point, uint8_t legal) {
  for (auto& r : t.rows)
    if (r.point == point && r.legal == legal) return r;
  KickTargetRow r;
  r.point = uint16_t(point);
  r.legal = legal;
  t.rows.push_back(r);
  return t.rows.back();
}

}  // namespace

PolicyTarget make_policy_target(const Position& pos, const std::vector<WeightedTurn>& turns) {
  if (pos.game_over()) throw std::invalid_argument("make_policy_target: the position is finished");
  if (!pos.turn_start())
    throw std::invalid_argument("make_policy_target: the position is in the middle of a turn");
  double total = 0;
  for (size_t i = 0; i < turns.size(); ++i) {
    const float w = turns[i].weight;
    if (!std::isfinite(w) || w < 0)
      throw std::invalid_argument("make_policy_target: turn " + std::to_string(i) + " ('" +
                                  turns[i].kicks + "') has weight " + std::to_string(w) +
                                  " (must be finite and >= 0)");
    total += w;
  }
  if (!(total > 0)) throw std::invalid_argument("make_policy_target: the turn weights sum to 0");
  const Pitch& pitch = pos.pitch();
  const int side = pos.side_to_move();
  PolicyTarget t;
  for (size_t i = 0; i < turns.size(); ++i) {
    const std::string& k = turns[i].kicks;
    auto bad = [&](size_t kick, const std::string& why) {
      throw std::invalid_argument("make_policy_target: turn " + std::to_string(i) + " ('" + k +
                                  "'), kick " + std::to_string(kick + 1) + ": " + why);
    };
    if (k.empty()) bad(0, "empty turn");
    const float w = float(turns[i].weight / total);
    Position p = pos;
    for (size_t j = 0; j < k.size(); ++j) {
      if (j > 0 && (p.game_over() || p.side_to_move() != side || p.turn_start()))
        bad(j, "the turn already ended");
      const int d = k[j] - '0';
      if (d < 0 || d >= kNumDirs) bad(j, "bad character (expected a digit 0-7)");
      if (!p.is_legal(d)) bad(j, "illegal kick");
      if (w > 0) {
        KickTargetRow& r =
            row_for(t, mover_point(pitch, side, p.ball()), to_mover_mask(side, p.legal_kicks()));
        r.target[mover_dir(side, d)] += w;
      }
      p.make_kick(d);
    }
    if (!(p.game_over() || p.side_to_move() != side || p.turn_start()))
      bad(k.size() - 1, "the turn is not finished (an extra kick is pending)");
  }
  return t;
}

void mirror_policy_target(const Pitch& pitch, PolicyTarget& target) {
  for (auto& r : target.rows) {
    float t[kNumDirs];
    for (int d = 0; d < kNumDirs; ++d) t[mirror_dir(d)] = r.target[d];
    std::memcpy(r.target, t, sizeof t);
    r.point = uint16_t(pitch.mirror_point(r.point));
    r.legal = mirror_mask(r.legal);
  }
}

void dense_policy_target(const Pitch& pitch, const PolicyTarget& target, float* out) {
  const int n = pitch.num_points();
  std::memset(out, 0, policy_size(pitch) * sizeof(float));
  for (const auto& r : target.rows)
    for (int d = 0; d < kNumDirs; ++d) out[size_t(d) * n + r.point] += r.target[d];
}

// single-file: omit end
}  // namespace ps::nn
