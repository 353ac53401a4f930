#include "tournament/referee.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "core/text.h"
#include "engine/record.h"
#include "tournament/external_engine.h"

namespace ps::tour {

namespace {

using Clock = std::chrono::steady_clock;

bool all_digits(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '7'; });
}

// The game after the opening's turns; throws std::invalid_argument for a bad opening.
Game opening_game(const Pitch& pitch, Variant variant, const std::vector<std::string>& opening) {
  Game game(pitch, variant);
  for (size_t i = 0; i < opening.size(); ++i) {
    try {
      game.play_turn(opening[i]);
    } catch (const RecordError& e) {
      throw std::invalid_argument("opening turn " + std::to_string(i + 1) + " " +
                                  quoted_text(opening[i], 60) + ": " + e.what());
    }
    if (game.position().game_over()) throw std::invalid_argument("the opening ends the game");
  }
  return game;
}

// The winner (the other seat of a forfeit, else the rules'), record and PGN of a finished game.
void finish_result(const Game& game, int forfeit, const std::map<std::string, std::string>& pgn_tags,
                   GameResult& r) {
  if (forfeit >= 0) {
    r.winner_seat = 1 - forfeit;
  } else {
    r.winner_seat = game.position().winner();
    r.termination = reason_name(game.position().reason());
  }
  r.winner = r.winner_seat;
  r.loser = 1 - r.winner_seat;
  r.record = game.record();
  r.turns = int(game.turns().size());
  std::map<std::string, std::string> tags = pgn_tags;
  tags["Result"] = r.winner_seat == 0 ? "1-0" : "0-1";
  tags["Termination"] = r.termination + (r.detail.empty() ? "" : ": " + r.detail);
  r.pgn = write_pgn(game, tags);
}

}  // namespace

GameResult play_game(Player& player0, Player& player1, const Pitch& pitch, Variant variant,
                     const std::vector<std::string>& opening, const TurnBudget& budget0,
                     const TurnBudget& budget1, const std::map<std::string, std::string>& pgn_tags) {
  const auto t0 = Clock::now();
  Player* players[2] = {&player0, &player1};
  const TurnBudget budgets[2] = {budget0, budget1};
  GameResult r;
  Game game = opening_game(pitch, variant, opening);
  int forfeit = -1;  // seat that lost by forfeit
  auto lose = [&](int seat, const std::string& termination, const std::string& detail) {
    forfeit = seat;
    r.termination = termination;
    r.detail = detail;
  };
  for (int s = 0; s < 2 && forfeit < 0; ++s) {
    try {
      players[s]->new_game(pitch, variant);
    } catch (const EngineFailure& e) {
      lose(s, e.kind_name(), e.what());
    } catch (const std::exception& e) {
      lose(s, "player error", std::string("new_game failed: ") + e.what());
    }
  }
  while (forfeit < 0 && !game.position().game_over()) {
    const int s = game.position().side_to_move();
    const auto start = Clock::now();
    std::string answer;
    bool ok = true;
    try {
      answer = players[s]->choose_turn(game, budgets[s]);
    } catch (const EngineFailure& e) {
      lose(s, e.kind_name(), e.what());
      ok = false;
    } catch (const std::exception& e) {
      lose(s, "player error", e.what());
      ok = false;
    }
    const int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    r.max_turn_ms[s] = std::max(r.max_turn_ms[s], ms);
    if (!ok) break;
    Game next = game;
    try {
      next.play_turn(answer);
    } catch (const RecordError& e) {
      const std::string detail = "answered " + quoted_text(answer, 60) + ": " + e.what();
      if (answer.empty() || !all_digits(answer)) lose(s, "garbage output", detail);
      else if (std::string(e.what()).find("turn not finished") != std::string::npos)
        lose(s, "incomplete turn", detail);
      else lose(s, "illegal turn", detail);
      break;
    }
    game = std::move(next);
  }
  for (Player* p : players)
    if (auto* e = dynamic_cast<ExternalEnginePlayer*>(p)) e->finish();
  finish_result(game, forfeit, pgn_tags, r);
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

}  // namespace ps::tour
