#include "train/trainer.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <stdlib.h>

#include <nlohmann/json.hpp>

#include "core/fileutil.h"
#include "core/plural.h"
#include "nn/checkpoint.h"
#include "nn/encoder.h"
#include "nn/net.h"
#include "selfplay/data.h"
#include "train/window.h"

namespace ps {

namespace fs = std::filesystem;

int64_t TrainConfig::Window::size(int64_t total) const {
  if (total <= min_samples) return total;
  const double c = double(min_samples);
  const double w = c * (1.0 + scale * (std::pow(double(total) / c, exponent) - 1.0) / exponent);
  return std::min<int64_t>({total, max_samples, int64_t(w)});
}

void TrainConfig::validate() const {
  const FieldCheck check("train.");
  check.part("net", net);
  // LibTorch intra-op threads beyond the cores only wait (1,000,000 started 3,600 threads and
  // no training); a batch of 2e9 samples asked for gigabytes before the first step.
  check(threads >= 0 && threads <= 256, "threads", "must be in [0, 256]");
  check(batch_size >= 1 && batch_size <= 65536, "batch_size", "must be in [1, 65536]");
  check(steps >= 0, "steps", "must be >= 0");
  check(rows_per_sample >= 0 && rows_per_sample <= 1000, "rows_per_sample",
        "must be a number in [0, 1000] (0: off)");
  check(optimizer.type == "sgd" || optimizer.type == "adamw", "optimizer.type",
        "must be sgd or adamw, not '" + optimizer.type + "'");
  // Finite and at most 10: an infinite rate trained a NaN network that the loop then promoted,
  // and 1e308 failed late converting to float.
  check(optimizer.lr > 0 && optimizer.lr <= 10, "optimizer.lr", "must be > 0 and <= 10");
  check(optimizer.weight_decay >= 0 && std::isfinite(optimizer.weight_decay), "optimizer.weight_decay",
        "must be a finite number >= 0");
  check(optimizer.momentum >= 0 && optimizer.momentum < 1, "optimizer.momentum", "must be in [0, 1)");
  check(nn::is_device_name(device), "device", "'" + device + "' is not a device (cpu, cuda or cuda:N)");
  check(lr_schedule.type == "constant" || lr_schedule.type == "step" || lr_schedule.type == "cosine",
        "lr_schedule.type", "must be constant, step or cosine, not '" + lr_schedule.type + "'");
  check(lr_schedule.step_every >= 1, "lr_schedule.step_every", "must be >= 1");
  check(lr_schedule.warmup_steps >= 0, "lr_schedule.warmup_steps", "must be >= 0");
  check(window.min_samples >= 1, "window.min_samples", "must be >= 1");
  check(window.max_samples >= window.min_samples, "window.max_samples", "must be >= min_samples");
  check(window.exponent > 0 && window.exponent <= 1, "window.exponent", "must be in (0, 1]");
  check(window.scale > 0, "window.scale", "must be > 0");
  check(loss.value_loss == "mse" || loss.value_loss == "bce", "loss.value_loss",
        "must be mse or bce, not '" + loss.value_loss + "'");
  check(loss.search_value_weight >= 0 && loss.search_value_weight <= 1, "loss.search_value_weight",
        "must be in [0, 1]");
  for (const auto& [key, w] : {std::pair<const char*, double>{"loss.policy", loss.policy},
                               {"loss.value", loss.value},
                               {"loss.moves_left", loss.moves_left},
                               {"loss.cheap_value_weight", loss.cheap_value_weight}})
    check(w >= 0 && std::isfinite(w), key, "must be a finite number >= 0");
  check(teacher.fraction >= 0 && teacher.fraction <= 1, "teacher.fraction", "must be in [0, 1]");
  check(checkpoint_interval >= 1, "checkpoint_interval", "must be >= 1");
  check(log_interval >= 1, "log_interval", "must be >= 1");
}

TrainConfig parse_train_config(ConfigReader& r) {
  TrainConfig c;
  if (r.has("net")) {
    ConfigReader n = r.child("net");
    c.net = nn::parse_net_config(n);
  } else {
    r.child("net");
  }
  r.read(field("device", c.device), field("threads", c.threads), field("seed", c.seed),
         field("batch_size", c.batch_size), field("steps", c.steps),
         field("rows_per_sample", c.rows_per_sample));
  {
    ConfigReader o = r.child("optimizer");
    TrainConfig::Optimizer& opt = c.optimizer;
    o.read(field("type", opt.type), field("lr", opt.lr), field("momentum", opt.momentum),
           field("nesterov", opt.nesterov), field("weight_decay", opt.weight_decay),
           field("beta1", opt.beta1), field("beta2", opt.beta2));
    o.finish();
  }
  {
    ConfigReader s = r.child("lr_schedule");
    TrainConfig::Schedule& lr = c.lr_schedule;
    s.read(field("type", lr.type), field("warmup_steps", lr.warmup_steps), field("step_every", lr.step_every),
           field("gamma", lr.gamma), field("min_lr", lr.min_lr));
    s.finish();
  }
  {
    ConfigReader w = r.child("window");
    w.read(field("min_samples", c.window.min_samples), field("max_samples", c.window.max_samples),
           field("exponent", c.window.exponent), field("scale", c.window.scale));
    w.finish();
  }
  {
    ConfigReader l = r.child("loss");
    l.read(field("policy", c.loss.policy), field("value", c.loss.value),
           field("moves_left", c.loss.moves_left), field("cheap_value_weight", c.loss.cheap_value_weight),
           field("search_value_weight", c.loss.search_value_weight), field("value_loss", c.loss.value_loss));
    l.finish();
  }
  {
    ConfigReader t = r.child("teacher");
    t.read(field("data", c.teacher.data), field("fraction", c.teacher.fraction));
    t.finish();
  }
  r.read(field("mirror", c.mirror), field("deterministic", c.deterministic),
         field("checkpoint_interval", c.checkpoint_interval), field("log_interval", c.log_interval));
  return r.finish_validated(c);
}

TrainingWindow load_teacher_games(const TrainConfig::Teacher& teacher) {
  try {
    return load_window({INT64_MAX, INT64_MAX, 1.0, 1.0}, teacher.data);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("train.teacher.data: ") + e.what());
  }
}

