// `papersoccer play`: a human plays in the terminal against any registered player type.
// The board is drawn with render_ascii; kicks are typed as direction digits, one or several at
// a time (a bounce asks for more); `undo` takes back the last own turn (with the reply to it),
// `quit` ends, `help` explains.
#include <iostream>
#include <memory>
#include <sstream>

#include "apps/commands.h"
#include "core/text.h"
#include "engine/render.h"
#include "tournament/external_engine.h"
#include "tournament/registry.h"

namespace ps::cmd {

namespace {

const char* kDirNames[8] = {"N", "NE", "E", "SE", "S", "SW", "W", "NW"};

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string legal_list(const Position& pos) {
  std::string s;
  for (int d = 0; d < 8; ++d)
    if (pos.is_legal(d)) s += (s.empty() ? "" : ", ") + std::to_string(d) + " " + kDirNames[d];
  return s;
}

void print_help(std::ostream& out) {
  out << "Type kicks as direction digits, clockwise from north:\n"
         "    7 0 1       7 NW   0 N   1 NE\n"
         "    6 @ 2       6 W          2 E\n"
         "    5 4 3       5 SW   4 S   3 SE\n"
         "One digit or several at once (e.g. 435). After a bounce you kick again.\n"
         "Commands: undo (take back your last turn and the reply), quit, help.\n";
}

struct PlayArgs {
  std::string opponent;  // "" = mcts with the shipped model, else random; mcts defaults to that model
  std::string options;  // YAML map of the opponent's options
  int side = 0;
  std::string pitch = "8x10";
  int goal = 2;
  std::string variant = "standard";
  int64_t time_ms = 1000;
  int64_t visits = -1;
  uint64_t seed = 1;
};

// The opponent of a: its type, or the shipped model's mcts (else random) by default.
std::unique_ptr<Player> make_opponent(const PlayArgs& a, const Pitch& pitch, Variant variant,
                                      std::ostream& out) {
  YAML::Node opts;
  try {
    opts = a.options.empty() ? YAML::Node() : YAML::Load(a.options);
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument("--opponent-options: not valid YAML: " + e.msg);
  }
  std::string type = a.opponent;
  std::string registry_type = type;  // the registry type that makes the opponent
  if (type.empty() || type == "mcts") {
    // The default opponent, and an `mcts` opponent without a checkpoint: the shipped model of
    // this pitch and variant (--opponent-options apply to it); with no shipped model the
    // default opponent plays random turns and `mcts` says which checkpoint it lacks.
    const bool no_checkpoint = (opts.IsNull() || opts.IsMap()) && !opts["checkpoint"];
    // Looked up only when it is needed: a checkpoint the user named is not blocked by something
    // odd in the shipped model's place.
    const std::string model = type.empty() || no_checkpoint ? default_model_path(pitch, variant) : "";
    if (type.empty()) type = model.empty() ? "random" : "mcts";
    if (!model.empty() && no_checkpoint) opts["checkpoint"] = model;
    // The network as `bot` plays it (alpha-beta with the shipped value net of these rules on
    // every timed turn): the registry's `bot` type with the model as its checkpoint.
    registry_type = type == "mcts" ? "bot" : type;
    if (model.empty() && a.opponent.empty())
      out << "No shipped model for " << pitch.name() << " " << variant_name(variant)
          << "; playing against random turns.\n";
    if (model.empty() && !a.opponent.empty() && no_checkpoint)
      throw std::invalid_argument("--opponent mcts: no shipped model for " + pitch.name() + " " +
                                  variant_name(variant) +
                                  "; give one with --opponent-options '{checkpoint: FILE}'");
  }
  return tour::create_player(registry_type, opts, tour::PlayerContext{&pitch, variant, a.seed, type},
                             "--opponent-options", "opponent");
}

// The opponent's turn; false when it failed or played an illegal turn (the human wins).
bool opponent_turn(Game& game, Player& opponent, const TurnBudget& budget, std::ostream& out) {
  out << opponent.name() << " is thinking...\n" << std::flush;
  std::string answer;
  try {
    answer = opponent.choose_turn(game, budget);
  } catch (const std::exception& e) {
    out << opponent.name() << " failed (" << e.what() << "): you win.\n";
    return false;
  }
  Game next = game;
  try {
    next.play_turn(answer);
  } catch (const RecordError& e) {
    out << opponent.name() << " played an illegal turn '" << answer << "' (" << e.what() << "): you win.\n";
    return false;
  }
  game = std::move(next);
  out << opponent.name() << " plays " << answer << "\n";
  return true;
}

// `undo`: the unfinished part of this turn, else the opponent's reply and the human's last
// turn. True when the game changed.
bool undo(Game& game, int human, bool external, std::ostream& out) {
  if (external) {
    out << "undo is not available against an external engine (it cannot take moves back).\n";
    return false;
  }
  if (!game.position().turn_start()) {
    game.undo_turn();  // the unfinished part of this turn
    out << "Took back the kicks of this turn.\n";
    return true;
  }
  Game trial = game;
  while (!trial.turns().empty()) {
    trial.undo_turn();
    // After undoing a turn, the side to move is the player who made it.
    if (trial.position().side_to_move() == human) {
      game = std::move(trial);
      out << "Took back your last turn and the reply.\n";
      return true;
    }
  }
  out << "Nothing to undo.\n";
  return false;
}

// The record for a goodbye line; an empty record printed as nothing at all.
std::string record_so_far(const Game& game) {
  const std::string r = game.record();
  return r.empty() ? "(no kicks yet)" : r;
}

// Plays the typed kicks (direction digits, spaces ignored) all or none. True when played.
bool play_kicks(Game& game, const std::string& line, std::ostream& out) {
  std::string digits;
  for (char c : line)
    if (!std::isspace(static_cast<unsigned char>(c))) digits += c;
  for (char c : digits)
    if (c < '0' || c > '7') {
      out << quoted_text(std::string_view(&c, 1))
          << " is not a direction digit: use 0-7 (0 N, 1 NE, 2 E, 3 SE, 4 S, 5 SW, 6 W, 7 NW), "
          << "or undo / quit / help.\n";
      return false;
    }
  Game next = game;
  std::string error;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (next.position().turn_start() || next.position().game_over())) {
      error = "after kick " + std::to_string(i) + " (" + digits.substr(0, i) + ") " +
              (next.position().game_over() ? std::string("the game is over")
                                           : "the ball stopped on an untouched point " +
                                                 point_name(game.position().pitch(), next.position().ball()) +
                                                 " and your turn ends") +
              "; the rest '" + digits.substr(i) + "' cannot be played. Nothing was played.";
      break;
    }
    try {
      next.kick(digits[i] - '0');
    } catch (const RecordError& e) {
      error = "kick " + std::to_string(i + 1) + " ('" + std::string(1, digits[i]) + "'): " + e.what() +
              ". Nothing was played.";
      break;
    }
  }
  if (!error.empty()) {
    out << "Illegal: " << error << "\n";
    return false;
  }
  game = std::move(next);
  return true;
}

