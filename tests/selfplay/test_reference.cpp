// Reference games (selfplay/reference.h): the scores of evaluators whose answers are known.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "core/fileutil.h"
#include "selfplay/reference.h"

using namespace ps;
namespace fs = std::filesystem;

namespace {

const std::string kChunk = PS_SOURCE_DIR "/tests/selfplay/data/v1-3games.psd";

// Knows every sample: its value is the sample's result, its logits put 10 on each kick of the
// sample's most visited turn (at the point the ball kicks from) and 0 elsewhere.
class Oracle final : public Evaluator {
 public:
  explicit Oracle(const std::vector<GameData>& games) {
    for (const GameData& g : games)
      for (const TrainingSample& t : g.samples) by_hash_[sample_position(g, t).hash()] = &t;
  }
  void evaluate(const Position& pos, Evaluation& out) override {
    const TrainingSample& t = *by_hash_.at(pos.hash());
    out.value = float(t.result);
    out.policy_logits.assign(size_t(pos.pitch().num_points()) * 8, 0.0f);
    if (t.policy.empty()) return;
    const TurnVisits* best = &t.policy[0];
    for (const TurnVisits& v : t.policy)
      if (v.visits > best->visits) best = &v;
    Position p = pos;
    for (char c : best->kicks) {
      out.policy_logits[size_t(p.ball()) * 8 + size_t(c - '0')] = 10.0f;
      p.make_kick(c - '0');
    }
  }
  std::string name() const override { return "oracle"; }

 private:
  std::map<uint64_t, const TrainingSample*> by_hash_;
};

}  // namespace

TEST_CASE("reference games: a constant 0 scores value MSE 1 and an oracle scores 0 and top-1 100%") {
  const std::vector<GameData> games = read_reference_games(kChunk);
  REQUIRE(games.size() == 3);
  int64_t samples = 0, early = 0, with_policy = 0, lost = 0;
  for (const GameData& g : games)
    for (const TrainingSample& t : g.samples) {
      ++samples;
      early += t.turns_left > kEarlyTurnsLeft;
      with_policy += !t.policy.empty();
      lost += t.result < 0;
    }
  UniformEvaluator uniform;
  const ReferenceScore u = score_reference_games(uniform, games);
  CHECK(u.positions == samples);
  CHECK(u.early_positions == early);
  CHECK(u.policy_positions == with_policy);
  CHECK(early > 0);
  CHECK(u.value_mse == Approx(1.0));
  CHECK(u.early_value_mse == Approx(1.0));
  // sign(0) is not a win: right exactly where the side to move lost.
  CHECK(u.value_sign_accuracy == Approx(double(lost) / double(samples)));
  CHECK(u.policy_top1 < 1.0);

  // The oracle needs one sample per position (the games share their first positions), and a
  // turn that kicks from each point once (a chain through a point twice would mark two of its
  // directions there).
  std::map<uint64_t, int> seen;
  for (const GameData& g : games)
    for (const TrainingSample& t : g.samples) ++seen[sample_position(g, t).hash()];
  auto kicks_from_distinct_points = [](const GameData& g, const TrainingSample& t) {
    const TurnVisits* best = &t.policy[0];
    for (const TurnVisits& v : t.policy)
      if (v.visits > best->visits) best = &v;
    Position p = sample_position(g, t);
    std::map<int, int> from;
    for (char c : best->kicks) {
      if (from[p.ball()]++) return false;
      p.make_kick(c - '0');
    }
    return true;
  };
  std::vector<GameData> distinct = games;
  int64_t kept = 0;
  for (GameData& g : distinct) {
    std::vector<TrainingSample> keep;
    for (const TrainingSample& t : g.samples)
      if (seen[sample_position(g, t).hash()] == 1 && !t.policy.empty() && kicks_from_distinct_points(g, t))
        keep.push_back(t);
    kept += int64_t(keep.size());
    g.samples = keep;
  }
  REQUIRE(kept > samples / 2);
  Oracle oracle(distinct);
  const ReferenceScore o = score_reference_games(oracle, distinct);
  CHECK(o.positions == kept);
  CHECK(o.value_mse == Approx(0.0));
  CHECK(o.value_sign_accuracy == Approx(1.0));
  CHECK(o.policy_top1 == Approx(1.0));
}

TEST_CASE("reference games: a folder reads its chunks in name order, and bad paths are named") {
  const fs::path dir = fs::temp_directory_path() / ("ps_reference_" + std::to_string(::getpid()));
  remove_tree(dir.string());
  fs::create_directories(dir);
  const std::string bytes = read_file(kChunk);
  write_file_atomic((dir / "b.psd").string(), bytes);
  write_file_atomic((dir / "a.psd").string(), bytes);
  write_file_atomic((dir / "notes.txt").string(), "not a chunk");
  CHECK(read_reference_games(dir.string()).size() == 6);
  CHECK_THROWS_WITH(
      read_reference_games((dir / "none").string()),
      Catch::Contains((dir / "none").string()) && Catch::Contains("neither a .psd file nor a folder"));
  fs::create_directories(dir / "empty");
  // A folder without a .psd file says so (it read "holds no sample").
  CHECK_THROWS_WITH(read_reference_games((dir / "empty").string()),
                    "reference games: " + (dir / "empty").string() + " holds no .psd file");
  write_file_atomic((dir / "cut.psd").string(), bytes.substr(0, bytes.size() / 2));
  CHECK_THROWS_WITH(read_reference_games(dir.string()), Catch::Contains("cut.psd"));
  remove_tree(dir.string());
}
