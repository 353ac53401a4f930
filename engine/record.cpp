#include "engine/record.h"

#include <cctype>
#include <sstream>

#include "core/text.h"

namespace ps {

namespace {

const char* kDirNames[kNumDirs] = {"N", "NE", "E", "SE", "S", "SW", "W", "NW"};

std::string turn_label(int turn, std::string_view digits) {
  return "turn " + std::to_string(turn) + " (" + quoted_text(digits, 60) + ")";
}

// Why kick d is not legal in pos (pos must not be finished).
std::string why_illegal(const Position& pos, int d) {
  const Pitch& pitch = pos.pitch();
  const int from = pos.ball();
  std::string what = "illegal kick " + std::to_string(d) + " (" + kDirNames[d] + ") from " +
                     point_name(pitch, from);
  if (!((pitch.allowed_dirs(from) >> d) & 1)) {
    int tx = pitch.x_of(from) + kDirDx[d], ty = pitch.y_of(from) + kDirDy[d];
    return what + ": (" + std::to_string(tx) + "," + std::to_string(ty) +
           ") is off the pitch or the segment leaves the pitch";
  }
  const int to = from + pitch.dir_offset(d);
  const bool wall = (pitch.wall_dirs(from) >> d) & 1;
  return what + " to " + point_name(pitch, to) + ": segment already drawn" + (wall ? " (wall)" : "");
}

std::string end_text(const Position& pos) {
  return std::string("the game already ended (player ") + std::to_string(pos.winner()) +
         " won by " + reason_name(pos.reason()) + ")";
}

}  // namespace

std::string point_name(const Pitch& pitch, int p) {
  return "(" + std::to_string(pitch.x_of(p)) + "," + std::to_string(pitch.y_of(p)) + ")";
}

int Game::num_complete_turns() const {
  int n = int(turns_.size());
  if (!pos_.game_over() && !pos_.turn_start()) --n;
  return n;
}

void Game::kick(int dir) {
  if (pos_.game_over())
    throw RecordError("kick " + std::to_string(kicks_.size() + 1) + ": kick after the end: " +
                          end_text(pos_),
                      0, int(kicks_.size()) + 1);
  if (!pos_.is_legal(dir))
    throw RecordError("kick " + std::to_string(kicks_.size() + 1) + ": " + why_illegal(pos_, dir),
                      0, int(kicks_.size()) + 1);
  if (pos_.turn_start()) turns_.emplace_back();
  kicks_.push_back({uint16_t(pos_.ball()), uint8_t(dir), uint8_t(pos_.side_to_move())});
  undo_.push_back(pos_.make_kick(dir));
  turns_.back().push_back(char('0' + dir));
}

void Game::undo_kick() {
  if (kicks_.empty()) return;
  pos_.unmake_kick(undo_.back());
  undo_.pop_back();
  kicks_.pop_back();
  turns_.back().pop_back();
  if (turns_.back().empty()) turns_.pop_back();
}

void Game::undo_turn() {
  if (turns_.empty()) return;
  size_t n = turns_.back().size();
  for (size_t i = 0; i < n; ++i) undo_kick();
}

void Game::play_turn(std::string_view digits) {
  const int turn = num_complete_turns() + 1;
  for (size_t i = 0; i < digits.size(); ++i) {
    char c = digits[i];
    if (c < '0' || c > '7')
      throw RecordError(turn_label(turn, digits) + ", kick " + std::to_string(i + 1) +
                            ": bad character " + quoted_text(std::string_view(&c, 1)) +
                            " (expected a direction digit 0-7)",
                        turn, int(i) + 1);
  }
  if (digits.empty()) throw RecordError("turn " + std::to_string(turn) + ": empty turn", turn, 0);
  if (!pos_.turn_start())
    throw RecordError(turn_label(turn, digits) + ": the previous turn is not finished", turn, 0);
  for (size_t i = 0; i < digits.size(); ++i) {
    const int k = int(i) + 1;
    const int d = digits[i] - '0';
    if (pos_.game_over())
      throw RecordError(turn_label(turn, digits) + ", kick " + std::to_string(k) +
                            ": kick after the end: " + end_text(pos_),
                        turn, k);
    if (i > 0 && pos_.turn_start())
      throw RecordError(turn_label(turn, digits) + ", kick " + std::to_string(k) +
                            ": turn ended early: after kick " + std::to_string(k - 1) +
                            " the ball rests on " + point_name(pos_.pitch(), pos_.ball()) +
                            " and the turn passed to player " +
                            std::to_string(pos_.side_to_move()),
                        turn, k);
    if (!pos_.is_legal(d))
      throw RecordError(turn_label(turn, digits) + ", kick " + std::to_string(k) + ": " +
                            why_illegal(pos_, d),
                        turn, k);
    kick(d);
  }
  if (!pos_.game_over() && !pos_.turn_start())
    throw RecordError(turn_label(turn, digits) + ": turn not finished: after kick " +
                          std::to_string(digits.size()) + " the ball bounced on " +
                          point_name(pos_.pitch(), pos_.ball()) + " and player " +
                          std::to_string(pos_.side_to_move()) + " must kick again",
                      turn, int(digits.size()));
}

std::string Game::record() const {
  std::string s;
  for (size_t i = 0; i < turns_.size(); ++i) {
    if (i) s += ' ';
    s += turns_[i];
  }
  return s;
}

Game parse_record(const Pitch& pitch, Variant variant, std::string_view record) {
  Game g(pitch, variant);
  size_t i = 0;
  while (i < record.size()) {
    while (i < record.size() && (record[i] == ' ' || record[i] == '\t')) ++i;
    size_t j = i;
    while (j < record.size() && record[j] != ' ' && record[j] != '\t') ++j;
    if (j > i) g.play_turn(record.substr(i, j - i));
    i = j;
  }
  return g;
}

Game parse_kicks(const Pitch& pitch, Variant variant, std::string_view kicks) {
  Game g(pitch, variant);
  for (size_t i = 0; i < kicks.size(); ++i) {
    const char c = kicks[i];
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    const int turn = g.num_complete_turns() + 1;
    const int k = g.position().turn_start() ? 1 : g.position().kicks_in_turn() + 1;
    const std::string where = "turn " + std::to_string(turn) + ", kick " + std::to_string(k) +
                              " (character " + std::to_string(i + 1) + ")";
    if (c < '0' || c > '7')
      throw RecordError(where + ": bad character " + quoted_text(std::string_view(&c, 1)) +
                            " (expected a direction digit 0-7)",
                        turn, k);
    if (g.position().game_over())
      throw RecordError(where + ": kick after the end: " + end_text(g.position()), turn, k);
    if (!g.position().is_legal(c - '0'))
      throw RecordError(where + ": " + why_illegal(g.position(), c - '0'), turn, k);
    g.kick(c - '0');
  }
  return g;
}

// --- PGN-like files ---------------------------------------------------------------------------

namespace {

struct PendingGame {
  std::map<std::string, std::string> tags;
  std::vector<std::pair<std::string, int>> turns;  // turn text, line
  std::string result_token;
  int line = 0;
  bool has_content() const { return !tags.empty() || !turns.empty() || !result_token.empty(); }
};

[[noreturn]] void pgn_fail(const std::string& name, int line, const std::string& msg) {
  throw std::runtime_error(name + ":" + std::to_string(line) + ": " + msg);
}

PgnGame finish_pgn(PendingGame& pg, const std::string& name, const Pitch& default_pitch,
                   Variant default_variant) {
  const Pitch* pitch = &default_pitch;
  Variant variant = default_variant;
  try {
    int w = pitch->width(), l = pitch->length(), g = pitch->goal();
    const auto goal_tag = pg.tags.find("Goal");
    if (goal_tag != pg.tags.end()) {
      std::istringstream ss(goal_tag->second);
      std::string rest;
      if (!(ss >> g) || (ss >> rest))
        throw std::invalid_argument("bad Goal tag " + quoted_text(goal_tag->second, 60) +
                                    " (expected a width, e.g. 2)");
    }
    if (auto it = pg.tags.find("Pitch"); it != pg.tags.end()) {
      PitchChoice p;
      try {
        p = parse_pitch_spec(it->second, g);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("bad Pitch tag: " + std::string(e.what()));
      }
      if (goal_tag != pg.tags.end() && p.goal != g)
        throw std::invalid_argument("the Pitch tag " + quoted_text(it->second, 60) +
                                    " and the Goal tag name different goals");
      w = p.width;
      l = p.length;
      g = p.goal;
    }
    pitch = &Pitch::get(w, l, g);
    if (auto it = pg.tags.find("Variant"); it != pg.tags.end()) variant = parse_variant(it->second);
  } catch (const std::exception& e) {
    pgn_fail(name, pg.line, e.what());
  }
  PgnGame out{pg.tags, Game(*pitch, variant), pg.line};
  for (auto& [text, line] : pg.turns) {
    try {
      out.game.play_turn(text);
    } catch (const RecordError& e) {
      pgn_fail(name, line, e.what());
    }
  }
  std::string result = pg.result_token;
  if (auto it = pg.tags.find("Result"); it != pg.tags.end()) result = it->second;
  const Position& end = out.game.position();
  if (end.game_over() && (result == "1-0" || result == "0-1")) {
    int tagged = result == "1-0" ? 0 : 1;
    if (tagged != end.winner())
      pgn_fail(name, pg.line,
               "Result \"" + result + "\" disagrees with the record: player " +
                   std::to_string(end.winner()) + " won by " + reason_name(end.reason()));
  }
  pg = PendingGame{};
  return out;
}

}  // namespace

std::vector<PgnGame> read_pgn(std::istream& in, const std::string& name,
                              const Pitch& default_pitch, Variant default_variant) {
  std::vector<PgnGame> games;
  PendingGame pg;
  bool in_moves = false, in_comment = false;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t s = line.find_first_not_of(" \t");
    if (s == std::string::npos) {  // blank line ends the movetext of a game
      if (in_moves && !in_comment) {
        games.push_back(finish_pgn(pg, name, default_pitch, default_variant));
        in_moves = false;
      }
      continue;
    }
    if (!in_comment && line[s] == '[') {
      if (in_moves) {
        games.push_back(finish_pgn(pg, name, default_pitch, default_variant));
        in_moves = false;
      }
      size_t q1 = line.find('"', s), q2 = line.rfind('"'), close = line.rfind(']');
      if (q1 == std::string::npos || q2 <= q1 || close == std::string::npos || close < q2)
        pgn_fail(name, lineno, "malformed tag line (expected [Name \"value\"])");
      std::string key = line.substr(s + 1, q1 - s - 1);
      while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.pop_back();
      if (key.empty()) pgn_fail(name, lineno, "tag without a name");
      if (!pg.has_content()) pg.line = lineno;
      // A repeated tag (two [Pitch] tags) is an error: silently keeping one picked the rules.
      if (!pg.tags.emplace(key, line.substr(q1 + 1, q2 - q1 - 1)).second)
        pgn_fail(name, lineno, "a second " + quoted_text(key, 40) + " tag in one game");
      continue;
    }
    if (!pg.has_content()) pg.line = lineno;
    in_moves = true;
    size_t i = 0;
    while (i < line.size()) {
      if (in_comment) {
        size_t e = line.find('}', i);
        if (e == std::string::npos) { i = line.size(); break; }
        in_comment = false;
        i = e + 1;
        continue;
      }
      char c = line[i];
      if (c == ' ' || c == '\t') { ++i; continue; }
      if (c == '{') { in_comment = true; ++i; continue; }
      if (c == ';') break;  // rest-of-line comment
      size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '{') ++j;
      std::string tok = line.substr(i, j - i);
      i = j;
      if (tok == "1-0" || tok == "0-1" || tok == "*") {
        pg.result_token = tok;
        continue;
      }
      // Strip a move number "12." / "12..." (possibly glued to the turn: "12.435").
      size_t k = 0;
      while (k < tok.size() && std::isdigit(static_cast<unsigned char>(tok[k]))) ++k;
      if (k > 0 && k < tok.size() && tok[k] == '.') {
        // Move N numbers turns 2N-1 and 2N (player 0's, then player 1's: "N..." before it).
        const std::string number = tok.substr(0, k);
        const size_t expected = pg.turns.size() / 2 + 1;
        if (number.size() > 9 || std::stoul(number) != expected)
          pgn_fail(name, lineno, "move number " + quoted_text(number, 20) + " where " +
                                     std::to_string(expected) + " was expected (turn " +
                                     std::to_string(pg.turns.size() + 1) + ")");
        while (k < tok.size() && tok[k] == '.') ++k;
        tok = tok.substr(k);
        if (tok.empty()) continue;
      }
      pg.turns.emplace_back(tok, lineno);
    }
  }
  if (in_comment) pgn_fail(name, lineno, "unterminated { comment");
  if (pg.has_content()) games.push_back(finish_pgn(pg, name, default_pitch, default_variant));
  return games;
}

