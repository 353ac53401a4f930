#include "train/value_trainer.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <numeric>
#include <random>
#include <stdexcept>

#include "core/field_check.h"
#include "engine/record.h"
#include "train/window.h"
#include "valuenet/value_net.h"
#include "valuenet/value_net_file.h"

namespace ps {

void ValueTrainConfig::validate() const {
  const FieldCheck check("train-value: ");
  check(!hidden.empty() && hidden.size() <= 8, "hidden", "must list 1 to 8 layer sizes");
  for (int h : hidden) check(h >= 1 && h <= 1024, "hidden", "layer sizes must be in [1, 1024]");
  check(target == "result" || target == "root" || target == "mix", "target",
        "must be result, root or mix, not '" + target + "'");
  check(steps >= 0, "steps", "must be >= 0");
  check(batch_size >= 1 && batch_size <= 1 << 16, "batch", "must be in [1, 65536]");
  check(lr > 0 && lr <= 10, "lr", "must be > 0 and <= 10");
  check(weight_decay >= 0 && std::isfinite(weight_decay), "weight_decay", "must be >= 0");
  check(holdout >= 0 && holdout <= 0.5, "holdout", "must be in [0, 0.5]");
  check(max_samples >= 1, "max_samples", "must be >= 1");
  check(log_interval >= 1, "log_interval", "must be >= 1");
  check(std::isfinite(value_scale) && value_scale > 0 && value_scale <= 99999, "value_scale",
        "must be in (0, 99999]");
  check(threads >= 0, "threads", "must be >= 0");
  check(window >= 0 && window <= ValueNet::kMaxWindow, "window",
        "must be in [0, " + std::to_string(ValueNet::kMaxWindow) + "]");
  check(!window_points || window > 0 || !init.empty(), "window_points", "needs a ball window (window >= 1)");
  // A position has at least one turn left (the game's last turn), so 0 would label nothing.
  check(result_within == -1 || (result_within >= 1 && result_within <= 1000), "result_within",
        "must be -1 (never) or in [1, 1000] (the last position before the end has 1 turn left)");
}

ValueTrainConfig parse_value_train_config(ConfigReader& r, ValueTrainConfig c) {
  r.read(field("hidden", c.hidden), field("target", c.target), field("steps", c.steps),
         field("batch", c.batch_size), field("lr", c.lr), field("weight_decay", c.weight_decay),
         field("seed", c.seed), field("holdout", c.holdout), field("max_samples", c.max_samples),
         field("mirror", c.mirror), field("log_interval", c.log_interval),
         field("value_scale", c.value_scale), field("threads", c.threads), field("window", c.window),
         field("window_points", c.window_points), field("result_within", c.result_within));
  return r.finish_validated(c);
}

namespace {

// One training row: active features of the position and of its mirror image, result, root value.
struct Row {
  uint32_t at, mirror_at;  // offsets into Rows::features
  uint16_t n, mirror_n;
  float result, root;
  int8_t ball_side;    // +1: the ball is nearer the goal the mover attacks, -1: its own, 0: level
  uint16_t turns_left;  // turns from this position to the end of the game
};

struct Rows {
  int window = 0;
  bool points = false;
  std::vector<uint16_t> features;
  std::vector<Row> rows;
  void add(const Position& pos, const TrainingSample& s, std::vector<int>& buf) {
    Row r;
    value_features(pos, buf, window, points);
    r.at = uint32_t(features.size());
    r.n = uint16_t(buf.size());
    features.insert(features.end(), buf.begin(), buf.end());
    value_features(pos.mirrored(), buf, window, points);
    r.mirror_at = uint32_t(features.size());
    r.mirror_n = uint16_t(buf.size());
    features.insert(features.end(), buf.begin(), buf.end());
    r.result = float(s.result);
    r.root = std::clamp(s.root_value, -1.0f, 1.0f);
    // Mover frame: the side to move attacks north (row -1), so a row above the middle is nearer.
    const Pitch& pitch = pos.pitch();
    const int b = pos.side_to_move() ? pitch.rotate_point(pos.ball()) : pos.ball();
    const int twice = pitch.length() - 2 * pitch.y_of(b);
    r.ball_side = int8_t(twice > 0 ? 1 : twice < 0 ? -1 : 0);
    r.turns_left = s.turns_left;
    rows.push_back(r);
  }
};

struct MlpImpl : torch::nn::Module {
  std::vector<torch::nn::Linear> layers;
  MlpImpl(int in, const std::vector<int>& hidden) {
    std::vector<int> sizes = hidden;
    sizes.push_back(1);
    for (size_t i = 0; i < sizes.size(); ++i) {
      layers.push_back(register_module("fc" + std::to_string(i), torch::nn::Linear(in, sizes[i])));
      in = sizes[i];
    }
  }
  torch::Tensor forward(torch::Tensor x) {
    for (size_t i = 0; i + 1 < layers.size(); ++i) x = torch::clamp(layers[i]->forward(x), 0.0, 1.0);
    return torch::tanh(layers.back()->forward(x)).squeeze(1);
  }
};
TORCH_MODULE(Mlp);

float target_of(const Row& r, const ValueTrainConfig& cfg) {
  if (cfg.target == "result" || int(r.turns_left) <= cfg.result_within) return r.result;
  if (cfg.target == "root") return r.root;
  return 0.5f * (r.result + r.root);
}

// Dense inputs of rows [begin, end) of `order`, each mirrored when `mirror` says so.
torch::Tensor inputs(const Rows& data, const std::vector<uint32_t>& idx, size_t begin, size_t end,
                     int num_features, const std::vector<uint8_t>* mirror) {
  torch::Tensor x = torch::zeros({int64_t(end - begin), num_features});
  float* p = x.data_ptr<float>();
  for (size_t i = begin; i < end; ++i) {
    const Row& r = data.rows[idx[i]];
    const bool m = mirror && (*mirror)[i - begin];
    const uint32_t at = m ? r.mirror_at : r.at;
    const uint16_t n = m ? r.mirror_n : r.n;
    float* row = p + (i - begin) * size_t(num_features);
    for (uint16_t k = 0; k < n; ++k) row[data.features[at + k]] = 1.0f;
  }
  return x;
}

ValueTrainMetrics evaluate_holdout(Mlp& net, const Rows& data, const std::vector<uint32_t>& idx,
                                   int num_features, const ValueTrainConfig& cfg) {
  ValueTrainMetrics m;
  if (idx.empty()) return m;
  torch::NoGradGuard no_grad;
  net->eval();
  double se = 0, se_result = 0, se_late = 0;
  int64_t right = 0, right_late = 0, late = 0;
  for (size_t b = 0; b < idx.size(); b += 4096) {
    const size_t e = std::min(idx.size(), b + 4096);
    const torch::Tensor v = net->forward(inputs(data, idx, b, e, num_features, nullptr));
    const float* pv = v.data_ptr<float>();
    for (size_t i = b; i < e; ++i) {
      const Row& r = data.rows[idx[i]];
      const double y = pv[i - b];
      const double t = target_of(r, cfg);
      se += (y - t) * (y - t);
      se_result += (y - r.result) * (y - r.result);
      right += (y > 0) == (r.result > 0);
      if (r.turns_left <= ValueBaselines::late_turns) {
        ++late;
        se_late += (y - r.result) * (y - r.result);
        right_late += (y > 0) == (r.result > 0);
      }
    }
  }
  net->train();
  m.holdout_mse = se / double(idx.size());
  m.holdout_mse_result = se_result / double(idx.size());
  m.holdout_sign_accuracy = double(right) / double(idx.size());
  m.holdout_samples = int64_t(idx.size());
  if (late > 0) {
    m.holdout_late_mse_result = se_late / double(late);
    m.holdout_late_sign_accuracy = double(right_late) / double(late);
  }
  m.holdout_late_samples = late;
  return m;
}

// 1 when the prediction's sign matches the result's, 0.5 for a prediction of 0.
double sign_score(double prediction, float result) {
  if (prediction == 0) return 0.5;
  return (prediction > 0) == (result > 0) ? 1.0 : 0.0;
}

ValueBaselines baselines_of(const Rows& data, const std::vector<uint32_t>& idx) {
  ValueBaselines b;
  if (idx.empty()) return b;
  double root = 0, ball = 0, late_root = 0;
  int64_t late = 0;
  for (uint32_t i : idx) {
    const Row& r = data.rows[i];
    root += sign_score(r.root, r.result);
    ball += sign_score(r.ball_side, r.result);
    if (r.turns_left <= ValueBaselines::late_turns) {
      ++late;
      late_root += sign_score(r.root, r.result);
    }
  }
  const double n = double(idx.size());
  b.root_sign_accuracy = root / n;
  b.ball_sign_accuracy = ball / n;
  b.late_share = double(late) / n;
  b.late_root_sign_accuracy = late ? late_root / double(late) : 0;
  return b;
}

// The samples of the window's games on the newest game's pitch and variant (others are counted
// in result.skipped_games), split by game: a share cfg.holdout of the games, drawn with rng, is
// held out. Each game is replayed once.
struct SplitRows {
  Rows data;
  std::vector<uint32_t> train_idx, held_idx;
};
SplitRows split_rows(const TrainingWindow& window, const Pitch& pitch, Variant variant, int ball_window,
                     bool points, double holdout, std::mt19937_64& rng, ValueTrainResult& result) {
  std::vector<uint32_t> game_order(window.games.size());
  std::iota(game_order.begin(), game_order.end(), 0u);
  std::shuffle(game_order.begin(), game_order.end(), rng);
  // Games of other rules leave first, so that the held-out share is of the games trained on
  // (it was of all games: 2 of 4 games matching, holdout 0.5, held out none).
  std::vector<uint32_t> matching;
  for (uint32_t g : game_order) {
    const GameData& gd = window.games[g];
    if (gd.width != pitch.width() || gd.length != pitch.length() || gd.goal != pitch.goal() ||
        gd.variant != variant)
      ++result.skipped_games;
    else matching.push_back(g);
  }
  const size_t held_games = matching.size() >= 2 ? size_t(std::ceil(holdout * double(matching.size()))) : 0;
  SplitRows out;
  out.data.window = ball_window;
  out.data.points = points;
  std::vector<int> buf;
  for (size_t gi = 0; gi < matching.size(); ++gi) {
    const GameData& gd = window.games[matching[gi]];
    const Game full = parse_record(pitch, variant, gd.record);
    std::vector<const TrainingSample*> samples;
    for (const TrainingSample& s : gd.samples) samples.push_back(&s);
    std::stable_sort(samples.begin(), samples.end(),
                     [](auto* a, auto* b) { return a->turn_index < b->turn_index; });
    Game g(pitch, variant);
    size_t at = 0;
    for (const TrainingSample* s : samples) {
      while (at < size_t(s->turn_index) && at < full.turns().size()) g.play_turn(full.turns()[at++]);
      if (g.position().game_over() || !g.position().turn_start()) continue;
      (gi < held_games ? out.held_idx : out.train_idx).push_back(uint32_t(out.data.rows.size()));
      out.data.add(g.position(), *s, buf);
    }
    ++result.games;
  }
  return out;
}

// The trained layers as a value-net file's contents.
ValueNet value_net_of(Mlp& net, const Pitch& pitch, Variant variant, int window, bool points,
                      float value_scale) {
  ValueNet out;
  out.window = window;
  out.window_points = points;
  out.width = pitch.width();
  out.length = pitch.length();
  out.goal = pitch.goal();
  out.variant = variant;
  out.value_scale = value_scale;
  for (const torch::nn::Linear& l : net->layers) {
    DenseLayer d;
    const torch::Tensor w = l->weight.detach().contiguous();
    const torch::Tensor b = l->bias.detach().contiguous();
    d.out = int(w.size(0));
    d.in = int(w.size(1));
    d.weight.assign(w.data_ptr<float>(), w.data_ptr<float>() + w.numel());
    d.bias.assign(b.data_ptr<float>(), b.data_ptr<float>() + b.numel());
    out.layers.push_back(std::move(d));
  }
  return out;
}

// Copies a value net's layers into `net` (same shapes: the net was built from its sizes, except
// that the first layer may have more inputs, the ball window's or the window's points, which
// start at weight 0). `points`: the trained net's window_points (its window is the init net's,
// or the init net has none).
void load_layers(Mlp& net, const ValueNet& from, bool points) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < net->layers.size(); ++i) {
    const DenseLayer& d = from.layers[i];
    torch::Tensor w = net->layers[i]->weight;
    const torch::Tensor src = torch::from_blob(const_cast<float*>(d.weight.data()), {d.out, d.in});
    if (i == 0 && from.window > 0 && points != from.window_points) {
      // The init net's window features move to the wider cells: base + 4c + k -> base + 6c + k.
      w.zero_();
      const int base = 5 * from.pitch().num_points();
      const int k_from = ValueNet::cell_inputs(from.window_points), k_to = ValueNet::cell_inputs(points);
      w.narrow(1, 0, base).copy_(src.narrow(1, 0, base));
      for (int c = 0; c * k_from + base < d.in; ++c)
        w.narrow(1, base + k_to * c, k_from).copy_(src.narrow(1, base + k_from * c, k_from));
    } else {
      if (w.size(1) > d.in) {
        w.zero_();
        w = w.narrow(1, 0, d.in);
      }
      w.copy_(src);
    }
    net->layers[i]->bias.copy_(torch::from_blob(const_cast<float*>(d.bias.data()), {d.out}));
  }
}

}  // namespace

