#include "tournament/protocol.h"

#include <algorithm>
#include <chrono>
#include <istream>
#include <ostream>

#include "core/text.h"
#include "engine/turns.h"

namespace ps::tour {

namespace {

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

}  // namespace

bool read_protocol_line(std::istream& in, std::string& line, int lineno) {
  line.clear();
  std::streambuf* buf = in.rdbuf();
  if (!in.good() || buf == nullptr) {
    in.setstate(std::ios::failbit);
    return false;
  }
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      // As std::getline: a last line without its newline is still a line.
      in.setstate(line.empty() ? std::ios::eofbit | std::ios::failbit : std::ios::eofbit);
      return !line.empty();
    }
    if (c == '\n') return true;
    if (line.size() >= kMaxProtocolLine)
      throw ProtocolError("protocol line " + std::to_string(lineno) + ": longer than " +
                          std::to_string(kMaxProtocolLine) + " characters, starting " +
                          quoted_text(line, 40));
    line.push_back(char(c));
  }
}

std::string protocol_turn_input(const std::string& last_turn) {
  const std::string t = last_turn.empty() ? std::string("-") : last_turn;
  return std::to_string(t.size()) + "\n" + t + "\n";
}

ProtocolBot::ProtocolBot(Player& player, ProtocolBotOptions options)
    : player_(player), options_(options) {
  if (!options_.pitch) options_.pitch = &Pitch::standard();
  worker_ = std::thread([this] { worker_loop(); });
}

ProtocolBot::~ProtocolBot() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

void ProtocolBot::worker_loop() {
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return stop_ || job_.has_value(); });
    if (stop_) return;
    Game game = std::move(*job_);
    job_.reset();
    const uint64_t id = job_id_;
    const TurnBudget budget = job_budget_;
    busy_ = true;
    lock.unlock();
    std::string answer;
    std::exception_ptr error;
    try {
      answer = player_.choose_turn(game, budget);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    busy_ = false;
    answer_ = std::move(answer);
    error_ = error;
    answer_id_ = id;
    lock.unlock();
    cv_.notify_all();
  }
}

std::string ProtocolBot::quick_turn(const Game& game) { return fallback_turn(game.position()); }

namespace {

using Clock = std::chrono::steady_clock;

// Reads the opponent's turn (a length line, then the turn, or '-' on player 0's first turn)
// and plays it on game. catch_up: before our first answer, when the line may hold several turns
// of both sides (an opening sent as one line); later it must be one turn of the opponent. False
// at the end of input. Throws ProtocolError naming the line.
bool read_opponent_turn(std::istream& in, int& lineno, int me, Game& game, Clock::time_point& start,
                        std::ostream* log, bool catch_up) {
  std::string len_line, turn_line;
  if (!read_protocol_line(in, len_line, lineno + 1)) return false;
  ++lineno;
  start = Clock::now();
  // Checked before reading on, so a bad line followed by the end of input is still reported.
  len_line = trim(len_line);
  long length = -1;
  try {
    size_t used = 0;
    length = std::stol(len_line, &used);
    if (used != len_line.size()) length = -1;
  } catch (const std::exception&) {}
  const std::string where = "protocol line " + std::to_string(lineno);
  if (length < 1)
    throw ProtocolError(where + ": expected the length of the opponent's turn, got " +
                        quoted_text(len_line, 60));
  if (!read_protocol_line(in, turn_line, lineno + 1)) return false;
  ++lineno;
  const std::string at = "protocol line " + std::to_string(lineno);
  turn_line = trim(turn_line);
  // An empty line is no turn: taking it as one would let us kick twice in a row.
  if (turn_line.empty())
    throw ProtocolError(at + ": expected the opponent's turn (digits 0-7, or '-'), got an empty line");
  if (turn_line == "-") {
    if (!(me == 0 && game.kicks().empty()))
      throw ProtocolError(at + ": '-' (no previous turn) is only valid on player 0's first turn");
  } else {
    // Applied kick by kick, so a catch-up line holding several turns (an opening) works too.
    try {
      for (size_t i = 0; i < turn_line.size(); ++i) {
        const char c = turn_line[i];
        if (c < '0' || c > '7')
          throw RecordError(
              "kick " + std::to_string(i + 1) + ": bad character " + quoted_text(std::string_view(&c, 1)), 0,
              int(i) + 1);
        // Later lines hold one turn: a kick of ours in one was played from a false position.
        if (!catch_up && game.position().side_to_move() == me && !game.position().game_over())
          throw RecordError(
              "kick " + std::to_string(i + 1) +
                  " would be ours: after our first answer a line holds one turn of the opponent",
              0, int(i) + 1);
        game.kick(c - '0');
      }
    } catch (const RecordError& e) {
      throw ProtocolError(at + ": opponent turn " + quoted_text(turn_line, 60) +
                          " is not legal here: " + e.what());
    }
    if (!game.position().game_over() && !game.position().turn_start())
      throw ProtocolError(at + ": opponent turn " + quoted_text(turn_line, 60) +
                          " is not finished (the ball bounced)");
  }
  if (log && size_t(length) != turn_line.size())
    *log << "bot: length line says " << length << " but the turn " << quoted_text(turn_line, 60) << " has "
         << turn_line.size() << " characters; using the turn\n";
  if (game.position().game_over())
    throw ProtocolError(at + ": the game is already over, yet an answer is asked for");
  if (game.position().side_to_move() != me)
    throw ProtocolError(at + ": it is player " + std::to_string(game.position().side_to_move()) +
                        "'s turn, not ours (id " + std::to_string(me) + ")");
  return true;
}

// The time limit of an answer, ms: the first answer's limit less what the process start
// already spent of it (but never below a later turn's limit).
int64_t answer_limit_ms(const ProtocolBotOptions& o, bool first, Clock::time_point start) {
  int64_t limit = first ? o.first_turn_ms : o.turn_ms;
  if (first && o.first_turn_clock_start != Clock::time_point{} && o.first_turn_clock_start < start) {
    const int64_t spent =
        std::chrono::duration_cast<std::chrono::milliseconds>(start - o.first_turn_clock_start).count();
    limit = std::max(o.turn_ms, limit - spent);
  }
  return limit;
}

}  // namespace