std::string write_pgn(const Game& game, const std::map<std::string, std::string>& tags) {
  std::ostringstream os;
  std::map<std::string, std::string> t = tags;
  const Pitch& pitch = game.start().pitch();
  t.emplace("Pitch", std::to_string(pitch.width()) + "x" + std::to_string(pitch.length()));
  if (pitch.goal() != 2) t.emplace("Goal", std::to_string(pitch.goal()));
  t.emplace("Variant", variant_name(game.start().variant()));
  const Position& end = game.position();
  std::string result = end.game_over() ? (end.winner() == 0 ? "1-0" : "0-1") : "*";
  t.emplace("Result", result);
  for (auto& [k, v] : t) os << '[' << k << " \"" << v << "\"]\n";
  os << '\n';
  const auto& turns = game.turns();
  int col = 0;
  for (size_t i = 0; i < turns.size(); ++i) {
    std::string piece;
    if (i % 2 == 0) piece = std::to_string(i / 2 + 1) + ". ";
    piece += turns[i];
    if (col + int(piece.size()) > 79) { os << '\n'; col = 0; }
    else if (col > 0) { os << ' '; ++col; }
    os << piece;
    col += int(piece.size());
  }
  os << (col > 0 ? " " : "") << result << "\n\n";
  return os.str();
}

}  // namespace ps
