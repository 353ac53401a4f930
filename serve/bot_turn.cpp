#include "serve/bot_turn.h"

#include "serve/api_error.h"

namespace ps::serve {

namespace {

// Runs on a pool thread: searches a copy of the game, then plays the answer if the game has not
// changed meanwhile. Never throws.
void bot_job(const std::shared_ptr<GameSession>& s, const Game& snapshot, uint64_t version) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string turn, error;
  try {
    turn = s->bot->choose_turn(snapshot, s->budget);
    // Drop what the bot keeps between turns (an mcts tree): an idle game then holds no search
    // memory, so memory is bounded by the running searches, not by the games kept.
    s->bot->new_game(snapshot.start().pitch(), snapshot.start().variant());
  } catch (const std::exception& e) {
    error = std::string("the bot (") + s->opponent + ") failed: " + e.what();
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::lock_guard<std::mutex> lock(s->mu);
  if (error.empty() && s->version == version) {
    Game next = s->game;
    try {
      next.play_turn(turn);
      s->game = std::move(next);
      ++s->version;
      s->last_bot_turn = turn;
    } catch (const RecordError& e) {
      error = "the bot (" + s->opponent + ") answered an illegal turn '" + turn + "': " + e.what();
    }
  }
  s->bot_error = error;
  s->last_bot_ms = ms;
  s->thinking = false;
  s->changed.notify_all();
}

}  // namespace

void start_bot_turn(const std::shared_ptr<GameSession>& s, JobPool& pool) {
  std::lock_guard<std::mutex> lock(s->mu);
  start_bot_turn_locked(s, pool);
}

void start_bot_turn_locked(const std::shared_ptr<GameSession>& s, JobPool& pool) {
  if (s->thinking) return;
  if (s->human < 0) throw bad_request("this game has no bot (opponent 'human')");
  const Position& pos = s->game.position();
  if (pos.game_over()) throw bad_request("the game is over: no bot turn");
  if (!s->bots_turn())
    throw bad_request("it is not the bot's turn: player " + std::to_string(pos.side_to_move()) +
                      " (you) to kick" + (pos.turn_start() ? "" : " again after a bounce"));
  Game snapshot = s->game;
  const uint64_t version = s->version;
  s->thinking = true;
  s->bot_error.clear();
  if (!pool.submit([s, snapshot, version] { bot_job(s, snapshot, version); })) {
    s->thinking = false;
    throw ApiError(503, "the server is busy: too many searches queued; try again shortly");
  }
}

bool wait_for_bot(GameSession& s, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(s.mu);
  return s.changed.wait_for(lock, timeout, [&] { return !s.thinking; });
}

}  // namespace ps::serve