int TrainConfig::Teacher::batch_share(int batch_size) const {
  return data.empty() ? 0 : int(std::lround(fraction * batch_size));
}

std::string teacher_share_text(const TrainConfig& cfg, const TrainResult& r) {
  if (cfg.teacher.data.empty()) return "";
  return "; " + std::to_string(cfg.teacher.batch_share(cfg.batch_size)) + " of each batch of " +
         std::to_string(cfg.batch_size) + " from " + counted(r.teacher_samples, "teacher sample");
}

namespace {

double learning_rate(const TrainConfig& cfg, int64_t step, int64_t call_start, int64_t call_end) {
  const auto& s = cfg.lr_schedule;
  double lr = cfg.optimizer.lr;
  if (s.type == "step") {
    lr *= std::pow(s.gamma, double(step / s.step_every));
  } else if (s.type == "cosine") {
    const double span = std::max<int64_t>(1, call_end - call_start);
    const double t = std::clamp(double(step - call_start) / span, 0.0, 1.0);
    lr = s.min_lr + 0.5 * (lr - s.min_lr) * (1 + std::cos(M_PI * t));
  }
  if (s.warmup_steps > 0 && step < s.warmup_steps) lr *= double(step + 1) / double(s.warmup_steps);
  return lr;
}

void set_lr(torch::optim::Optimizer& opt, double lr) {
  for (auto& group : opt.param_groups()) group.options().set_lr(lr);
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainConfig& cfg,
                                                        nn::PolicyValueNet& net) {
  const auto& o = cfg.optimizer;
  if (o.type == "adamw") {
    return std::make_unique<torch::optim::AdamW>(
        net->parameters(), torch::optim::AdamWOptions(o.lr)
                               .betas({o.beta1, o.beta2})
                               .weight_decay(o.weight_decay));
  }
  return std::make_unique<torch::optim::SGD>(
      net->parameters(), torch::optim::SGDOptions(o.lr)
                             .momentum(o.momentum)
                             .nesterov(o.nesterov && o.momentum > 0)
                             .weight_decay(o.weight_decay));
}

nn::CheckpointMeta make_meta(const nn::NetConfig& net, int64_t step, const std::string& note,
                             const std::vector<std::string>& pitches,
                             const std::vector<std::string>& variants, int64_t call_start = -1) {
  nn::CheckpointMeta m;
  m.net = net;
  m.training_step = step;
  m.note = note;
  m.pitches = pitches;
  m.variants = variants;
  m.train_call_start = call_start;
  return m;
}

// Partial checkpoints written before train_call_start existed ended their note with
// " call_start=N". Strips that suffix from note; returns N, or -1 when the note does not end so.
int64_t strip_legacy_call_start(std::string& note) {
  static const std::string kTag = " call_start=";
  const size_t pos = note.rfind(kTag);
  if (pos == std::string::npos) return -1;
  const std::string digits = note.substr(pos + kTag.size());
  if (digits.empty() || digits.size() > 18 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  note.resize(pos);
  return std::stoll(digits);
}

// Log-probability of a turn's chain under engine-frame per-kick logits.
double chain_log_prob(Position pos, const float* logits, const std::string& kicks) {
  double lp = 0;
  for (char c : kicks) {
    const int d = c - '0';
    const unsigned legal = pos.legal_kicks();
    const float* l = logits + size_t(pos.ball()) * 8;
    double mx = -1e30;
    for (unsigned m = legal; m; m &= m - 1) mx = std::max(mx, double(l[__builtin_ctz(m)]));
    double z = 0;
    for (unsigned m = legal; m; m &= m - 1) z += std::exp(double(l[__builtin_ctz(m)]) - mx);
    lp += double(l[d]) - mx - std::log(z);
    pos.make_kick(d);
  }
  return lp;
}

struct BatchItem {
  Position pos;
  const TrainingSample* sample;
  bool mirrored;
};

struct StepLosses {
  torch::Tensor total;
  double policy = 0, value = 0, moves_left = 0;
  double policy_correct = 0, policy_count = 0, value_correct = 0, value_count = 0;
};

// Long (about 100 lines): one forward pass and its losses over the same tensors (planes,
// targets, masks); split, the tensors would be passed between functions for no clarity.
// Forward + losses for items sharing one pitch. weight = share of the whole batch.
void group_losses(const TrainConfig& cfg, nn::PolicyValueNet& net, torch::Device device,
                  const std::vector<BatchItem>& items, double weight, bool metrics,
                  StepLosses& out) {
  const Pitch& pitch = items[0].pos.pitch();
  const size_t n = items.size();
  const size_t plane_floats = nn::planes_size(pitch);
  torch::Tensor x = torch::empty({int64_t(n), nn::kNumPlanes, pitch.grid_height(), pitch.grid_width()});
  float* xp = x.data_ptr<float>();
  std::vector<float> tmp(plane_floats);
  std::vector<nn::PolicyTarget> targets;
  std::vector<int64_t> policy_rows;
  std::vector<float> value_target(n), value_weight(n), moves_target(n);
  for (size_t i = 0; i < n; ++i) {
    const BatchItem& it = items[i];
    float* dst = xp + i * plane_floats;
    if (it.mirrored) {
      nn::encode_position(it.pos, tmp.data());
      nn::mirror_planes(pitch, tmp.data(), dst);
    } else {
      nn::encode_position(it.pos, dst);
    }
    const TrainingSample& s = *it.sample;
    if (s.full_search && !s.policy.empty()) {
      std::vector<nn::WeightedTurn> turns;
      for (auto& t : s.policy) turns.push_back({t.kicks, float(t.visits)});
      nn::PolicyTarget target = nn::make_policy_target(it.pos, turns);
      if (it.mirrored) nn::mirror_policy_target(pitch, target);
      targets.push_back(std::move(target));
      policy_rows.push_back(int64_t(i));
    }
    // The game result, or (Descent's target) the search's backed-up value at the root, or a mix.
    const double lambda = cfg.loss.search_value_weight;
    value_target[i] = float((1 - lambda) * s.result + lambda * s.root_value);
    value_weight[i] = s.full_search ? 1.0f : float(cfg.loss.cheap_value_weight);
    moves_target[i] = float(s.turns_left) / 20.0f;
  }
  x = x.to(device);
  nn::NetOutput o = net->forward(x);
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  torch::Tensor vt = torch::from_blob(value_target.data(), {int64_t(n)}, opts).clone().to(device);
  torch::Tensor vw = torch::from_blob(value_weight.data(), {int64_t(n)}, opts).clone().to(device);
  torch::Tensor vloss;
  if (cfg.loss.value_loss == "bce") {
    // P(win) = sigmoid(2 z); target (result + 1) / 2.
    vloss = torch::binary_cross_entropy_with_logits(2 * o.value_logit, (vt + 1) / 2,
                                                    /*weight=*/{}, /*pos_weight=*/{},
                                                    at::Reduction::None);
  } else {
    vloss = (o.value - vt).pow(2);
  }
  vloss = (vloss * vw).sum() / vw.sum().clamp_min(1e-6);
  torch::Tensor total = cfg.loss.value * vloss;
  out.value += weight * vloss.item<double>();
  if (!targets.empty()) {
    torch::Tensor idx = torch::tensor(policy_rows, torch::kLong).to(device);
    torch::Tensor ploss = nn::policy_loss(o.policy.index_select(0, idx), targets);
    const double pw = double(targets.size()) / double(n);
    total = total + cfg.loss.policy * pw * ploss;
    out.policy += weight * pw * ploss.item<double>();
  }
  if (o.moves_left.defined() && cfg.loss.moves_left > 0) {
    torch::Tensor mt = torch::from_blob(moves_target.data(), {int64_t(n)}, opts).clone().to(device);
    torch::Tensor mloss = torch::smooth_l1_loss(o.moves_left, mt);
    total = total + cfg.loss.moves_left * mloss;
    out.moves_left += weight * mloss.item<double>();
  }
  out.total = out.total.defined() ? out.total + weight * total : weight * total;

  if (metrics) {
    torch::Tensor value_cpu = o.value.detach().to(torch::kCPU).contiguous();
    const float* vv = value_cpu.data_ptr<float>();
    torch::Tensor pol_cpu = o.policy.detach().to(torch::kCPU).contiguous();
    const float* pv = pol_cpu.data_ptr<float>();
    std::vector<float> mover(nn::policy_size(pitch)), engine(nn::policy_size(pitch));
    for (size_t i = 0; i < n; ++i) {
      const BatchItem& it = items[i];
      out.value_count += 1;
      out.value_correct += (vv[i] > 0) == (it.sample->result > 0);
      // Only samples with 2+ visited turns: with one (the teacher's one-hot target) the net's
      // top turn among the visited ones is the most visited one by construction.
      const std::vector<TurnVisits>& visited = it.sample->policy;
      if (!it.sample->full_search ||
          std::count_if(visited.begin(), visited.end(), [](const TurnVisits& t) { return t.visits > 0; }) < 2)
        continue;
      // Undo the mirror to read the logits in the sample's own frame.
      const float* src = pv + i * nn::policy_size(pitch);
      if (it.mirrored) {
        nn::mirror_policy(pitch, src, mover.data());
      } else {
        std::copy(src, src + mover.size(), mover.begin());
      }
      nn::policy_to_engine(pitch, it.pos.side_to_move(), mover.data(), engine.data());
      size_t top_visit = 0, top_prior = 0;
      double best_lp = -1e300;
      for (size_t k = 0; k < visited.size(); ++k) {
        if (visited[k].visits == 0) continue;
        if (visited[k].visits > visited[top_visit].visits) top_visit = k;
        const double lp = chain_log_prob(it.pos, engine.data(), visited[k].kicks);
        if (lp > best_lp) {
          best_lp = lp;
          top_prior = k;
        }
      }
      out.policy_count += 1;
      out.policy_correct += top_visit == top_prior;
    }
  }
}

}  // namespace

std::string policy_accuracy_text(const TrainMetrics& m) {
  if (m.policy_accuracy_samples == 0) return "policy acc n/a (no sample with 2+ visited turns)";
  return "policy acc " + std::to_string(std::lround(100 * m.policy_accuracy)) + "% (2+ visited turns)";
}

void write_initial_checkpoint(const TrainConfig& config, const std::string& path,
                              const std::string& note) {
  torch::manual_seed(config.seed);
  nn::PolicyValueNet net(config.net);
  nn::save_checkpoint(path, net, make_meta(config.net, 0, note, {}, {}));
}

namespace {

// LibTorch's threads and, with cfg.deterministic, its deterministic algorithms.
void configure_torch(const TrainConfig& cfg) {
  if (cfg.threads > 0) at::set_num_threads(cfg.threads);
  if (cfg.deterministic) {
    // cuBLAS reads this once, when its first handle is made (so set it before any CUDA matmul).
    ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0);
    at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/false);
    at::globalContext().setDeterministicCuDNN(true);
    at::globalContext().setBenchmarkCuDNN(false);
  }
}

