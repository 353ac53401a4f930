// Game records: the text notation of RULES.md (turns of direction digits separated by spaces),
// a flat kick list split into turns by the rules, and PGN-like files with tags and numbered
// turn pairs ("[Result \"1-0\"]", "1. 3 6 2. 754 210").
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/position.h"

namespace ps {

/// A malformed or illegal record. what() names the turn (1-based) and kick (1-based) and why:
/// "bad character", "illegal kick", "turn ended early", "turn not finished", "kick after the end".
/// turn/kick are 0 when not applicable.
class RecordError : public std::runtime_error {
 public:
  RecordError(const std::string& msg, int turn, int kick)
      : std::runtime_error(msg), turn_(turn), kick_(kick) {}
  int turn() const { return turn_; }
  int kick() const { return kick_; }

 private:
  int turn_, kick_;
};

/// One kick of a game's history.
struct KickEvent {
  uint16_t from;   ///< point index before the kick
  uint8_t dir;     ///< direction 0..7
  uint8_t player;  ///< who kicked
};

/// A game: the start position, the kicks played, and the current position.
class Game {
 public:
  Game(const Pitch& pitch, Variant variant) : start_(pitch, variant), pos_(start_) {}

  const Position& start() const { return start_; }
  const Position& position() const { return pos_; }
  const std::vector<KickEvent>& kicks() const { return kicks_; }
  /// Completed turns as kick strings, plus the unfinished current turn if any.
  const std::vector<std::string>& turns() const { return turns_; }
  int num_complete_turns() const;

  /// Plays one kick; throws RecordError ("illegal kick" / "kick after the end").
  void kick(int dir);
  /// Plays a whole turn given as digits; it must start at a turn start and end the turn exactly.
  /// Throws RecordError naming the turn and kick index.
  void play_turn(std::string_view digits);
  /// Takes back the last kick (no-op at the start).
  void undo_kick();
  /// Takes back the unfinished current turn if there is one, otherwise the last complete turn.
  void undo_turn();

  /// The record notation of the game so far (complete turns only, plus a partial one).
  std::string record() const;

 private:
  Position start_, pos_;
  std::vector<KickEvent> kicks_;
  std::vector<KickUndo> undo_;
  std::vector<std::string> turns_;
};

/// Parses a record ("4 2 0 635"); every turn must be complete. Throws RecordError.
Game parse_record(const Pitch& pitch, Variant variant, std::string_view record);
/// Plays a flat list of kick digits, splitting it into turns by the rules; the last turn may be
/// unfinished. Throws RecordError (turn/kick indices refer to the split turns).
Game parse_kicks(const Pitch& pitch, Variant variant, std::string_view kicks);

/// "kick" formatted for messages: point coordinates "(x,y)".
std::string point_name(const Pitch& pitch, int p);

/// One game read from a PGN-like file.
struct PgnGame {
  std::map<std::string, std::string> tags;
  Game game;
  int line = 0;  ///< line of the file where the game starts
};

/// Reads every game of a PGN-like stream. Tags [Pitch "8x10"], [Goal "2"] and [Variant "..."]
/// select the rules (defaults otherwise); numbered turn pairs "1. 3 6 2. 754 210", comments in
/// {braces}, and a final result token (1-0, 0-1, *) are accepted. A [Result] tag that disagrees
/// with the replayed game is an error. Errors throw std::runtime_error with "name:line: ...".
std::vector<PgnGame> read_pgn(std::istream& in, const std::string& name,
                              const Pitch& default_pitch, Variant default_variant);
/// Writes one game in the same form (tags, then the numbered turns and the result token).
std::string write_pgn(const Game& game, const std::map<std::string, std::string>& tags);

}  // namespace ps
