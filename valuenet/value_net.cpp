#include "valuenet/value_net.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#if defined(__GNUC__)
#define PS_VNET_INLINE inline __attribute__((always_inline))
#else
#define PS_VNET_INLINE inline
#endif
#if defined(__GNUC__) && !defined(__clang__)
#define PS_VNET_FIXED 1  // GCC's vector extensions (ternary on vectors); clang takes the general path
#define PS_VNET_LAMBDA_INLINE __attribute__((always_inline))
// The 32-byte vectors below never cross a call boundary of the default build (all inlined):
// GCC's note that passing them by value would change the ABI without AVX does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
#if defined(__x86_64__)
#define PS_VNET_AVX2 1
#endif
#endif

namespace ps {

float fast_tanh(float x) {
  // Lambert's continued fraction for tanh cut after seven terms (a [7/6] Pade approximant):
  // |error| < 1e-6 below |x| = 3 and < 1e-4 everywhere; the quotient passes 1 at |x| = 4.97,
  // where it is clamped (tanh 4.97 = 0.99990). glibc's tanhf (through expm1f) was a tenth of
  // the teacher's profile.
  const float c = std::clamp(x, -4.97f, 4.97f);
  const float x2 = c * c;
  const float num = c * (135135.0f + x2 * (17325.0f + x2 * (378.0f + x2)));
  const float den = 135135.0f + x2 * (62370.0f + x2 * (3150.0f + x2 * 28.0f));
  return std::clamp(num / den, -1.0f, 1.0f);
}

int segment_feature(const Pitch& pitch, int p, int d, int perspective) {
  if (perspective) {
    p = pitch.rotate_point(p);
    d = rotate_dir(d);
  }
  if (d < kE || d > kSW) {  // store the segment at its other end, where it points forward
    p += pitch.dir_offset(d);
    d = opposite_dir(d);
  }
  return 4 * p + (d - kE);
}

namespace {

// Calls f(cell, q) for each cell of the window around ball point `ball` that lies on the point
// grid, in `perspective`'s frame, cells ascending: q is the engine's point of that cell. Mover-
// frame point (x, y) is the engine's (W - x, L - y) for perspective 1.
template <class F>
PS_VNET_INLINE void for_window_points(const Pitch& pitch, int ball, int window, int perspective, F&& f) {
  const int side = 2 * window + 1;
  const int w = pitch.width(), l = pitch.length();
  int bx = pitch.x_of(ball), by = pitch.y_of(ball);
  if (perspective) {
    bx = w - bx;
    by = l - by;
  }
  const int y0 = std::max(by - window, -1), y1 = std::min(by + window, l + 1);
  const int x0 = std::max(bx - window, 0), x1 = std::min(bx + window, w);
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x)
      f((y - by + window) * side + (x - bx + window),
        perspective ? pitch.point(w - x, l - y) : pitch.point(x, y));
}

// The pattern of a window cell: bit k set when forward direction kE + k of the mover's frame is
// drawn at engine point q (non-wall directions `open`). Rotating the board 180 degrees turns
// direction d into d + 4 (mod 8): the mover's E..SW of perspective 1 are the engine's W..NE,
// bits 6, 7, 0, 1. With `points` (ValueNet::window_points), bit 4 when q is touched and bit 5
// when at most one of its on-pitch directions (`allowed`) is free; both are the same in either
// frame.
PS_VNET_INLINE unsigned window_pattern(const Position& pos, int q, unsigned open, unsigned allowed,
                                       int perspective, bool points) {
  const unsigned drawn = pos.drawn_mask(q);
  unsigned mine = drawn & open & 0xFFu;
  if (perspective) mine = ((mine >> 4) | (mine << 4)) & 0xFFu;
  unsigned pattern = (mine >> kE) & 15u;
  if (points) {
    const unsigned free = allowed & ~drawn & 0xFFu;
    pattern |= (unsigned(drawn != 0) << 4) | (unsigned((free & (free - 1)) == 0) << 5);
  }
  return pattern;
}

// Calls f(cell, pattern) for each window cell of pos with an input set, in `perspective`'s
// frame, cells ascending: `pattern` holds bit k when forward direction kE + k of the mover's
// frame is drawn there, and with `points` bits 4 and 5 as window_pattern's (never 0). The
// reference of ValueNet's precomputed table.
template <class F>
PS_VNET_INLINE void for_window_cells(const Position& pos, int window, int perspective, bool points, F&& f) {
  const Pitch& pitch = pos.pitch();
  for_window_points(pitch, pos.ball(), window, perspective, [&](int cell, int q) {
    const unsigned pattern =
        window_pattern(pos, q, ~unsigned(pitch.wall_dirs(q)), pitch.allowed_dirs(q), perspective, points);
    if (pattern) f(cell, pattern);
  });
  static_assert(kSW == kE + 3 && kW == kE + 4, "the window's patterns assume E, SE, S, SW in a row");
}

}  // namespace

