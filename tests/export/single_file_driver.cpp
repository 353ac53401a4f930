// Replays the shared test vectors (../shared/testdata: games.tsv, turns.tsv, perft.tsv) on the
// rules engine of a generated single file, which this driver includes:
//   g++ -O2 -std=c++17 -DPS_SINGLE_FILE_TEST_DRIVER -DPS_SINGLE_FILE='"bot.cpp"' \
//       single_file_driver.cpp -o driver && ./driver games.tsv turns.tsv perft.tsv
// Row forms (engine/tsv.h): W L G variant record, then winner reason kicks (games),
// distinct_turns chains (turns) or depth perft (perft). Prints a line per disagreeing row and
// a count per file; exit status 1 when any row disagrees or a file has no rows.
#include PS_SINGLE_FILE

#include <fstream>
#include <sstream>

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  for (char c : line) {
    if (c == '\t') {
      f.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  f.push_back(cur);
  return f;
}

// The record's turns kick by kick; each turn must end exactly at its last kick.
std::string replay(ps::Position& pos, const std::string& record) {
  std::istringstream ss(record);
  std::string turn;
  while (ss >> turn) {
    if (pos.game_over()) return "a turn after the end of the game";
    const int mover = pos.side_to_move();
    for (size_t i = 0; i < turn.size(); ++i) {
      const int d = turn[i] - '0';
      if (!pos.is_legal(d)) return "illegal kick in turn " + turn;
      pos.make_kick(d);
      const bool ended = pos.game_over() || pos.turn_start() || pos.side_to_move() != mover;
      if (ended != (i + 1 == turn.size())) return "turn " + turn + " does not end at its last kick";
    }
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  int bad = 0;
  for (int a = 1; a < argc; ++a) {
    std::ifstream in(argv[a]);
    if (!in) {
      std::printf("%s: cannot read\n", argv[a]);
      return 1;
    }
    std::string line, kind;
    int rows = 0, differ = 0, lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      const std::vector<std::string> f = split_tabs(line);
      if (f.size() < 7) continue;
      if (f[0] == "W") {
        kind = f[5];
        continue;
      }
      ++rows;
      ps::Position pos(ps::Pitch::get(std::stoi(f[0]), std::stoi(f[1]), std::stoi(f[2])),
                       ps::parse_variant(f[3]));
      std::string got = replay(pos, f[4]), want;
      if (got.empty()) {
        if (kind == "winner") {
          want = f[5] + "\t" + f[6] + "\t" + f[7];
          got = pos.game_over() ? std::to_string(pos.winner()) + "\t" + ps::reason_name(pos.reason()) +
                                      "\t" + std::to_string(pos.num_kicks())
                                : "ongoing";
        } else if (kind == "distinct_turns") {
          want = f[5] + "\t" + f[6];
          ps::TurnGenerator gen;
          gen.set_enumeration_limit(int64_t(20) << 20);  // as `papersoccer turns`
          const ps::TurnGenerator::Stats st = gen.count(pos);
          got = std::to_string(st.distinct) + "\t" + std::to_string(st.chains);
          if (!st.complete) got += " (state limit)";
        } else if (kind == "depth") {
          want = f[6];
          got = std::to_string(ps::perft(pos, std::stoi(f[5])));
        } else {
          std::printf("%s: unknown columns (%s)\n", argv[a], kind.c_str());
          return 1;
        }
      }
      if (got != want) {
        ++differ;
        std::printf("%s:%d: expected %s, got %s\n", argv[a], lineno, want.c_str(), got.c_str());
      }
    }
    std::printf("%s: %d rows, %d agree, %d differ\n", argv[a], rows, rows - differ, differ);
    if (rows == 0 || differ) bad = 1;
  }
  return bad;
}
