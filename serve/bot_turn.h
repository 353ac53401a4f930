// The bot's turn in a game session, searched on the job pool (never on an HTTP thread) within
// the session's budget, and played into the game when it is done.
#pragma once

#include <chrono>
#include <memory>

#include "serve/game_table.h"
#include "serve/job_pool.h"

namespace ps::serve {

/// Queues the bot's turn unless a bot job already runs on s. ApiError 400 when it is not the
/// bot's turn (no bot, the person to move, game over), 503 when the pool's queue is full; s is
/// unchanged then. The caller must not hold s->mu.
void start_bot_turn(const std::shared_ptr<GameSession>& s, JobPool& pool);
/// The same with s->mu held by the caller, so that a change of the game and the bot's turn
/// after it are one step (a kick with "reply": true), undone together when the turn is refused.
void start_bot_turn_locked(const std::shared_ptr<GameSession>& s, JobPool& pool);

/// Waits until no bot job runs on s, at most `timeout`; true when none runs. Caller must not
/// hold s->mu.
bool wait_for_bot(GameSession& s, std::chrono::milliseconds timeout);

}  // namespace ps::serve
