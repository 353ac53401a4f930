#include "selfplay/reference.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "nn/turn_priors.h"

namespace ps {

namespace fs = std::filesystem;

std::vector<GameData> read_reference_games(const std::string& path) {
  std::error_code ec;
  std::vector<std::string> files;
  if (fs::is_directory(path, ec)) {
    for (const auto& entry : fs::directory_iterator(path, ec))
      if (entry.path().extension() == ".psd") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
  } else if (fs::is_regular_file(path, ec)) {
    files.push_back(path);
  } else {
    throw std::invalid_argument("reference games: " + path + " is neither a .psd file nor a folder");
  }
  if (files.empty()) throw std::invalid_argument("reference games: " + path + " holds no .psd file");
  std::vector<GameData> games;
  size_t samples = 0;
  for (const std::string& f : files)
    for (GameData& g : read_chunk(f)) {
      samples += g.samples.size();
      games.push_back(std::move(g));
    }
  if (samples == 0) throw std::invalid_argument("reference games: " + path + " holds no sample");
  return games;
}

namespace {

struct Pending {
  Position pos;
  const TrainingSample* sample;
};

// The network's most probable turn at p.pos reaches the same position as the sample's most
// visited turn.
bool top1_agrees(const Pending& p, const Evaluation& e) {
  const std::vector<TurnVisits>& turns = p.sample->policy;
  const auto best =
      std::max_element(turns.begin(), turns.end(),
                       [](const TurnVisits& a, const TurnVisits& b) { return a.visits < b.visits; });
  Position end = p.pos;
  for (char c : best->kicks) end.make_kick(c - '0');
  BestFirstOptions o;
  o.max_turns = 64;
  const BestFirstResult r = nn::turn_priors(p.pos, e, o);
  if (r.turns.empty()) return false;
  const auto top = std::max_element(r.turns.begin(), r.turns.end(),
                                    [](const Turn& a, const Turn& b) { return a.prior < b.prior; });
  return top->hash == end.hash();
}

}  // namespace

ReferenceScore score_reference_games(Evaluator& net, const std::vector<GameData>& games) {
  constexpr size_t kBatch = 256;
  ReferenceScore s;
  double se = 0, se_early = 0, sign = 0, top1 = 0;
  int64_t decided = 0;
  std::vector<Pending> batch;
  std::vector<const Position*> ptrs;
  std::vector<Evaluation> evals(kBatch);
  auto flush = [&] {
    ptrs.clear();
    for (const Pending& p : batch) ptrs.push_back(&p.pos);
    net.evaluate_many(ptrs.data(), batch.size(), evals.data());
    for (size_t i = 0; i < batch.size(); ++i) {
      const TrainingSample& t = *batch[i].sample;
      const double v = std::clamp(double(evals[i].value), -1.0, 1.0);
      const double d = v - double(t.result);
      s.positions += 1;
      se += d * d;
      if (t.result != 0) {
        decided += 1;
        sign += (v > 0) == (t.result > 0);
      }
      if (t.turns_left > kEarlyTurnsLeft) {
        s.early_positions += 1;
        se_early += d * d;
      }
      if (!t.policy.empty()) {
        s.policy_positions += 1;
        top1 += top1_agrees(batch[i], evals[i]);
      }
    }
    batch.clear();
  };
  for (const GameData& g : games)
    for (const TrainingSample& t : g.samples) {
      Position pos = sample_position(g, t);
      if (pos.game_over()) continue;
      batch.push_back({std::move(pos), &t});
      if (batch.size() == kBatch) flush();
    }
  if (!batch.empty()) flush();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int64_t late = s.positions - s.early_positions;
  s.value_mse = s.positions > 0 ? se / double(s.positions) : nan;
  s.early_value_mse = s.early_positions > 0 ? se_early / double(s.early_positions) : nan;
  s.late_value_mse = late > 0 ? (se - se_early) / double(late) : nan;
  s.value_sign_accuracy = decided > 0 ? sign / double(decided) : nan;
  s.policy_top1 = s.policy_positions > 0 ? top1 / double(s.policy_positions) : nan;
  return s;
}

}  // namespace ps
