#include "engine/pitch.h"

#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "core/random.h"
#include "core/text.h"

namespace ps {

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::kStandard: return "standard";
    case Variant::kSingleBounce: return "single-bounce";
    case Variant::kNoBounce: return "no-bounce";
  }
  return "?";
}

Variant parse_variant(const std::string& name) {
  if (name == "standard") return Variant::kStandard;
  if (name == "single-bounce") return Variant::kSingleBounce;
  if (name == "no-bounce") return Variant::kNoBounce;
  throw std::invalid_argument("unknown variant " + quoted_text(name) +
                              " (expected standard, single-bounce or no-bounce)");
}

const Pitch& Pitch::get(int width, int length, int goal) {
  static std::mutex mu;
  static std::map<std::tuple<int, int, int>, std::unique_ptr<Pitch>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_tuple(width, length, goal);
  auto it = cache.find(key);
  if (it != cache.end()) return *it->second;
  // The goal is named only where it is at fault: `--pitch 7x8` is wrong whatever the goal.
  const std::string size = "pitch " + std::to_string(width) + "x" + std::to_string(length) + ": ";
  if (width < 4 || width % 2 != 0) throw std::invalid_argument(size + "width must be even and >= 4");
  if (length < 4 || length % 2 != 0) throw std::invalid_argument(size + "length must be even and >= 4");
  // In 64 bits: a width or length near INT_MAX (a hostile file's tag) must not overflow.
  if ((int64_t(width) + 1) * (int64_t(length) + 3) > kMaxPoints)
    throw std::invalid_argument(size + "grid (W+1)*(L+3) exceeds " + std::to_string(kMaxPoints) + " points");
  const std::string what = "pitch " + std::to_string(width) + "x" + std::to_string(length) + " goal " +
                           std::to_string(goal) + ": ";
  if (goal < 1 || goal > width - 2) throw std::invalid_argument(what + "goal must be in 1..W-2");
  if ((width - goal) % 2 != 0) throw std::invalid_argument(what + "W - G must be even");
  auto* pitch = new Pitch(width, length, goal);
  cache.emplace(key, std::unique_ptr<Pitch>(pitch));
  return *pitch;
}

std::string Pitch::name() const {
  std::string s = std::to_string(w_) + "x" + std::to_string(l_);
  if (g_ != 2) s += "g" + std::to_string(g_);
  return s;
}

Pitch::Pitch(int width, int length, int goal) : w_(width), l_(length), g_(goal) {
  n_ = (w_ + 1) * (l_ + 3);
  for (int d = 0; d < kNumDirs; ++d) offset_[d] = kDirDy[d] * (w_ + 1) + kDirDx[d];
  const int gx0 = w_ / 2 - g_ / 2, gx1 = w_ / 2 + g_ / 2;
  auto in_grid = [&](int x, int y) { return x >= 0 && x <= w_ && y >= -1 && y <= l_ + 1; };
  auto is_field_xy = [&](int x, int y) { return x >= 0 && x <= w_ && y >= 0 && y <= l_; };
  auto is_goal_xy = [&](int x, int y) { return (y == -1 || y == l_ + 1) && x >= gx0 && x <= gx1; };
  // The closed region of the pitch in doubled coordinates: the rectangle plus both pockets.
  // A segment between two ball points leaves the pitch exactly when its midpoint is outside.
  auto inside2 = [&](int x2, int y2) {
    if (x2 >= 0 && x2 <= 2 * w_ && y2 >= 0 && y2 <= 2 * l_) return true;
    bool pocket_x = x2 >= 2 * gx0 && x2 <= 2 * gx1;
    return pocket_x && ((y2 >= -2 && y2 <= 0) || (y2 >= 2 * l_ && y2 <= 2 * l_ + 2));
  };
  // A wall is a unit segment lying on the boundary of that region, except the goal mouths
  // (the open goal lines).
  auto is_wall = [&](int x, int y, int d) {
    int nx = x + kDirDx[d], ny = y + kDirDy[d];
    if (kDirDx[d] != 0 && kDirDy[d] != 0) return false;  // diagonals are never walls
    if (kDirDy[d] == 0) {  // horizontal segment at row y between x and nx
      int lo = std::min(x, nx);
      if (y == 0 || y == l_) return !(lo >= gx0 && lo < gx1);  // side of rectangle, not mouth
      if (y == -1 || y == l_ + 1) return true;                  // goal back lines
      return false;
    }
    // vertical segment at column x between y and ny
    int lo = std::min(y, ny);
    if (x == 0 || x == w_) return lo >= 0 && lo < l_;
    if (x == gx0 || x == gx1) return lo == -1 || lo == l_;  // goal pocket sides
    return false;
  };
  for (int y = -1; y <= l_ + 1; ++y) {
    for (int x = 0; x <= w_; ++x) {
      int p = point(x, y);
      if (is_field_xy(x, y)) flags_[p] |= kFieldFlag;
      if (is_goal_xy(x, y)) flags_[p] |= kGoalFlag;
      if (!is_ball_point(p)) continue;
      for (int d = 0; d < kNumDirs; ++d) {
        int nx = x + kDirDx[d], ny = y + kDirDy[d];
        if (!in_grid(nx, ny) || !(is_field_xy(nx, ny) || is_goal_xy(nx, ny))) continue;
        if (!inside2(x + nx, y + ny)) continue;
        allowed_[p] |= uint8_t(1u << d);
        if (is_wall(x, y, d)) walls_[p] |= uint8_t(1u << d);
      }
    }
  }
  // A fixed seed makes keys identical across runs, so hashes can be stored in files and
  // compared between processes.
  uint64_t state = 0x5EED'0F'BA11ULL ^ (uint64_t(w_) << 32) ^ (uint64_t(l_) << 16) ^ uint64_t(g_);
  for (auto& k : seg_key_) k = splitmix64_next(state);
  for (auto& k : ball_key_) k = splitmix64_next(state);
  side_key_ = splitmix64_next(state);
  pending_key_ = splitmix64_next(state);
  winner_key_[0] = splitmix64_next(state);
  winner_key_[1] = splitmix64_next(state);
  for (int p = 0; p < n_; ++p)
    for (int d = kE; d <= kSW; ++d)
      if (walls_[p] & (1u << d)) walls_hash_ ^= segment_key(p, d);
}

// single-file: omit begin (not needed by the exported bot; see export/single_file.h)
PitchChoice parse_pitch_spec(const std::string& text, int default_goal) {
  auto bad = [&text]() {
    throw std::invalid_argument("bad pitch " + quoted_text(text, 60) +
                                " (expected WxL or WxLgG, e.g. 8x10 or 10x14g4)");
  };
  size_t i = 0;
  auto number = [&]() {
    const size_t start = i;
    int v = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 9)
      v = v * 10 + (text[i++] - '0');
    if (i == start || (i < text.size() && text[i] >= '0' && text[i] <= '9')) bad();
    return v;
  };
  PitchChoice p;
  p.width = number();
  if (i == text.size() || (text[i] != 'x' && text[i] != 'X')) bad();
  ++i;
  p.length = number();
  p.goal = default_goal;
  if (i < text.size()) {
    if (text[i] != 'g') bad();
    ++i;
    p.goal = number();
  }
  if (i != text.size()) bad();
  Pitch::get(p.width, p.length, p.goal);  // validates
  return p;
}

bool pitch_spec_has_goal(const std::string& text) { return text.find('g') != std::string::npos; }

// single-file: omit end
}  // namespace ps
