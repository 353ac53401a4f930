// Training data chunks: round trip, truncation, corruption, version mismatch.
#include <catch2/catch.hpp>

#include <cstring>
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
      // Legal turns of the sample's position (the reader checks them), visits summing > 0.
      d.record = g.record();
      Position pos = sample_position(d, s);
      if (!pos.game_over()) {
        auto turns = gen.generate(pos);
        for (size_t k = 0; k < turns.size() && k < 2; ++k)
          s.policy.push_back({turns[k].kicks, uint32_t(1 + rng() % 100)});
      }
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

namespace {

/// A chunk file's bytes with the header's payload size replaced.
std::string with_claimed_size(std::string bytes, uint64_t size) {
  std::memcpy(&bytes[8], &size, 8);
  return bytes;
}

}  // namespace

TEST_CASE("a payload size in the header beyond what the file can hold is refused up front") {
  // Regression: the header's size (up to 16 GB) was allocated and zeroed before decompression:
  // a 100-byte file made `train` take 3 GB, a 12 GB claim ended it with a bare std::bad_alloc.
  TempDir dir;
  std::string file = (dir.path / "c.psd").string();
  write_chunk(file, make_games(1, 3));
  const std::string bytes = read_file(file);
  for (uint64_t claim : {uint64_t(3) << 30, uint64_t(12) << 30, uint64_t(16) << 30}) {
    const std::string big = (dir.path / "big.psd").string();
    write_file_atomic(big, with_claimed_size(bytes, claim));
    CHECK_THROWS_WITH(read_chunk(big), Catch::StartsWith(big + ": corrupted: header says the payload is " +
                                                         std::to_string(claim)));
  }
  // The exact 100-byte file: a 16-byte header claiming 3 GB and an 84-byte zstd frame that
  // itself claims 3 GB (content size field), so header and frame agree.
  std::string hundred("PSDZ\x01\x00\x00\x00", 8);
  hundred += std::string("\x00\x00\x00\xC0\x00\x00\x00\x00", 8);       // 3 GiB
  hundred += std::string("\x28\xB5\x2F\xFD\xA0\x00\x00\x00\xC0", 9);  // frame header, 4-byte size
  hundred += std::string("\x41\x02\x00", 3);  // last block, raw, 72 bytes
  hundred += std::string(72, 'x');
  REQUIRE(hundred.size() == 100);
  CHECK_THROWS_WITH(parse_chunk("hundred.psd", hundred),
                    Catch::StartsWith("hundred.psd: corrupted: implausible payload size 3221225472"));
  // A frame that decompresses to more than it says is stopped at the stated size.
  CHECK(parse_chunk("ok.psd", bytes).size() == 1);
}

TEST_CASE("games that are not legal games are skipped with a warning naming file, game and why") {
  // Regression: a valid zstd record with a digit 9 stopped training with
  // "error: turn 1 ('9'), kick 1: bad character '9'" (or "make_policy_target: ..."), naming
  // neither file nor game.
  TempDir dir;
  auto games = make_games(3, 4);
  games[1].record = "9";
  games[1].samples.resize(1);
  games[1].samples[0].turn_index = 1;
  games[2].samples[0].policy[0].kicks = "9";
  const std::string file = (dir.path / "bad-games.psd").string();
  write_chunk(file, games);
  std::vector<std::string> warnings;
  auto back = read_chunk(file, &warnings);
  REQUIRE(back.size() == 1);
  CHECK(back[0].game_id == games[0].game_id);
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0] == file + ": game 1 (id 1001): turn 1 ('9'), kick 1: bad character '9' "
                              "(expected a direction digit 0-7)");
  CHECK_THAT(warnings[1], Catch::StartsWith(file + ": game 2 (id 1002): sample 0 (turn 0), policy turn 1 ('9'), kick 1: bad character '9'"));

  SECTION("other illegal games") {
    auto g = make_games(1, 5);
    auto bad = [&](const GameData& d) {
      std::vector<std::string> w;
      write_chunk(file, {d});
      CHECK(read_chunk(file, &w).empty());
      REQUIRE(w.size() == 1);
      return w[0];
    };
    GameData d = g[0];
    d.width = 9;
    CHECK_THAT(bad(d), Catch::Contains("width must be even"));
    d = g[0];
    d.samples[0].turn_index = 999;
    CHECK_THAT(bad(d), Catch::Contains("past the end of the record"));
    d = g[0];
    d.samples[0].result = 5;
    CHECK_THAT(bad(d), Catch::Contains("bad result 5"));
    d = g[0];
    d.samples[0].full_search = true;
    for (auto& t : d.samples[0].policy) t.visits = 0;
    CHECK_THAT(bad(d), Catch::Contains("sum to 0"));
    d = g[0];
    d.samples[0].full_search = true;
    d.samples[0].policy[0].kicks = "00";
    CHECK_THAT(bad(d), Catch::Contains("policy turn 1 ('00')"));
  }
}