int run_play(const PlayArgs& a, std::istream& in, std::ostream& out) {
  const Pitch& pitch = pitch_option(a.pitch, a.goal);
  const Variant variant = parse_variant(a.variant);
  if (a.side != 0 && a.side != 1) throw UsageError("--side must be 0 or 1");
  auto opponent = make_opponent(a, pitch, variant, out);
  const bool external = dynamic_cast<tour::ExternalEnginePlayer*>(opponent.get()) != nullptr;
  const TurnBudget budget{a.time_ms, a.visits};
  const int human = a.side;
  Game game(pitch, variant);
  opponent->new_game(pitch, variant);
  out << "You are player " << human << " (attacking the " << (human == 0 ? "north (top)" : "south (bottom)")
      << " goal) against " << opponent->name() << ". Type help for help.\n";
  bool redraw = true;  // draw the board again only after it changed
  for (;;) {
    const Position& pos = game.position();
    if (pos.game_over()) {
      out << "\n" << render_ascii(pos) << "\n"
          << (pos.winner() == human ? "You win" : "You lose") << " (" << reason_name(pos.reason())
          << "). Record: " << game.record() << "\n";
      return 0;
    }
    if (pos.side_to_move() != human) {
      if (!opponent_turn(game, *opponent, budget, out)) return 0;
      redraw = true;
      continue;
    }
    if (redraw) out << "\n" << render_ascii(pos) << "\n";
    redraw = false;
    if (!pos.turn_start()) out << "Bounce: kick again. ";
    out << "Legal kicks: " << legal_list(pos) << "\n> " << std::flush;
    std::string line;
    if (!std::getline(in, line)) {
      out << "\nInput ended; quitting. Record so far: " << record_so_far(game) << "\n";
      return 0;
    }
    line = trim(line);
    if (line.empty()) continue;
    if (line == "quit" || line == "q" || line == "exit") {
      out << "Bye. Record so far: " << record_so_far(game) << "\n";
      return 0;
    }
    if (line == "help" || line == "?") print_help(out);
    else if (line == "undo" || line == "u") redraw = undo(game, human, external, out);
    else redraw = play_kicks(game, line, out);
  }
}

}  // namespace

void register_play_command(CLI::App& app) {
  auto a = std::make_shared<PlayArgs>();
  auto* c = app.add_subcommand("play", "Play against a player type in the terminal");
  c->add_option("--opponent", a->opponent,
                "player type from the registry (see tournament --list-types); default: mcts with "
                "the shipped models/<pitch>-<variant>.model, else random");
  c->add_option("--opponent-options", a->options,
                "the opponent's options as a YAML map, e.g. \"{command: [./bot]}\"; without "
                "--opponent they apply to the default opponent (the shipped model is its "
                "checkpoint unless they name one)");
  c->add_option("--side", a->side, "your side: 0 kicks first and attacks the north goal, 1")->capture_default_str();
  c->add_option("--pitch", a->pitch, "pitch WxL")->capture_default_str()->check(pitch_check());
  c->add_option("--goal", a->goal, "goal width")->capture_default_str();
  c->add_option("--variant", a->variant, "standard, single-bounce or no-bounce")
      ->capture_default_str()
      ->check(variant_check());
  c->add_option("--time-ms", a->time_ms, "opponent's time per turn, ms (-1: no limit)")
      ->capture_default_str()
      ->check(integer_at_least(1, true));
  c->add_option("--visits", a->visits,
                "opponent's visits per turn (-1: no limit); with visits the mcts opponent plays the "
                "net's PUCT instead of alpha-beta")
      ->capture_default_str()
      ->check(integer_at_least(1, true));
  c->add_option("--seed", a->seed, "seed for the opponent")
      ->capture_default_str()
      ->check(integer_at_least(0));
  c->callback([a] { run_play(*a, std::cin, std::cout); });
}

}  // namespace ps::cmd
