// Tiny players for the tournament tests (the real baselines live in search/).
#pragma once

#include <chrono>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include "engine/turns.h"
#include "search/player.h"
#include "tournament/registry.h"

namespace ps::tour::test {

/// Plays the first distinct turn TurnGenerator::generate lists (deterministic).
class FirstTurnPlayer : public Player {
 public:
  explicit FirstTurnPlayer(std::string name = "first") : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  std::string choose_turn(const Game& game, const TurnBudget&) override {
    auto turns = gen_.generate(game.position());
    if (turns.empty()) throw std::logic_error("FirstTurnPlayer: no turn (game over?)");
    return turns.front().kicks;
  }

 private:
  std::string name_;
  TurnGenerator gen_;
};

/// Plays a uniformly random distinct turn.
class RandomTurnPlayer : public Player {
 public:
  explicit RandomTurnPlayer(uint64_t seed, std::string name = "random")
      : name_(std::move(name)), rng_(seed) {}
  std::string name() const override { return name_; }
  std::string choose_turn(const Game& game, const TurnBudget&) override {
    auto turns = gen_.generate(game.position());
    if (turns.empty()) throw std::logic_error("RandomTurnPlayer: no turn (game over?)");
    return turns[std::uniform_int_distribution<size_t>(0, turns.size() - 1)(rng_)].kicks;
  }

 private:
  std::string name_;
  std::mt19937_64 rng_;
  TurnGenerator gen_;
};

/// Sleeps sleep_ms before answering the first turn (to test time enforcement in ProtocolBot).
class SlowPlayer : public Player {
 public:
  explicit SlowPlayer(int64_t sleep_ms) : sleep_ms_(sleep_ms) {}
  std::string name() const override { return "slow"; }
  std::string choose_turn(const Game& game, const TurnBudget&) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms_));
    return first_.choose_turn(game, {});
  }

 private:
  int64_t sleep_ms_;
  FirstTurnPlayer first_;
};

/// Registers "test-first" and "test-random" once (idempotent).
inline void register_test_players() {
  static const bool done = [] {
    register_player_type("test-first", [](ConfigReader&, const PlayerContext& c) {
      return std::make_unique<FirstTurnPlayer>(c.name);
    }, "first distinct turn (tests)");
    register_player_type("test-random", [](ConfigReader& o, const PlayerContext& c) {
      const uint64_t salt = o.get<uint64_t>("salt", 0);
      return std::make_unique<RandomTurnPlayer>(c.seed ^ salt, c.name);
    }, "uniformly random distinct turn (tests)");
    return true;
  }();
  (void)done;
}

}  // namespace ps::tour::test
