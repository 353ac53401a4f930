#include "search/leaf_eval.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace ps {

int goal_distance(const Pitch& pitch, int p, int player) {
  const int gy = player == 0 ? -1 : pitch.length() + 1;
  const int lo = pitch.width() / 2 - pitch.goal() / 2, hi = pitch.width() / 2 + pitch.goal() / 2;
  const int x = pitch.x_of(p), y = pitch.y_of(p);
  const int dx = x < lo ? lo - x : x > hi ? x - hi : 0;
  return std::max(dx, std::abs(y - gy));
}

int HandEvaluator::evaluate(const Position& pos) {
  const Pitch& pitch = pos.pitch();
  const int me = pos.side_to_move();
  const int b = pos.ball();
  const int attack = goal_distance(pitch, b, me);      // to the goal I attack
  const int defend = goal_distance(pitch, b, me ^ 1);  // to my own goal (the one O attacks)
  int s = w_.defend * defend - w_.attack * attack;
  if (attack <= 3) s += w_.near_goal * (4 - attack);
  if (defend <= 3) s -= w_.near_goal * (4 - defend);
  const unsigned legal = pos.legal_kicks();
  const int free_kicks = __builtin_popcount(legal);
  s += w_.mobility * free_kicks;
  if (free_kicks == 1) s -= w_.dead_end;
  int bounces = 0;
  for (unsigned m = legal; m; m &= m - 1) {
    const int to = b + pitch.dir_offset(__builtin_ctz(m));
    if (pos.touched(to) && !pitch.is_goal(to)) ++bounces;
  }
  if (pos.variant() != Variant::kNoBounce) s += w_.bounce * bounces;
  return s;
}

NoiseEvaluator::NoiseEvaluator(int range, uint64_t seed) : range_(range), seed_(seed) {
  if (range < 1 || range > 99999)
    throw std::invalid_argument("noise evaluation: range " + std::to_string(range) + " outside [1, 99999]");
}

int NoiseEvaluator::evaluate(const Position& pos) {
  // splitmix64's finaliser: every bit of the hash and the seed moves every bit of the score.
  uint64_t z = pos.hash() ^ (seed_ * 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return int(z % uint64_t(2 * range_ + 1)) - range_;
}

}  // namespace ps
