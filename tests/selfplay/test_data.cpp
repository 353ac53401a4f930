// Training data chunks: round trip, truncation, corruption, version mismatch.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include "core/fileutil.h"
#include "selfplay/data.h"
#include "tests/common/random_games.h"

using namespace ps;
namespace fs = std::filesystem;

namespace {

std::vector<GameData> make_games(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<GameData> games;
  TurnGenerator gen;
  for (int i = 0; i < n; ++i) {
    const Pitch& pitch = i % 2 ? Pitch::get(8, 12, 2) : Pitch::standard();
    Variant v = Variant(i % 3);
    Game g = testing::random_game(pitch, v, 200, rng);
    GameData d;
    d.width = pitch.width();
    d.length = pitch.length();
    d.goal = pitch.goal();
    d.variant = v;
    d.record = g.record();
    d.winner = int8_t(g.position().winner());
    d.reason = g.position().reason();
    d.game_id = 1000 + uint64_t(i);
    d.network = "gen-" + std::to_string(i);
    const int turns = g.num_complete_turns();
    for (int t = 0; t < turns; t += 2) {
      TrainingSample s;
      s.turn_index = uint16_t(t);
      s.full_search = t % 4 == 0;
      s.root_value = float(rng() % 2001) / 1000.0f - 1.0f;
      s.result = int8_t(rng() % 2 ? 1 : -1);
      s.turns_left = uint16_t(turns - t);
      s.policy.push_back({"0123", uint32_t(rng() % 100)});
      s.policy.push_back({"7", uint32_t(rng() % 100)});
      d.samples.push_back(s);
    }
    games.push_back(d);
  }
  return games;
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("ps_data_test_" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~TempDir() {
    try {
      ps::remove_tree(path.string());
    } catch (...) {  // never throw from a destructor; a leftover temp dir is harmless
    }
  }
};

}  // namespace

TEST_CASE("chunk round trip gives identical games and samples") {
  TempDir dir;
  auto games = make_games(12, 1);
  std::string file = (dir.path / "c.psd").string();
  write_chunk(file, games);
  auto back = read_chunk(file);
  REQUIRE(back.size() == games.size());
  for (size_t i = 0; i < games.size(); ++i) {
    const GameData &a = games[i], &b = back[i];
    CHECK(a.record == b.record);
    CHECK(a.width == b.width);
    CHECK(a.length == b.length);
    CHECK(a.variant == b.variant);
    CHECK(a.winner == b.winner);
    CHECK(a.reason == b.reason);
    CHECK(a.game_id == b.game_id);
    CHECK(a.network == b.network);
    REQUIRE(a.samples.size() == b.samples.size());
    for (size_t j = 0; j < a.samples.size(); ++j) {
      const TrainingSample &s = a.samples[j], &t = b.samples[j];
      CHECK(s.turn_index == t.turn_index);
      CHECK(s.full_search == t.full_search);
      CHECK(s.root_value == t.root_value);
      CHECK(s.result == t.result);
      CHECK(s.turns_left == t.turns_left);
      REQUIRE(s.policy.size() == t.policy.size());
      for (size_t k = 0; k < s.policy.size(); ++k) {
        CHECK(s.policy[k].kicks == t.policy[k].kicks);
        CHECK(s.policy[k].visits == t.policy[k].visits);
      }
      // The sample's position replays from the record.
      Position p = sample_position(b, t);
      CHECK(p.turn_start());
    }
  }
}

TEST_CASE("truncated, corrupted and foreign files are reported by name") {
  TempDir dir;
  std::string file = (dir.path / "c.psd").string();
  write_chunk(file, make_games(4, 2));
  std::string bytes = read_file(file);

  std::string cut = (dir.path / "cut.psd").string();
  write_file_atomic(cut, bytes.substr(0, bytes.size() / 2));
  CHECK_THROWS_WITH(read_chunk(cut), Catch::StartsWith(cut + ": truncated"));

  std::string bad = (dir.path / "bad.psd").string();
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x5A;
  write_file_atomic(bad, flipped);
  CHECK_THROWS_WITH(read_chunk(bad), Catch::StartsWith(bad + ": corrupted"));

  std::string other = (dir.path / "other.psd").string();
  write_file_atomic(other, "hello, this is not a chunk file");
  CHECK_THROWS_WITH(read_chunk(other), Catch::Contains("bad magic"));

  std::string vers = (dir.path / "v.psd").string();
  std::string v2 = bytes;
  v2[4] = 9;
  write_file_atomic(vers, v2);
  CHECK_THROWS_WITH(read_chunk(vers), Catch::Contains("data format version 9"));

  CHECK_THROWS_AS(read_chunk((dir.path / "missing.psd").string()), DataError);
}

TEST_CASE("remove_tree removes a directory tree and does not follow links") {
  TempDir dir;
  const fs::path outside = dir.path / "outside.txt";
  write_file_atomic(outside.string(), "keep me\n");
  const fs::path tree = dir.path / "tree";
  fs::create_directories(tree / "a" / "b");
  write_file_atomic((tree / "a" / "b" / "x.psd").string(), "x");
  write_file_atomic((tree / "y.tsv").string(), "y");
  fs::create_symlink(outside, tree / "link");
  // tree, a, b, x.psd, y.tsv, link
  CHECK(remove_tree(tree.string()) == 6);
  CHECK_FALSE(fs::exists(tree));
  CHECK(read_file(outside.string()) == "keep me\n");
  CHECK(remove_tree(tree.string()) == 0);  // absent: nothing to do, no error
  CHECK(remove_tree(outside.string()) == 1);  // a plain file
  CHECK_FALSE(fs::exists(outside));
}