template <class F>
PS_VNET_INLINE void ValueNet::for_window_patterns(const Position& pos, int perspective, F&& f) const {
  const size_t at = size_t(perspective) * size_t(pos.pitch().num_points()) + size_t(pos.ball());
  const WindowCell* c = window_cells_.data() + window_start_[at];
  const WindowCell* end = window_cells_.data() + window_start_[at + 1];
  for (; c != end; ++c) {
    const unsigned pattern = window_pattern(pos, c->point, c->open, c->allowed, perspective, window_points);
    if (pattern) f(c->cell, pattern);
  }
}

namespace {

// Calls f(feature) for each active ball-window feature of pos in `perspective`'s frame
// (ascending).
template <class F>
void for_window_features(const Position& pos, int window, int perspective, bool points, F&& f) {
  const int base = 5 * pos.pitch().num_points();
  const int k_cell = ValueNet::cell_inputs(points);
  for_window_cells(pos, window, perspective, points, [&](int cell, unsigned pattern) {
    for (int k = 0; k < k_cell; ++k)
      if ((pattern >> k) & 1) f(base + k_cell * cell + k);
  });
}

}  // namespace

void window_features(const Position& pos, int window, int perspective, std::vector<int>& out, bool points) {
  if (window <= 0) return;
  for_window_features(pos, window, perspective, points, [&](int f) { out.push_back(f); });
}

// The incremental evaluation's kernels (ValueNet::value_incremental). The fixed-size one is
// written as plain loops over local arrays of compile-time length: the compiler keeps them in
// vector registers (two AVX2 or four SSE registers for 16 floats) and unrolls the layers. It
// adds exactly what the general path adds, in the same order per output, so the vector width
// changes no bit: the accumulator, the turn's columns, one pattern column per drawn window cell,
// the ball's column; layer 2 as bias + sum over inputs k in order (an input that the clipped
// ReLU zeroed adds a zero, which the general path skips); the output as bias + sum in order.
struct ValueNetKernels {
  // The window's columns summed in a local array of H floats, stored once: the compiler keeps it
  // in registers (summing into `sum` in memory stored and reloaded it per feature, about half of
  // the window's cost). One add per drawn cell: the sum of its pattern's columns is precomputed.
  template <int H>
  static void add_window_fixed(const ValueNet& net, const float* pattern_sums, const Position& pos,
                               int perspective, float* sum) {
    float acc[H];
    std::copy(sum, sum + H, acc);
    const size_t per_cell = size_t(net.cell_patterns());
    net.for_window_patterns(pos, perspective, [&](int cell, unsigned pattern) {
      const float* col = pattern_sums + (size_t(cell) * per_cell + pattern) * H;
      for (int j = 0; j < H; ++j) acc[j] += col[j];
    });
    std::copy(acc, acc + H, sum);
  }