// Long (about 85 lines): the phases (rows, model, steps with early stopping, file) share the rows,
// the model and the optimizer; the rows, the evaluation and the file's contents are their own functions.
ValueTrainResult train_value_net(const ValueTrainConfig& cfg, const std::string& data_dir,
                                 const std::string& out_path, const ValueTrainProgress& progress) {
  cfg.validate();
  const auto t0 = std::chrono::steady_clock::now();
  ValueTrainResult result;
  // The init net first: a bad one is refused before the data are read.
  ValueNet init;
  if (!cfg.init.empty()) init = load_value_net(cfg.init, "train-value --init");
  TrainConfig::Window all;
  all.min_samples = all.max_samples = cfg.max_samples;
  TrainingWindow window = load_window(all, data_dir);
  // The rules trained: the init net's, else the newest game's.
  const GameData& newest = window.games.front();
  const Pitch& pitch = cfg.init.empty() ? Pitch::get(newest.width, newest.length, newest.goal) : init.pitch();
  const Variant variant = cfg.init.empty() ? newest.variant : init.variant;
  result.pitch = pitch.name();
  result.variant = variant_name(variant);
  if (!cfg.init.empty() && init.window > 0 && cfg.window > 0 && cfg.window != init.window)
    throw std::invalid_argument("train-value: window " + std::to_string(cfg.window) + ", but init " +
                                cfg.init + " has a ball window of " + std::to_string(init.window) +
                                " (give that radius, or none)");
  const int ball_window = cfg.window > 0 ? cfg.window : cfg.init.empty() ? 0 : init.window;
  const bool points = cfg.window_points || (!cfg.init.empty() && init.window_points);
  if (points && ball_window == 0)
    throw std::invalid_argument(
        "train-value: window points need a ball window (--window R, or an init net with one)");
  const int num_features = ValueNet::num_features(pitch, ball_window, points);
  result.window = ball_window;
  result.window_points = points;

  std::mt19937_64 rng(cfg.seed);
  SplitRows split = split_rows(window, pitch, variant, ball_window, points, cfg.holdout, rng, result);
  const Rows& data = split.data;
  const std::vector<uint32_t>& train_idx = split.train_idx;
  const std::vector<uint32_t>& held_idx = split.held_idx;
  if (result.games == 0 && !cfg.init.empty())
    throw std::invalid_argument("train-value: init " + cfg.init + " was trained for " + result.pitch + " " +
                                result.variant + ", and " + data_dir + " holds no game of those rules (" +
                                std::to_string(result.skipped_games) + " of other rules)");
  if (train_idx.empty())
    throw std::runtime_error(data_dir + ": no training samples on " + result.pitch + " " + result.variant +
                             " outside the held-out slice");
  result.train_samples = int64_t(train_idx.size());
  result.holdout_samples = int64_t(held_idx.size());

  // The starting net's shape: the init net's, else the config's.
  std::vector<int> hidden = cfg.hidden;
  float value_scale = cfg.value_scale;
  if (!cfg.init.empty()) {
    hidden.clear();
    for (size_t i = 0; i + 1 < init.layers.size(); ++i) hidden.push_back(init.layers[i].out);
    value_scale = init.value_scale;
  }

  if (cfg.threads > 0) torch::set_num_threads(cfg.threads);
  torch::manual_seed(cfg.seed);
  Mlp net(num_features, hidden);
  if (!cfg.init.empty()) load_layers(net, init, points);
  torch::optim::Adam opt(net->parameters(),
                         torch::optim::AdamOptions(cfg.lr).weight_decay(cfg.weight_decay));
  result.baselines = baselines_of(data, held_idx);
  result.initial = evaluate_holdout(net, data, held_idx, num_features, cfg);
  if (progress) progress(result.initial);
  // Early stopping: a copy of the weights of the best held-out evaluation so far.
  result.best = result.initial;
  std::vector<torch::Tensor> best_params;
  auto keep_best = [&] {
    torch::NoGradGuard no_grad;
    best_params.clear();
    for (const torch::Tensor& t : net->parameters()) best_params.push_back(t.detach().clone());
  };
  keep_best();
  std::vector<uint32_t> batch(size_t(cfg.batch_size));
  std::vector<uint8_t> mirror(size_t(cfg.batch_size));
  double loss_sum = 0;
  int64_t loss_n = 0;
  result.final = result.initial;
  for (int64_t step = 1; step <= cfg.steps; ++step) {
    for (size_t i = 0; i < batch.size(); ++i) {
      batch[i] = train_idx[rng() % train_idx.size()];
      mirror[i] = cfg.mirror ? uint8_t(rng() & 1) : 0;
    }
    const torch::Tensor x = inputs(data, batch, 0, batch.size(), num_features, &mirror);
    torch::Tensor y = torch::empty({int64_t(batch.size())});
    float* py = y.data_ptr<float>();
    for (size_t i = 0; i < batch.size(); ++i) py[i] = target_of(data.rows[batch[i]], cfg);
    const torch::Tensor loss = torch::mse_loss(net->forward(x), y);
    opt.zero_grad();
    loss.backward();
    opt.step();
    loss_sum += loss.item<double>();
    ++loss_n;
    if (step % cfg.log_interval == 0 || step == cfg.steps) {
      ValueTrainMetrics m = evaluate_holdout(net, data, held_idx, num_features, cfg);
      m.step = step;
      m.train_loss = loss_sum / double(loss_n);
      loss_sum = 0;
      loss_n = 0;
      result.final = m;
      // Without a held-out slice the newest weights are kept.
      if (held_idx.empty() || m.holdout_mse < result.best.holdout_mse) {
        result.best = m;
        keep_best();
      }
      if (progress) progress(m);
    }
  }
  {
    torch::NoGradGuard no_grad;
    const std::vector<torch::Tensor> params = net->parameters();
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(best_params[i]);
  }

  const ValueNet out = value_net_of(net, pitch, variant, ball_window, points, value_scale);
  save_value_net(out, out_path);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace ps