std::string ProtocolBot::answer(const Game& game, int64_t limit_ms, Clock::time_point start,
                                std::ostream* log) {
  const auto deadline =
      start + std::chrono::milliseconds(std::max<int64_t>(1, limit_ms - options_.safety_ms));
  TurnBudget budget{std::max<int64_t>(1, limit_ms - options_.safety_ms - options_.search_margin_ms),
                    options_.visits};
  bool submitted = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (answer_id_ == job_id_) {  // the worker is free
      job_ = game;
      job_budget_ = budget;
      ++job_id_;
      submitted = true;
    }
  }
  if (submitted) cv_.notify_all();
  const std::string fallback = quick_turn(game);  // computed while the player thinks
  std::string answer;
  std::string why;
  if (submitted) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (cv_.wait_until(lock, deadline, [&] { return answer_id_ == job_id_; })) {
      if (error_) {
        try {
          std::rethrow_exception(error_);
        } catch (const std::exception& e) {
          why = std::string("the player failed: ") + e.what();
        } catch (...) {
          why = "the player failed";
        }
      } else {
        answer = answer_;
      }
    } else {
      why = "the player did not answer within " + std::to_string(limit_ms - options_.safety_ms) + " ms";
    }
  } else {
    why = "the player is still busy with an earlier turn";
  }
  if (why.empty()) {
    Game check = game;
    try {
      check.play_turn(trim(answer));
      answer = trim(answer);
    } catch (const RecordError& e) {
      why = "the player's turn " + quoted_text(answer, 60) + " is not legal: " + e.what();
    }
  }
  if (!why.empty()) {
    ++fallbacks_;
    answer = fallback;
    if (log) *log << "bot: " << why << "; answering the fallback turn " << answer << "\n";
  }
  return answer;
}

void ProtocolBot::run(std::istream& in, std::ostream& out, std::ostream* log) {
  std::string line;
  int lineno = 0;
  if (!read_protocol_line(in, line, 1)) return;
  ++lineno;
  const std::string id_text = trim(line);
  if (id_text != "0" && id_text != "1")
    throw ProtocolError("protocol line 1: expected the player id 0 or 1, got " + quoted_text(id_text, 60));
  const int me = id_text[0] - '0';
  Game game(*options_.pitch, options_.variant);
  player_.new_game(*options_.pitch, options_.variant);
  bool first = true;
  Clock::time_point start;
  while (read_opponent_turn(in, lineno, me, game, start, log, first)) {
    const int64_t limit = answer_limit_ms(options_, first, start);
    first = false;
    const std::string turn = answer(game, limit, start, log);
    out << turn << '\n';
    out.flush();
    game.play_turn(turn);
  }
}

}  // namespace ps::tour