// Where a call starts: the net, its optimizer and metadata, and the step the call began at.
struct StartPoint {
  nn::PolicyValueNet net{nullptr};
  std::unique_ptr<torch::optim::Optimizer> opt;
  nn::CheckpointMeta meta;
  bool resumed = false;    // from a partial checkpoint of an interrupted call
  int64_t call_start = 0;  // the step the (possibly interrupted) call started from
};

// A partial checkpoint of an interrupted call, the input checkpoint, or a new net.
StartPoint load_start(const TrainConfig& cfg, const std::string& checkpoint_in, const std::string& partial,
                      const std::string& note, torch::Device device) {
  StartPoint sp;
  std::string resume_from;
  if (fs::exists(partial)) {
    resume_from = partial;
    sp.resumed = true;
  } else if (!checkpoint_in.empty()) {
    resume_from = checkpoint_in;
  }
  if (!resume_from.empty()) {
    nn::LoadedCheckpoint ck = nn::load_checkpoint(resume_from, cfg.device);
    sp.net = ck.net;
    sp.meta = ck.meta;
    sp.opt = make_optimizer(cfg, sp.net);
    if (ck.has_optimizer) {
      try {
        nn::load_optimizer_state(resume_from, *sp.opt);
      } catch (const nn::CheckpointError& e) {
        // A different optimizer type in the config: start its state afresh, say so.
        std::cerr << "warning: optimizer state not restored: " << e.what() << "\n";
        sp.opt = make_optimizer(cfg, sp.net);
      }
    }
  } else {
    torch::manual_seed(cfg.seed);
    sp.net = nn::PolicyValueNet(cfg.net);
    sp.net->to(device);
    sp.meta = make_meta(cfg.net, 0, note, {}, {});
    sp.opt = make_optimizer(cfg, sp.net);
  }
  // A partial checkpoint remembers where its call began (so the target stays the same) in its
  // metadata, not in the free-text note (older ones: in the note).
  const int64_t legacy_call_start = sp.meta.train_call_start < 0 ? strip_legacy_call_start(sp.meta.note) : -1;
  sp.call_start = sp.meta.training_step;
  if (sp.resumed) {
    if (sp.meta.train_call_start >= 0) sp.call_start = sp.meta.train_call_start;
    else if (legacy_call_start >= 0) sp.call_start = legacy_call_start;
  }
  return sp;
}

