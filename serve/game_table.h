// The games being played: a thread-safe table of sessions with a cap, the least recently used
// game evicted first. A session is shared (shared_ptr) so that a bot search still running on an
// evicted game finishes harmlessly.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "engine/record.h"
#include "search/player.h"

namespace ps::serve {

/// One game against a bot (or between two people at one board).
struct GameSession {
  GameSession(const Pitch& pitch, Variant variant) : game(pitch, variant) {}

  // Set before the session is shared, constant afterwards.
  std::string id;
  int human = 0;             ///< the side the person plays; -1: both sides (no bot)
  std::string opponent;      ///< the bot's player type ("" without a bot)
  std::string strength;      ///< opponent "bot": easy, medium, strong, full or custom; else ""
  TurnBudget budget;
  std::unique_ptr<Player> bot;  ///< used by one bot job at a time (see `thinking`)

  // Guarded by mu.
  std::mutex mu;
  std::condition_variable changed;  ///< notified when a bot job ends
  Game game;
  bool thinking = false;            ///< a bot job is queued or running
  std::string last_bot_turn, bot_error;
  double last_bot_ms = 0.0;
  uint64_t version = 0;             ///< bumped by every change of `game`

  /// Is it the bot's turn (game going on, bot's side to move)? Caller holds mu.
  bool bots_turn() const {
    const Position& p = game.position();
    return human >= 0 && !p.game_over() && p.side_to_move() != human;
  }
};

class GameTable {
 public:
  explicit GameTable(size_t max_games) : max_games_(max_games < 1 ? 1 : max_games) {}

  /// Stores s under a fresh random id (also written to s->id), evicting the least recently used
  /// game when the table is full. Returns the id.
  std::string add(const std::shared_ptr<GameSession>& s);
  /// The game with this id (now the most recently used). ApiError 400 naming the id otherwise.
  std::shared_ptr<GameSession> get(const std::string& id);

  size_t size() const;
  size_t capacity() const { return max_games_; }
  uint64_t evicted() const;

 private:
  struct Entry {
    std::shared_ptr<GameSession> session;
    uint64_t used = 0;
  };
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> games_;
  size_t max_games_;
  uint64_t tick_ = 0, evicted_ = 0;
};

}  // namespace ps::serve
