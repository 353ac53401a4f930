// Brute-force oracles for the search tests (exhaustive, independent of the search code).
#pragma once

#include <time.h>

#include <string>

#include "engine/record.h"
#include "engine/turns.h"

namespace ps::test {

inline Position after(const Position& p, const std::string& kicks) {
  Position q = p;
  for (char c : kicks) q.make_kick(c - '0');
  return q;
}

/// Does turn `kicks` from p win within two turns whatever the opponent replies? (An immediate
/// win counts.)
inline bool wins_within_two(const Position& p, const std::string& kicks) {
  const int me = p.side_to_move();
  const Position q = after(p, kicks);
  if (q.game_over()) return q.winner() == me;
  TurnGenerator g, w;
  bool ok = true;
  g.for_each_turn(q, [&](const Position& r, const uint8_t*, int) {
    if (!ok) return;
    if (r.game_over()) {
      if (r.winner() != me) ok = false;
    } else if (!w.find_winning_turn(r)) {
      ok = false;
    }
  });
  return ok;
}

/// Number of turns of p that win within two turns (exhaustive).
inline int count_wins_within_two(const Position& p) {
  TurnGenerator g;
  int n = 0;
  for (const Turn& t : g.generate(p)) n += wins_within_two(p, t.kicks);
  return n;
}

/// Turn neither loses at once nor leaves the opponent a winning turn.
inline bool is_safe(const Position& p, const std::string& kicks) {
  const Position q = after(p, kicks);
  if (q.game_over()) return q.winner() == p.side_to_move();
  TurnGenerator w;
  return !w.find_winning_turn(q);
}

/// Is `kicks` one complete legal turn from p (a turn start)? Uses Game::play_turn's checks.
inline bool is_legal_turn(const Game& game, const std::string& kicks) {
  Game g = game;
  try {
    g.play_turn(kicks);
  } catch (const RecordError&) {
    return false;
  }
  return true;
}

}  // namespace ps::test

namespace ps::test {

/// Does turn `kicks` from p force a win by the side to move within `own_turns` of its own turns
/// (this one included), whatever the opponent replies? Exhaustive; own_turns = 2 is
/// wins_within_two.
inline bool forced_win_within(const Position& p, const std::string& kicks, int own_turns) {
  const int me = p.side_to_move();
  const Position q = after(p, kicks);
  if (q.game_over()) return q.winner() == me;
  if (own_turns <= 1) return false;
  TurnGenerator g;
  bool ok = true;
  g.for_each_turn(q, [&](const Position& r, const uint8_t*, int) {
    if (!ok) return;
    if (r.game_over()) {
      if (r.winner() != me) ok = false;
      return;
    }
    TurnGenerator mine;
    bool found = false;
    for (const Turn& t : mine.generate(r))
      if (forced_win_within(r, t.kicks, own_turns - 1)) {
        found = true;
        break;
      }
    if (!found) ok = false;
  });
  return ok;
}

/// The heavy position of the engine benchmark (8x10 standard): a tangle with hundreds of
/// thousands of distinct turns, for the time-limit tests.
inline Game heavy_game() {
  return parse_kicks(
      Pitch::standard(), Variant::kStandard,
      "13064113570225017036575014630745741422243523574227742164435274617703502106741745431672745757"
      "134661453130361");
}

/// CPU time of the calling thread, ms. A time-limited search that ignored its clock would
/// spend CPU past the limit; a thread the loaded machine did not schedule spends none, so tests
/// of "no runaway" check this and only a loose bound on the wall time.
inline double thread_cpu_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

}  // namespace ps::test