  static float general(const ValueNet& net, const float* acc, const int* extra, int n, const Position& pos,
                       int persp, float* scratch) {
    const int h1 = net.hidden1();
    float* t = scratch + 2 * net.max_width();
    std::copy(acc, acc + h1, t);
    for (int i = 0; i < n; ++i) {
      const float* col = net.column(extra[i]);
      for (int j = 0; j < h1; ++j) t[j] += col[j];
    }
    net.add_window(pos, persp, t);
    return net.forward(t, ball_feature(pos.pitch(), pos.ball(), persp), scratch);
  }

#ifdef PS_VNET_FIXED
  // 8 floats as a GCC vector: one AVX register, or two SSE registers in the default build; each
  // lane is the same scalar float operation either way.
  typedef float V8 __attribute__((vector_size(32)));
  static PS_VNET_INLINE V8 load8(const float* p) {
    V8 v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  // std::clamp(x, 0, 1) per lane: (x < 0) ? 0 : (1 < x) ? 1 : x. In place: a 32-byte vector
  // passed by value draws GCC's ABI note in the default build, which the pragma does not silence.
  static PS_VNET_INLINE void clip01(V8& x) {
    const V8 zero = {}, one = zero + 1.0f;
    x = x < zero ? zero : x;
    x = one < x ? one : x;
  }

  template <int H1, int H2>
  static PS_VNET_INLINE float fixed(const ValueNet& net, const float* acc, const int* extra, int n,
                                    const Position& pos, int persp, float*) {
    static_assert(H1 % 8 == 0 && H2 % 8 == 0, "whole vectors");
    constexpr int N1 = H1 / 8, N2 = H2 / 8;
    V8 s[N1];
    for (int r = 0; r < N1; ++r) s[r] = load8(acc + 8 * r);
    for (int i = 0; i < n; ++i) {
      const float* col = net.column(extra[i]);
      for (int r = 0; r < N1; ++r) s[r] += load8(col + 8 * r);
    }
    if (net.window > 0) {
      const float* sums = net.pattern_sums_.data();
      const size_t per_cell = size_t(net.cell_patterns());
      net.for_window_patterns(pos, persp, [&](int cell, unsigned pattern) PS_VNET_LAMBDA_INLINE {
        const float* col = sums + (size_t(cell) * per_cell + pattern) * H1;
        for (int r = 0; r < N1; ++r) s[r] += load8(col + 8 * r);
      });
    }
    const float* ball = net.column(ball_feature(pos.pitch(), pos.ball(), persp));
    V8 a[N1];
    for (int r = 0; r < N1; ++r) {
      a[r] = s[r] + load8(ball + 8 * r);
      clip01(a[r]);
    }
    const float* t2 = net.transposed_[1].data();
    V8 b[N2];
    for (int r = 0; r < N2; ++r) b[r] = load8(net.layers[1].bias.data() + 8 * r);
    for (int k = 0; k < H1; ++k) {
      const float ak = a[k / 8][k % 8];
      for (int r = 0; r < N2; ++r) b[r] += load8(t2 + k * H2 + 8 * r) * ak;
    }
    const float* t3 = net.transposed_[2].data();
    float c = net.layers[2].bias[0];
    for (int r = 0; r < N2; ++r) {
      V8 h = b[r];
      clip01(h);
      for (int l = 0; l < 8; ++l) c += t3[8 * r + l] * h[l];
    }
    return fast_tanh(c);
  }

  static float k16(const ValueNet& net, const float* acc, const int* extra, int n, const Position& pos,
                   int persp, float* scratch) {
    return fixed<16, 16>(net, acc, extra, n, pos, persp, scratch);
  }
  static float k32(const ValueNet& net, const float* acc, const int* extra, int n, const Position& pos,
                   int persp, float* scratch) {
    return fixed<32, 32>(net, acc, extra, n, pos, persp, scratch);
  }
#ifdef PS_VNET_AVX2
  // AVX2 without FMA: a fused multiply-add would round once where the other kernels round twice.
  __attribute__((target("avx2"))) static float k16_avx2(const ValueNet& net, const float* acc,
                                                        const int* extra, int n, const Position& pos,
                                                        int persp, float* scratch) {
    return fixed<16, 16>(net, acc, extra, n, pos, persp, scratch);
  }
  __attribute__((target("avx2"))) static float k32_avx2(const ValueNet& net, const float* acc,
                                                        const int* extra, int n, const Position& pos,
                                                        int persp, float* scratch) {
    return fixed<32, 32>(net, acc, extra, n, pos, persp, scratch);
  }
#endif
#endif  // PS_VNET_FIXED

  // The kernels that can run this net on this CPU, the fastest last.
  static std::vector<std::pair<const char*, ValueNet::Kernel>> available(const ValueNet& net) {
    std::vector<std::pair<const char*, ValueNet::Kernel>> k{{"general", &general}};
#ifdef PS_VNET_FIXED
    const int h1 = net.hidden1();
    const bool two_hidden = net.layers.size() == 3 && net.layers[1].out == h1;
    const bool patterns = net.window == 0 || !net.pattern_sums_.empty();
    if (!two_hidden || !patterns || (h1 != 16 && h1 != 32)) return k;
    k.emplace_back(h1 == 16 ? "16x16" : "32x32", h1 == 16 ? &k16 : &k32);
#ifdef PS_VNET_AVX2
    if (__builtin_cpu_supports("avx2"))
      k.emplace_back(h1 == 16 ? "16x16+avx2" : "32x32+avx2", h1 == 16 ? &k16_avx2 : &k32_avx2);
#endif
#endif
    return k;
  }

  static void choose(ValueNet& net) {
    const auto k = available(net);
    net.kernel_ = k.back().second;
    net.kernel_name_ = k.back().first;
  }
};

void ValueNet::add_window(const Position& pos, int perspective, float* sum) const {
  if (window <= 0) return;
  const int h1 = hidden1();
  if (!pattern_sums_.empty()) {
    if (h1 == 16)
      return ValueNetKernels::add_window_fixed<16>(*this, pattern_sums_.data(), pos, perspective, sum);
    if (h1 == 32)
      return ValueNetKernels::add_window_fixed<32>(*this, pattern_sums_.data(), pos, perspective, sum);
    const size_t per_cell = size_t(cell_patterns());
    return for_window_patterns(pos, perspective, [&](int cell, unsigned pattern) {
      const float* col = pattern_sums_.data() + (size_t(cell) * per_cell + pattern) * size_t(h1);
      for (int j = 0; j < h1; ++j) sum[j] += col[j];
    });
  }
  for_window_features(pos, window, perspective, window_points, [&](int f) {
    const float* col = column(f);
    for (int j = 0; j < h1; ++j) sum[j] += col[j];
  });
}

// single-file: omit begin (tests and benchmarks only)
std::vector<std::string> ValueNet::kernels() const {
  std::vector<std::string> names;
  for (const auto& k : ValueNetKernels::available(*this)) names.push_back(k.first);
  return names;
}

void ValueNet::use_kernel(const std::string& name) {
  for (const auto& k : ValueNetKernels::available(*this))
    if (name == k.first) {
      kernel_ = k.second;
      kernel_name_ = k.first;
      return;
    }
  throw std::invalid_argument("value net: no kernel '" + name + "' for this net on this CPU");
}
// single-file: omit end

void value_features(const Position& pos, std::vector<int>& out, int window, bool points) {
  out.clear();
  const Pitch& pitch = pos.pitch();
  const int me = pos.side_to_move();
  for (int p = 0; p < pitch.num_points(); ++p) {
    const unsigned mine = unsigned(pos.drawn_mask(p) & ~pitch.wall_dirs(p));
    for (int d = kE; d <= kSW; ++d)
      if ((mine >> d) & 1) out.push_back(segment_feature(pitch, p, d, me));
  }
  std::sort(out.begin(), out.end());
  window_features(pos, window, me, out, points);
  out.push_back(ball_feature(pitch, pos.ball(), me));
}

void ValueNet::validate() const {
  auto bad = [](const std::string& what) { throw std::invalid_argument(what); };
  const Pitch& p = pitch();  // throws for an impossible pitch
  if (layers.size() < 2) bad("a value net needs at least 2 layers, has " + std::to_string(layers.size()));
  if (window < 0 || window > kMaxWindow)
    bad("ball window " + std::to_string(window) + " out of range [0, " + std::to_string(kMaxWindow) + "]");
  if (window_points && window == 0) bad("window points need a ball window (radius >= 1)");
  if (layers.front().in != num_features(p, window, window_points))
    bad("the first layer has " + std::to_string(layers.front().in) + " inputs, pitch " + p.name() +
        (window ? " with ball window " + std::to_string(window) : std::string()) +
        (window_points ? " and its points" : "") + " needs " +
        std::to_string(num_features(p, window, window_points)));
  if (layers.back().out != 1) bad("the last layer must have 1 output");
  for (size_t i = 0; i < layers.size(); ++i) {
    const DenseLayer& l = layers[i];
    const std::string name = "layer " + std::to_string(i + 1);
    if (l.in < 1 || l.out < 1 || l.in > 100000 || l.out > 4096) bad(name + ": bad size");
    if (i > 0 && l.in != layers[i - 1].out)
      bad(name + " has " + std::to_string(l.in) + " inputs, the layer before has " +
          std::to_string(layers[i - 1].out) + " outputs");
    if (l.weight.size() != size_t(l.in) * size_t(l.out) || l.bias.size() != size_t(l.out))
      bad(name + ": weight or bias size does not match its shape");
    for (float w : l.weight)
      if (!std::isfinite(w)) bad(name + ": a weight is not finite");
    for (float b : l.bias)
      if (!std::isfinite(b)) bad(name + ": a bias is not finite");
  }
  if (!(std::isfinite(value_scale) && value_scale > 0 && value_scale <= 99999))
    bad("value_scale must be in (0, 99999]");
}

void ValueNet::finalize() {
  const DenseLayer& l = layers.front();
  columns_.assign(size_t(l.in) * size_t(l.out), 0.0f);
  for (int j = 0; j < l.out; ++j)
    for (int f = 0; f < l.in; ++f)
      columns_[size_t(f) * size_t(l.out) + size_t(j)] = l.weight[size_t(j) * size_t(l.in) + size_t(f)];
  pattern_sums_.clear();
  const int k_cell = cell_inputs(window_points);
  const unsigned per_cell = unsigned(cell_patterns());
  if (window > 0 && l.out <= kMaxPatternHidden) {
    const int side = 2 * window + 1;
    const int base = 5 * pitch().num_points();
    pattern_sums_.assign(size_t(side) * size_t(side) * per_cell * size_t(l.out), 0.0f);
    for (int cell = 0; cell < side * side; ++cell)
      for (unsigned pattern = 1; pattern < per_cell; ++pattern) {
        float* to = pattern_sums_.data() + (size_t(cell) * per_cell + pattern) * size_t(l.out);
        for (int k = 0; k < k_cell; ++k)
          if ((pattern >> k) & 1) {
            const float* col = column(base + k_cell * cell + k);
            for (int j = 0; j < l.out; ++j) to[j] += col[j];
          }
      }
  }
  transposed_.assign(layers.size(), {});
  for (size_t i = 1; i < layers.size(); ++i) {
    const DenseLayer& d = layers[i];
    std::vector<float>& t = transposed_[i];
    t.resize(d.weight.size());
    for (int o = 0; o < d.out; ++o)
      for (int k = 0; k < d.in; ++k)
        t[size_t(k) * size_t(d.out) + size_t(o)] = d.weight[size_t(o) * size_t(d.in) + size_t(k)];
  }
  window_cells_.clear();
  window_start_.clear();
  if (window > 0) {
    const Pitch& pi = pitch();
    const int np = pi.num_points();
    window_start_.push_back(0);
    for (int persp = 0; persp < 2; ++persp)
      for (int ball = 0; ball < np; ++ball) {
        // for_window_cells' cells of a position with this ball, in its order.
        for_window_points(pi, ball, window, persp, [&](int cell, int q) {
          window_cells_.push_back(
              {uint16_t(q), uint16_t(cell), uint8_t(~pi.wall_dirs(q) & 0xFFu), pi.allowed_dirs(q)});
        });
        window_start_.push_back(uint32_t(window_cells_.size()));
      }
  }
  ValueNetKernels::choose(*this);
}

int ValueNet::max_width() const {
  int m = 0;
  for (const DenseLayer& l : layers) m = std::max(m, l.out);  // later layers' inputs are outputs
  return m;
}

float ValueNet::forward(const float* accumulator, int ball, float* scratch) const {
  const int h1 = hidden1();
  float* a = scratch;
  float* b = scratch + max_width();
  const float* col = column(ball);
  for (int j = 0; j < h1; ++j) a[j] = std::clamp(accumulator[j] + col[j], 0.0f, 1.0f);
  for (size_t i = 1; i < layers.size(); ++i) {
    const DenseLayer& l = layers[i];
    const bool last = i + 1 == layers.size();
    const float* t = transposed_[i].data();
    const int out = l.out;
    std::copy(l.bias.begin(), l.bias.end(), b);
    for (int k = 0; k < l.in; ++k) {
      const float ak = a[k];
      if (ak == 0.0f) continue;
      const float* row = t + size_t(k) * size_t(out);
      for (int o = 0; o < out; ++o) b[o] += row[o] * ak;
    }
    if (!last)
      for (int o = 0; o < out; ++o) b[o] = std::clamp(b[o], 0.0f, 1.0f);
    std::swap(a, b);
  }
  return fast_tanh(a[0]);
}

float ValueNet::evaluate(const Position& pos) const {
  // Per-thread buffers: no allocation per call once warm (the benchmark's "from scratch" is
  // then the sum over the drawn segments, not the allocator).
  thread_local std::vector<int> features;
  thread_local std::vector<float> acc, scratch;
  value_features(pos, features, window, window_points);
  const int h1 = hidden1();
  acc.assign(layers.front().bias.begin(), layers.front().bias.end());
  for (size_t i = 0; i + 1 < features.size(); ++i) {
    const float* col = column(features[i]);
    for (int j = 0; j < h1; ++j) acc[size_t(j)] += col[j];
  }
  scratch.resize(size_t(2 * max_width()));
  return forward(acc.data(), features.back(), scratch.data());
}

// single-file: omit begin (tests and benchmarks only)
ValueNet random_value_net(const Pitch& pitch, Variant variant, const std::vector<int>& hidden, uint64_t seed,
                          int window, bool window_points) {
  ValueNet net;
  net.width = pitch.width();
  net.length = pitch.length();
  net.goal = pitch.goal();
  net.variant = variant;
  net.window = window;
  net.window_points = window_points;
  std::mt19937_64 rng(seed);
  const int features = ValueNet::num_features(pitch, window, window_points);
  int in = features;
  std::vector<int> sizes = hidden;
  sizes.push_back(1);
  for (int out : sizes) {
    DenseLayer l;
    l.in = in;
    l.out = out;
    // Scaled so that a first layer over ~100 active inputs stays in the clipped ReLU's range.
    const float r = in == features ? 0.1f : 1.0f / std::sqrt(float(in));
    std::uniform_real_distribution<float> u(-r, r);
    for (int i = 0; i < in * out; ++i) l.weight.push_back(u(rng));
    for (int i = 0; i < out; ++i) l.bias.push_back(0.5f * u(rng) + (in == features ? 0.3f : 0.0f));
    net.layers.push_back(std::move(l));
    in = out;
  }
  net.validate();
  net.finalize();
  return net;
}
// single-file: omit end

}  // namespace ps
