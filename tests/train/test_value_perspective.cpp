// The value's point of view, end to end: self-play samples (selfplay.h, the real
// game loop) -> data chunk on disk -> trainer (mover-frame planes, mirror augmentation, value
// target = result for the side to move) -> checkpoint -> inference service -> search. A sign
// or frame error anywhere on that path makes the trained net's value, or the search's root
// value, point the wrong way for one side or both.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "core/config.h"
#include "engine/turns.h"
#include "nn/service.h"
#include "search/mcts.h"
#include "selfplay/data.h"
#include "selfplay/selfplay.h"
#include "tests/common/temp_dir.h"
#include "train/trainer.h"

using namespace ps;

namespace {

// Self-play with uniform priors and no value (the search's win checks and solver decide the
// endings), as a run's generation 0 plays: cheap, and the results follow from the positions of
// the last turns.
SelfplayConfig uniform_selfplay() {
  // The first turns sampled by visits (without them every game is the same game), then the
  // most visited turn: a proven win is always played.
  auto r = ConfigReader::from_string(
      "visits: 16\ncheap_visits: 16\nfull_search_prob: 1.0\nseed: 5\n"
      "search: {root_initial_turns: 32, initial_turns: 8, temperature_turns: 8, root_noise: false}\n",
      "uniform_selfplay");
  return parse_selfplay_config(r);
}

// A sample of a held-out game with its position and result.
struct Probe {
  Position pos;
  int result;  // +1: the side to move won the game
};

// The samples of `games` at most `last` turns before the end, positions rebuilt from the
// records as the trainer rebuilds them.
std::vector<Probe> last_turns(const std::vector<GameData>& games, int last) {
  std::vector<Probe> out;
  for (const GameData& g : games)
    for (const TrainingSample& s : g.samples)
      if (s.turns_left <= last) out.push_back({sample_position(g, s), s.result});
  return out;
}

// Mean of value * result over probes whose side to move is `side`: > 0 when the values point
// at the winner.
template <class ValueOf>
double agreement(const std::vector<Probe>& probes, int side, ValueOf value_of, int* count) {
  double sum = 0;
  *count = 0;
  for (const Probe& p : probes) {
    if (p.pos.side_to_move() != side) continue;
    sum += value_of(p.pos) * p.result;
    ++*count;
  }
  return *count ? sum / *count : 0.0;
}

// log P(chain) under the per-kick softmax of `logits` (engine frame) minus log P(chain) under
// uniform per-kick priors.
double chain_log_prob_gain(const Position& start, const std::vector<float>& logits,
                           const std::string& kicks) {
  Position pos = start;
  double gain = 0;
  for (char c : kicks) {
    const int d = c - '0';
    const uint8_t legal = pos.legal_kicks();
    double mx = -1e30, z = 0;
    for (int k = 0; k < 8; ++k)
      if (legal >> k & 1) mx = std::max(mx, double(logits[size_t(pos.ball()) * 8 + k]));
    for (int k = 0; k < 8; ++k)
      if (legal >> k & 1) z += std::exp(double(logits[size_t(pos.ball()) * 8 + k]) - mx);
    gain += double(logits[size_t(pos.ball()) * 8 + d]) - mx - std::log(z) +
            std::log(double(__builtin_popcount(legal)));
    pos.make_kick(d);
  }
  return gain;
}

}  // namespace

