// The value-net trainer: a short run on generated games lowers the held-out error, writes a file
// the alphabeta evaluator reads, and is deterministic for a seed.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>
#include <unistd.h>

#include "core/fileutil.h"
#include "search/baselines.h"
#include "search/value_net_file.h"
#include "selfplay/data.h"
#include "train/value_trainer.h"

using namespace ps;
namespace fs = std::filesystem;

namespace {

// Games of greedy against a random player: a learnable value (the ball's side of the pitch and
// the greedy side's moves predict the result). Every turn start is a sample; root_value is half
// the result (so the "root" and "mix" targets differ from "result").
void write_games(const std::string& dir, int games, uint64_t seed) {
  std::vector<GameData> out;
  for (int i = 0; i < games; ++i) {
    GreedyPlayer greedy(seed + uint64_t(i));
    RandomPlayer random(seed + 1000 + uint64_t(i));
    Game g(Pitch::standard(), Variant::kStandard);
    GameData d;
    std::vector<int> sides;
    const int greedy_side = i % 2;
    while (!g.position().game_over()) {
      TrainingSample s;
      s.turn_index = uint16_t(g.num_complete_turns());
      s.full_search = false;
      d.samples.push_back(s);
      sides.push_back(g.position().side_to_move());
      Player& p = g.position().side_to_move() == greedy_side ? static_cast<Player&>(greedy)
                                                             : static_cast<Player&>(random);
      g.play_turn(p.choose_turn(g, TurnBudget{}));
    }
    d.record = g.record();
    d.winner = int8_t(g.position().winner());
    d.reason = g.position().reason();
    d.game_id = uint64_t(i);
    for (size_t k = 0; k < d.samples.size(); ++k) {
      d.samples[k].result = int8_t(sides[k] == d.winner ? 1 : -1);
      d.samples[k].root_value = 0.5f * float(d.samples[k].result);
      d.samples[k].turns_left = uint16_t(d.samples.size() - k);
    }
    out.push_back(d);
  }
  write_chunk(dir + "/data-000000.psd", out);
}

}  // namespace

TEST_CASE("train-value: a short run lowers the held-out error and is deterministic", "[train]") {
  const fs::path dir = fs::temp_directory_path() / ("ps_vtrain_" + std::to_string(::getpid()));
  remove_tree(dir.string());
  fs::create_directories(dir / "data");
  write_games((dir / "data").string(), 60, 3);
  ValueTrainConfig cfg;
  cfg.hidden = {16, 8};
  cfg.steps = 300;
  cfg.batch_size = 64;
  cfg.log_interval = 100;
  cfg.holdout = 0.2;
  cfg.lr = 3e-3;
  const std::string a = (dir / "a.vnet").string(), b = (dir / "b.vnet").string();
  const ValueTrainResult r = train_value_net(cfg, (dir / "data").string(), a);
  REQUIRE(r.games == 60);
  REQUIRE(r.holdout_samples > 0);
  REQUIRE(r.pitch == "8x10");
  INFO("initial " << r.initial.holdout_mse << " final " << r.final.holdout_mse);
  CHECK(r.final.step == 300);
  CHECK(r.final.holdout_mse < 0.9 * r.initial.holdout_mse);
  CHECK(r.final.holdout_sign_accuracy > 0.6);
  const ValueNet net = load_value_net(a);
  REQUIRE(net.layers.size() == 3);
  REQUIRE(net.hidden1() == 16);
  // Same seed, same bytes.
  train_value_net(cfg, (dir / "data").string(), b);
  CHECK(read_file(a) == read_file(b));
  // The root-value target trains against 0.5 * result: its held-out MSE is measured against it.
  cfg.target = "root";
  cfg.steps = 50;
  const ValueTrainResult root = train_value_net(cfg, (dir / "data").string(), b);
  CHECK(root.final.holdout_mse != root.final.holdout_mse_result);
  cfg.target = "bogus";
  CHECK_THROWS_WITH(train_value_net(cfg, (dir / "data").string(), b), Catch::Contains("target"));
  CHECK_THROWS_WITH(train_value_net(ValueTrainConfig{}, (dir / "nothing").string(), b),
                    Catch::Contains("nothing"));
  remove_tree(dir.string());
}