// The pitches and variants of the window's games, in order of first appearance.
void window_rules(const TrainingWindow& window, std::vector<std::string>& pitches,
                  std::vector<std::string>& variants) {
  for (auto& g : window.games) {
    std::string p = Pitch::get(g.width, g.length, g.goal).name();
    std::string v = variant_name(g.variant);
    if (std::find(pitches.begin(), pitches.end(), p) == pitches.end()) pitches.push_back(p);
    if (std::find(variants.begin(), variants.end(), v) == variants.end()) variants.push_back(v);
  }
}

// The batch of a step, grouped by pitch: a function of the seed and the step only, so a resumed
// call draws the same batches. Its first train.teacher.batch_share samples come from the
// teacher's games (`teacher`, empty without them), the rest from the window.
std::map<const Pitch*, std::vector<BatchItem>> draw_batch(const TrainConfig& cfg,
                                                          const TrainingWindow& window,
                                                          const TrainingWindow& teacher, int64_t step) {
  std::mt19937_64 rng(cfg.seed * 0x9E3779B97F4A7C15ULL + uint64_t(step) * 0xBF58476D1CE4E5B9ULL);
  std::map<const Pitch*, std::vector<BatchItem>> groups;
  const int from_teacher = teacher.samples.empty() ? 0 : cfg.teacher.batch_share(cfg.batch_size);
  for (int b = 0; b < cfg.batch_size; ++b) {
    const TrainingWindow& source = b < from_teacher ? teacher : window;
    const SampleRef& ref = source.samples[rng() % source.samples.size()];
    const GameData& g = source.games[ref.game];
    const TrainingSample& s = g.samples[ref.sample];
    Position pos = sample_position(g, s);
    const bool mirrored = cfg.mirror && (rng() & 1);
    groups[&pos.pitch()].push_back({pos, &s, mirrored});
  }
  return groups;
}