TEST_CASE("value perspective: self-play results, chunk, trainer, net and search agree on the winner",
          "[train]") {
  ps::test::TempDir dir("value_perspective");
  const SelfplayConfig sc = uniform_selfplay();
  UniformEvaluator uniform;
  std::vector<GameData> train_games, held_out;
  for (uint64_t id = 0; id < 90; ++id)
    (id < 60 ? train_games : held_out).push_back(play_selfplay_game(sc, uniform, id, "uniform"));

  // Chunk round trip: every sample's result is the game's result for its side to move, and a
  // proven root value (the solver's +-1) agrees with it.
  write_chunk((dir.path / "data-000000.psd").string(), train_games);
  const std::vector<GameData> read = read_chunk((dir.path / "data-000000.psd").string());
  REQUIRE(read.size() == train_games.size());
  int proven = 0;
  for (const GameData& g : read) {
    REQUIRE(g.winner >= 0);
    for (const TrainingSample& s : g.samples) {
      const int mover = sample_position(g, s).side_to_move();
      REQUIRE(s.result == (mover == g.winner ? 1 : -1));
      if (s.root_value == 1.0f || s.root_value == -1.0f) {
        ++proven;
        INFO("game " << g.game_id << " turn " << s.turn_index << " root value " << s.root_value);
        CHECK(int(s.root_value) == s.result);
      }
    }
  }
  CHECK(proven >= 60);  // at least the last turn of each game

  // AdamW: SGD sits on a plateau of the value loss for hundreds of steps (test_trainer.cpp).
  auto tr = ConfigReader::from_string(
      "net: {preset: tiny}\nthreads: 1\nbatch_size: 64\nsteps: 400\nwindow: {min_samples: 100000}\n"
      "optimizer: {type: adamw, lr: 0.003}\nlog_interval: 50\ncheckpoint_interval: 1000\n",
      "perspective_train");
  const TrainConfig tc = parse_train_config(tr);
  const std::string ckpt = (dir.path / "net.ckpt").string();
  train_network(tc, dir.path.string(), "", ckpt, "");

  nn::ServiceOptions so;
  so.batch_timeout_us = 0;
  auto net = nn::make_net_evaluator(ckpt, so);
  // The value on the last 2 turns of the training games: a sign or frame error on the path
  // makes it point at the loser for one side or both. (On held-out games this small a data set
  // teaches nothing: 30 games gave mean value x result -0.15 and +0.08 for the two sides.)
  const std::vector<Probe> probes = last_turns(train_games, 2);
  auto net_value = [&](const Position& pos) {
    Evaluation e;
    net->evaluate(pos, e);
    return double(e.value);
  };
  for (int side = 0; side < 2; ++side) {
    int n = 0;
    const double a = agreement(probes, side, net_value, &n);
    INFO("side to move " << side << ": mean net value x result over " << n
                         << " training positions of the last 2 turns = " << a);
    REQUIRE(n >= 8);
    CHECK(a > 0.1);
  }

  // The policy's frame: where the side to move can win at once, the self-play search's only
  // root turn was the win checks' winning turn (a one-hot target), so the trained policy must
  // give that chain more probability than uniform priors do, from both sides' points of view.
  // (A policy target in the wrong frame for player 1 would teach it to kick away from goal.)
  // Training positions, as for the value: the check is of the frame, not of generalisation; on
  // held-out positions the gain for one side fell from +1.3 to +0.16 (9 positions) when the win
  // checks' proofs changed which games self-play played.
  int winnable[2] = {0, 0};
  double gain[2] = {0, 0};
  for (const Probe& p : last_turns(train_games, 6)) {
    std::string win;
    if (!TurnGenerator().find_winning_turn(p.pos, &win)) continue;
    Evaluation e;
    net->evaluate(p.pos, e);
    const int side = p.pos.side_to_move();
    gain[side] += chain_log_prob_gain(p.pos, e.policy_logits, win);
    ++winnable[side];
  }
  for (int side = 0; side < 2; ++side) {
    INFO("side to move " << side << ": mean log-probability gain of the winning chain over uniform "
                         << "priors, " << winnable[side]
                         << " training positions = " << gain[side] / std::max(1, winnable[side]));
    REQUIRE(winnable[side] >= 4);
    CHECK(gain[side] / winnable[side] > 0.5);
  }

  // The search's root value with the trained net points at the winner for both sides in the
  // last 4 turns (where the solver proves a root, its +-1 counts too).
  SearchParams sp;
  sp.solver = true;
  sp.root_initial_turns = 32;
  sp.initial_turns = 8;
  const std::vector<Probe> earlier = last_turns(held_out, 4);
  for (int side = 0; side < 2; ++side) {
    int n = 0;
    const double a = agreement(
        earlier, side,
        [&](const Position& pos) {
          Search s(*net, sp, 1);
          SearchLimits lim;
          lim.visits = 32;
          return double(s.run(pos, lim).root_value);
        },
        &n);
    INFO("side to move " << side << ": mean root value x result over " << n
                         << " held-out positions of the last 4 turns = " << a);
    CHECK(a > 0.1);
  }
}
