// Every row of ../shared/testdata (made by an independent implementation) must match exactly.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "engine/record.h"
#include "engine/tsv.h"
#include "engine/turns.h"

using namespace ps;

namespace {

std::vector<std::pair<int, TsvRow>> load(const std::string& file) {
  std::string path = std::string(PS_TESTDATA_DIR) + "/" + file;
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<std::pair<int, TsvRow>> rows;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || is_tsv_header(line)) continue;
    rows.emplace_back(n, parse_tsv_row(line));
  }
  return rows;
}

Game replay(const TsvRow& r) {
  return parse_record(Pitch::get(r.width, r.length, r.goal), r.variant, r.record);
}

}  // namespace

TEST_CASE("games.tsv: winner, reason and kick count of every game") {
  auto rows = load("games.tsv");
  REQUIRE(rows.size() >= 780);
  for (auto& [line, r] : rows) {
    INFO("games.tsv line " << line << ": " << r.record);
    Game g = replay(r);
    REQUIRE(r.extra.size() >= 3);
    CHECK(g.position().game_over());
    CHECK(g.position().winner() == std::stoi(r.extra[0]));
    CHECK(std::string(reason_name(g.position().reason())) == r.extra[1]);
    CHECK(g.position().num_kicks() == std::stoi(r.extra[2]));
    CHECK(g.record() == r.record);
  }
}

TEST_CASE("turns.tsv: distinct turns and chains after every record") {
  auto rows = load("turns.tsv");
  REQUIRE(rows.size() >= 60);
  TurnGenerator gen;
  for (auto& [line, r] : rows) {
    INFO("turns.tsv line " << line);
    Game g = replay(r);
    auto st = gen.count(g.position());
    CHECK(st.distinct == std::stoull(r.extra.at(0)));
    CHECK(st.chains == std::stoull(r.extra.at(1)));
    // The listing agrees with the count and its representatives replay to distinct ends.
    auto list = gen.generate(g.position());
    CHECK(list.size() == st.distinct);
  }
}

TEST_CASE("perft.tsv: perft at the given depth after every record") {
  auto rows = load("perft.tsv");
  REQUIRE(rows.size() >= 36);
  for (auto& [line, r] : rows) {
    INFO("perft.tsv line " << line);
    Game g = replay(r);
    CHECK(perft(g.position(), std::stoi(r.extra.at(0))) == std::stoull(r.extra.at(1)));
  }
}
