// Reviewing through the API: pasted PGN and records, and the games of run directories.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "serve_fixture.h"

using ps::serve::test::contains;
using ps::serve::test::Json;
using ps::serve::test::Reply;
using ps::serve::test::TestServer;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace

TEST_CASE("pasted records and PGN open for review", "[serve]") {
  TestServer s;
  const Reply records = s.post("/api/review", {{"text", "0 3\n4 2 0\n"}});
  REQUIRE(records.status == 200);
  REQUIRE(records.body["games"].size() == 2);
  CHECK(records.body["games"][1]["kicks"] == "420");
  CHECK(records.body["games"][1]["turn_ends"] == Json::array({1, 2, 3}));
  const Reply pgn = s.post("/api/review", {{"text", "[Pitch \"8x12\"]\n[Variant \"no-bounce\"]\n\n1. 0 3 2. 2 *\n"}});
  REQUIRE(pgn.status == 200);
  CHECK(pgn.body["games"][0]["pitch"] == "8x12");
  CHECK(pgn.body["games"][0]["record"] == "0 3 2");
  const Reply bad = s.post("/api/review", {{"text", "0 3\n0 9\n"}});
  CHECK(bad.status == 400);
  CHECK(contains(bad.body, "pasted line 2"));
  CHECK(contains(s.post("/api/review", Json::object()).body, "give 'text'"));
  CHECK(records.body["truncated"] == false);
}

TEST_CASE("a paste of more games than a review shows says so", "[serve]") {
  TestServer s;
  std::string text;
  for (int i = 0; i < 205; ++i) text += "0 3\n";
  const Reply r = s.post("/api/review", {{"text", text}});
  REQUIRE(r.status == 200);
  CHECK(r.body["games"].size() == 200);
  CHECK(r.body["truncated"] == true);
  CHECK(r.body["note"].get<std::string>().find("first 200 games") != std::string::npos);
}

TEST_CASE("the games of a run directory open for review", "[serve]") {
  const fs::path root = fs::temp_directory_path() / ("ps-serve-runs-" + std::to_string(::getpid()));
  fs::remove_all(root);
  write(root / "demo/config.yaml", "run:\n  pitch: 8x10\n  variant: standard\n");
  write(root / "demo/eval/gen-0001/games.tsv", "8\t10\t2\tstandard\t0 3\n8\t10\t2\tstandard\t4 2 0\n");
  write(root / "demo/eval/gen-0001/games.csv", "player0,player1,winner,termination,turns\ngen-0001,greedy,,,2\ngen-0001,random,,,3\n");
  write(root / "demo/data/gen0000-000000.tsv", "8\t10\t2\tstandard\t2 4\n");
  fs::create_directories(root / "not-a-run");
  auto o = TestServer::options();
  o.runs_dir = root.string();
  TestServer s(o);

  const Reply runs = s.post("/api/runs", Json::object());
  REQUIRE(runs.status == 200);
  REQUIRE(runs.body["runs"].size() == 1);
  CHECK(runs.body["runs"][0]["run"] == "demo");
  const Reply files = s.post("/api/runs", {{"run", "demo"}});
  CHECK(files.body["files"] == Json::array({"eval/gen-0001/games.tsv", "data/gen0000-000000.tsv"}));
  const Reply eval = s.post("/api/review", {{"run", "demo"}, {"file", "eval/gen-0001/games.tsv"}, {"offset", 1}});
  REQUIRE(eval.status == 200);
  CHECK(eval.body["total"] == 2);
  REQUIRE(eval.body["games"].size() == 1);
  CHECK(eval.body["games"][0]["record"] == "4 2 0");
  CHECK(eval.body["games"][0]["tags"]["Player1"] == "random");
  const Reply selfplay = s.post("/api/review", {{"run", "demo"}, {"file", "data/gen0000-000000.tsv"}});
  CHECK(selfplay.body["games"][0]["tags"]["Player0"] == "gen-0000");
  // Nothing outside the run's game files can be read.
  CHECK(contains(s.post("/api/review", {{"run", "demo"}, {"file", "config.yaml"}}).body, "is not a games file"));
  CHECK(contains(s.post("/api/review", {{"run", ".."}, {"file", "x"}}).body, "is not the name of a run"));
  CHECK(contains(s.post("/api/runs", {{"run", "a/b"}}).body, "is not the name of a run"));
  fs::remove_all(root);
}