// Step losses summed between two metric lines.
struct LossAccumulator {
  StepLosses sum;
  int64_t steps = 0;
  void add(const StepLosses& l) {
    sum.policy += l.policy;
    sum.value += l.value;
    sum.moves_left += l.moves_left;
    sum.policy_correct += l.policy_correct;
    sum.policy_count += l.policy_count;
    sum.value_correct += l.value_correct;
    sum.value_count += l.value_count;
    ++steps;
  }
  TrainMetrics metrics(int64_t step, double lr) const {
    TrainMetrics m;
    m.step = step;
    m.policy_loss = sum.policy / steps;
    m.value_loss = sum.value / steps;
    m.moves_left_loss = sum.moves_left / steps;
    m.policy_accuracy = sum.policy_count ? sum.policy_correct / sum.policy_count : std::nan("");
    m.policy_accuracy_samples = int64_t(sum.policy_count);
    m.value_accuracy = sum.value_count ? sum.value_correct / sum.value_count : 0;
    m.lr = lr;
    return m;
  }
};

// One JSON line of the metrics log.
void log_metrics(const std::string& log_path, const TrainMetrics& m, const std::string& checkpoint_out) {
  if (log_path.empty()) return;
  nlohmann::json j = {{"step", m.step},
                      {"policy_loss", m.policy_loss},
                      {"value_loss", m.value_loss},
                      {"moves_left_loss", m.moves_left_loss},
                      {"policy_accuracy", m.policy_accuracy},  // NaN: written as null
                      {"policy_accuracy_samples", m.policy_accuracy_samples},
                      {"value_accuracy", m.value_accuracy},
                      {"lr", m.lr},
                      {"samples_per_s", m.samples_per_s},
                      {"window", m.window},
                      {"checkpoint", fs::path(checkpoint_out).filename().string()}};
  append_line(log_path, j.dump());
}

}  // namespace

