// The CodinGame Paper Soccer protocol, both sides.
//
// The engine reads one line with its id (0: first player, attacks the north goal; 1: second
// player). Then, on each of its turns, it reads two lines: the length (characters) of the
// opponent's last turn and that turn as direction digits (RULES.md notation); on player 0's
// first turn there is no previous turn and the lines are "1" and "-". It answers one line: its
// whole turn as digits. Time per answer: 1000 ms for the first, 200 ms after (configurable),
// counted from when the input has been written until the answer's newline arrives.
//
// This header: the message formats, and ProtocolBot, which lets any ps::Player act as such an
// engine on stdin/stdout (the `bot` subcommand). The referee side, which runs an engine as a
// subprocess, is ExternalEnginePlayer (external_engine.h).
#pragma once

#include <chrono>

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "engine/turns.h"
#include "search/player.h"

namespace ps::tour {

/// Default limits of the protocol, ms.
constexpr int64_t kProtocolFirstTurnMs = 1000;
constexpr int64_t kProtocolTurnMs = 200;

/// The two input lines for one turn: "<length>\n<turn>\n"; an empty last_turn (no previous
/// turn) is sent as "1\n-\n".
std::string protocol_turn_input(const std::string& last_turn);

/// Bad input from the referee: what() says which line and why.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The longest protocol line read, characters (a whole game's kicks on the largest pitch are far
/// fewer): a longer one is refused as soon as it passes this length, so that a referee that
/// never sends a newline cannot make the bot hold the stream in memory.
constexpr size_t kMaxProtocolLine = size_t(1) << 20;

/// std::getline with that bound: false at the end of input (a last line without a newline is
/// still returned), the line without its newline otherwise. Throws ProtocolError "protocol line
/// <lineno>: longer than 1048576 characters, starting '<40 characters>...'".
bool read_protocol_line(std::istream& in, std::string& line, int lineno);

struct ProtocolBotOptions {
  const Pitch* pitch = nullptr;  ///< nullptr = the standard 8x10 pitch
  Variant variant = Variant::kStandard;
  int64_t first_turn_ms = kProtocolFirstTurnMs;  ///< limit for the first answer, ms
  int64_t turn_ms = kProtocolTurnMs;             ///< limit for each later answer, ms
  /// Answer at the latest this long before the limit (pipe and scheduling latency), ms.
  int64_t safety_ms = 40;
  /// The player's own budget ends this long before that deadline: the search checks its clock
  /// between simulations and then builds its answer, so it overshoots its budget by a few ms.
  int64_t search_margin_ms = 10;
  /// Visits passed to the player in its TurnBudget (-1 = not limited by visits).
  int64_t visits = -1;
  /// A referee may start its clock for the first answer before the bot can read the line: it
  /// writes the first lines as soon as it starts the engine, while LibTorch and the model are
  /// still loading (about 0.5 s). When set (e.g. to the process start), the first limit counts
  /// from this time point instead of from the read, but never leaves less than turn_ms.
  /// Default (epoch): from the read.
  std::chrono::steady_clock::time_point first_turn_clock_start{};
};

/// Plays one protocol game for a Player on the given streams. Incoming turns are applied kick by
/// kick, so the line before the first answer may also carry several turns of both sides (a
/// tournament opening, see ExternalEngineOptions::opening_history); every later line must be one
/// turn of the opponent (a kick of ours in it is a ProtocolError). The player gets
/// TurnBudget{limit - safety_ms - search_margin_ms, visits}; it runs on a worker thread, and when it has not
/// answered by limit - safety_ms the bot answers a quick fallback turn instead (a winning turn
/// if there is one, else the first turn that does not lose at once), so the bot itself is never
/// late. While a late answer is still being computed, later turns also use the fallback.
/// Messages about fallbacks go to `log` when given (stderr in the `bot` subcommand).
/// The fallback is ps::fallback_turn (engine/turns.h).

class ProtocolBot {
 public:
  explicit ProtocolBot(Player& player, ProtocolBotOptions options = {});
  /// Waits for a still-running choose_turn call to finish.
  ~ProtocolBot();
  ProtocolBot(const ProtocolBot&) = delete;
  ProtocolBot& operator=(const ProtocolBot&) = delete;

  /// Reads the id, then answers turns until the input ends (EOF; returns normally, also in the
  /// middle of a game). Throws ProtocolError on a bad id, a bad length line, or an opponent turn
  /// that is illegal in the current game.
  void run(std::istream& in, std::ostream& out, std::ostream* log = nullptr);

  /// Turns answered by the fallback instead of the player (for tests and logs).
  int fallback_turns() const { return fallbacks_; }

 private:
  void worker_loop();
  std::string quick_turn(const Game& game);
  /// The answer to the position of game: the player's turn when it comes by start + limit_ms -
  /// safety_ms and is legal, else the fallback turn (the reason is logged).
  std::string answer(const Game& game, int64_t limit_ms, std::chrono::steady_clock::time_point start,
                     std::ostream* log);

  Player& player_;
  ProtocolBotOptions options_;
  int fallbacks_ = 0;

  std::mutex mutex_;
  std::condition_variable cv_;
  std::optional<Game> job_;        // set when a job is waiting for the worker
  TurnBudget job_budget_;
  bool busy_ = false;              // the worker is inside choose_turn
  bool has_answer_ = false;
  uint64_t job_id_ = 0, answer_id_ = 0;
  std::string answer_;
  std::exception_ptr error_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace ps::tour
