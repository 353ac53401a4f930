#include "valuenet/value_net_eval.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ps {

ValueNetEvaluator::ValueNetEvaluator(std::shared_ptr<const ValueNet> net, std::string source)
    : net_(std::move(net)), source_(std::move(source)) {
  if (!net_) throw std::invalid_argument("nnue evaluator: no value net");
  h1_ = net_->hidden1();
  scratch_.resize(size_t(net_->scratch_size()));
}

int ValueNetEvaluator::to_score(float v) const {
  // Round half away from zero by hand: std::lround honours the rounding mode and was a
  // visible share of the teacher's profile. |v| <= 1 and value_scale <= 99999 (validated).
  const float s = v * net_->value_scale;
  return std::clamp(int(s + (s < 0 ? -0.5f : 0.5f)), -99999, 99999);
}

int ValueNetEvaluator::evaluate(const Position& pos) { return to_score(net_->evaluate(pos)); }

void ValueNetEvaluator::reset(const Position& root) {
  const Pitch& p = root.pitch();
  if (!net_->plays(p, root.variant()))
    throw std::invalid_argument("value net " + source_ + ": trained for " + net_->pitch().name() + " " +
                                variant_name(net_->variant) + ", the game is " + p.name() + " " +
                                variant_name(root.variant()));
  top_ = 0;
  if (stack_.size() < size_t(2 * h1_)) stack_.resize(size_t(2 * h1_) * 16);
  float* acc = level(0);
  const std::vector<float>& bias = net_->layers.front().bias;
  std::copy(bias.begin(), bias.end(), acc);
  std::copy(bias.begin(), bias.end(), acc + h1_);
  for (int q = 0; q < p.num_points(); ++q) {
    const unsigned drawn = unsigned(root.drawn_mask(q) & ~p.wall_dirs(q));
    for (int d = kE; d <= kSW; ++d) {
      if (!((drawn >> d) & 1)) continue;
      for (int persp = 0; persp < 2; ++persp) {
        const float* col = net_->column(segment_feature(p, q, d, persp));
        float* a = acc + persp * h1_;
        for (int j = 0; j < h1_; ++j) a[j] += col[j];
      }
    }
  }
}

void ValueNetEvaluator::push_turn(const Position& parent, const uint8_t* kicks, int n) {
  if (top_ < 0) throw std::logic_error("nnue evaluator: push_turn before reset");
  if (stack_.size() < size_t(top_ + 2) * size_t(2 * h1_)) stack_.resize(stack_.size() * 2);
  const float* from = level(top_);
  float* to = level(top_ + 1);
  std::copy(from, from + 2 * h1_, to);
  const Pitch& p = parent.pitch();
  int ball = parent.ball();
  for (int i = 0; i < n; ++i) {
    const int d = kicks[i];
    const float* c0 = net_->column(segment_feature(p, ball, d, 0));
    const float* c1 = net_->column(segment_feature(p, ball, d, 1));
    for (int j = 0; j < h1_; ++j) to[j] += c0[j];
    for (int j = 0; j < h1_; ++j) to[h1_ + j] += c1[j];
    ball += p.dir_offset(d);
  }
  ++top_;
}

void ValueNetEvaluator::pop_turn() {
  if (top_ <= 0) throw std::logic_error("nnue evaluator: pop_turn without push_turn");
  --top_;
}

float ValueNetEvaluator::value_current(const Position& pos) {
  if (top_ < 0) return net_->evaluate(pos);  // no path yet: from scratch
  const int me = pos.side_to_move();
  return net_->value_incremental(level(top_) + me * h1_, nullptr, 0, pos, me, scratch_.data());
}

float ValueNetEvaluator::value_child(const Position& parent, const uint8_t* kicks, int n,
                                     const Position& child) {
  if (top_ < 0) return net_->evaluate(child);
  const int me = child.side_to_move();
  const Pitch& p = parent.pitch();
  if (extra_.size() < size_t(n)) extra_.resize(size_t(n));
  int ball = parent.ball();
  for (int i = 0; i < n; ++i) {
    const int d = kicks[i];
    extra_[size_t(i)] = segment_feature(p, ball, d, me);
    ball += p.dir_offset(d);
  }
  return net_->value_incremental(level(top_) + me * h1_, extra_.data(), n, child, me, scratch_.data());
}

int ValueNetEvaluator::evaluate_current(const Position& pos) { return to_score(value_current(pos)); }

int ValueNetEvaluator::evaluate_child(const Position& parent, const uint8_t* kicks, int n,
                                      const Position& child) {
  return to_score(value_child(parent, kicks, n, child));
}

}  // namespace ps
