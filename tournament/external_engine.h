// An external engine as a ps::Player: any program speaking the CodinGame Paper Soccer protocol
// (protocol.h) on stdin/stdout, run as a subprocess the way cutechess-cli runs chess engines.
// One process per game: started by new_game(), killed (and reaped) by the next new_game(),
// finish() or the destructor.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "search/player.h"
#include "tournament/process.h"
#include "tournament/protocol.h"
#include "tournament/registry.h"

namespace ps::tour {

/// Why an engine lost without a legal answer. The tournament scores it as a loss and records
/// kind() and what().
class EngineFailure : public std::runtime_error {
 public:
  enum class Kind { kTime, kCrash, kGarbage, kStart };
  EngineFailure(Kind kind, const std::string& msg) : std::runtime_error(msg), kind_(kind) {}
  Kind kind() const { return kind_; }
  /// "time forfeit", "engine crash", "garbage output", "engine start failure".
  const char* kind_name() const;

 private:
  Kind kind_;
};

struct ExternalEngineOptions {
  std::vector<std::string> command;  ///< argv; command[0] is looked up in PATH if it has no '/'
  std::string working_dir;           ///< "" = inherit ours
  std::string name;                  ///< display name ("" = the program's file name)
  int64_t first_turn_ms = kProtocolFirstTurnMs;  ///< limit for the first answer of a game, ms
  int64_t turn_ms = kProtocolTurnMs;             ///< limit for every later answer, ms
  /// Extra time tolerated beyond each limit before the answer counts as late, ms (cutechess-cli
  /// calls this the time margin).
  int64_t margin_ms = 0;
  /// How long the engine may take to exit by itself after its stdin is closed, ms; then SIGKILL.
  int64_t exit_grace_ms = 50;
  std::string stderr_path;  ///< the engine's stderr: "" = discarded, "-" = ours, else appended here
  /// The protocol cannot set up a position, so by default games against this engine start from
  /// the start position (tournament openings are skipped). When true, the engine is trusted to
  /// apply the digits it receives kick by kick: its first input then carries every kick played
  /// so far (the whole opening, own kicks included) as one digit string, and openings are used.
  /// ProtocolBot accepts this.
  bool opening_history = false;
};

class ExternalEnginePlayer : public Player {
 public:
  /// Checks that the command exists and is executable; throws std::runtime_error naming it
  /// otherwise. Starts nothing yet.
  explicit ExternalEnginePlayer(ExternalEngineOptions options);
  ~ExternalEnginePlayer() override;

  std::string name() const override { return name_; }
  /// Ends a running engine process and starts a fresh one (throws EngineFailure(kStart)).
  void new_game(const Pitch& pitch, Variant variant) override;
  /// Sends the id (first call of a game) and the opponent's last turn, waits for the answer
  /// within first_turn_ms / turn_ms (+ margin_ms); `budget` is not used (the protocol carries
  /// no budget). Returns the answer line with surrounding blanks removed; legality is the caller's
  /// business. Throws EngineFailure on a late answer, a closed output (crash/exit), or a line
  /// over 64 KiB.
  std::string choose_turn(const Game& game, const TurnBudget& budget) override;
  /// Closes the engine's input, waits exit_grace_ms, kills it and reaps it.
  void finish();

  /// Time the last answer took, ms.
  int64_t last_answer_ms() const { return last_ms_; }
  const ExternalEngineOptions& options() const { return options_; }

 private:
  ExternalEngineOptions options_;
  std::string name_;
  std::unique_ptr<ChildProcess> process_;  // the current game's engine, if any
  bool id_sent_ = false;
  int answers_ = 0;
  size_t kicks_known_ = 0;  // kicks of the game the engine has been told or has played
  int64_t last_ms_ = 0;
};

/// The "external" registry factory. YAML keys: command (a list of strings, or one string split
/// at spaces), working_dir, first_turn_ms, turn_ms, margin_ms, exit_grace_ms, stderr,
/// opening_history.
PlayerFactory make_external_engine_factory();

}  // namespace ps::tour