TrainResult train_network(const TrainConfig& cfg, const std::string& data_dir,
                          const std::string& checkpoint_in, const std::string& checkpoint_out,
                          const std::string& log_path, const std::string& note, const TrainProgress& progress,
                          const std::atomic<bool>* cancel) {
  cfg.validate();
  configure_torch(cfg);
  const torch::Device device = nn::parse_device(cfg.device);
  const std::string partial = checkpoint_out + ".partial";
  TrainResult result;
  StartPoint sp = load_start(cfg, checkpoint_in, partial, note, device);
  nn::PolicyValueNet& net = sp.net;
  const int64_t start_step = sp.meta.training_step, call_start = sp.call_start;
  const int64_t target = call_start + cfg.steps;
  result.resumed = sp.resumed;
  result.start_step = start_step;

  TrainingWindow window = load_window(cfg.window, data_dir);
  result.window_samples = int64_t(window.samples.size());
  result.total_samples = window.total;
  std::vector<std::string> pitches, variants;
  window_rules(window, pitches, variants);
  // The teacher's games, every sample of them (a folder written once, not a growing window).
  TrainingWindow teacher;
  if (!cfg.teacher.data.empty()) {
    teacher = load_teacher_games(cfg.teacher);
    result.teacher_samples = int64_t(teacher.samples.size());
    window_rules(teacher, pitches, variants);
  }
  const std::string base_note = note.empty() ? sp.meta.note : note;
  auto meta_at = [&](int64_t step, int64_t partial_call_start) {
    return make_meta(net->config(), step, base_note, pitches, variants, partial_call_start);
  };

  net->train();
  const auto t0 = std::chrono::steady_clock::now();
  auto tlog = t0;
  int64_t samples_since_log = 0;
  LossAccumulator acc;
  for (int64_t step = start_step; step < target; ++step) {
    if (cancel && cancel->load()) break;
    const auto groups = draw_batch(cfg, window, teacher, step);
    const double lr = learning_rate(cfg, step, call_start, target);
    set_lr(*sp.opt, lr);
    const bool log_now = (step + 1) % cfg.log_interval == 0 || step + 1 == target;
    StepLosses losses;
    for (auto& [pitch, items] : groups)
      group_losses(cfg, net, device, items, double(items.size()) / cfg.batch_size, log_now, losses);
    sp.opt->zero_grad();
    losses.total.backward();
    sp.opt->step();
    samples_since_log += cfg.batch_size;
    acc.add(losses);
    if (log_now) {
      const auto now = std::chrono::steady_clock::now();
      TrainMetrics m = acc.metrics(step + 1, lr);
      m.samples_per_s = samples_since_log / std::max(1e-9, std::chrono::duration<double>(now - tlog).count());
      m.window = int64_t(window.samples.size());
      result.metrics.push_back(m);
      log_metrics(log_path, m, checkpoint_out);
      if (progress) progress(m, target);
      acc = LossAccumulator{};
      samples_since_log = 0;
      tlog = now;
    }
    if ((step + 1) % cfg.checkpoint_interval == 0 && step + 1 < target)
      nn::save_checkpoint(partial, net, meta_at(step + 1, call_start), sp.opt.get());
    result.end_step = step + 1;
  }
  if (result.end_step == 0) result.end_step = start_step;
  net->eval();
  if (result.end_step >= target) {
    nn::save_checkpoint(checkpoint_out, net, meta_at(result.end_step, -1), sp.opt.get());
    std::error_code ec;
    fs::remove(partial, ec);
  } else {
    // Cancelled: keep what was done so the next call resumes here.
    nn::save_checkpoint(partial, net, meta_at(result.end_step, call_start), sp.opt.get());
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.samples_per_s = result.seconds > 0
                             ? double(result.end_step - start_step) * cfg.batch_size / result.seconds
                             : 0;
  return result;
}

}  // namespace ps
