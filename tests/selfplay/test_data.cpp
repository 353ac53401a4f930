// Training data chunks: round trip, truncation, corruption, version mismatch.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <zstd.h>

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

namespace {

/// Every field of every game and sample equal, and each sample's position replayable.
void check_same_games(const std::vector<GameData>& games, const std::vector<GameData>& back) {
  REQUIRE(back.size() == games.size());
  for (size_t i = 0; i < games.size(); ++i) {
    const GameData &a = games[i], &b = back[i];
    CHECK(a.record == b.record);
    CHECK(a.width == b.width);
    CHECK(a.length == b.length);
    CHECK(a.goal == b.goal);
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

}  // namespace

TEST_CASE("chunk round trip gives identical games and samples") {
  TempDir dir;
  auto games = make_games(12, 1);
  std::string file = (dir.path / "c.psd").string();
  write_chunk(file, games);
  check_same_games(games, read_chunk(file));
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
  // Regression: a 3-byte text file was called a truncated chunk. Too short for the header, it
  // is truncated only when its bytes begin the magic.
  write_file_atomic(other, "abc");
  CHECK_THROWS_WITH(read_chunk(other), other + ": not a training data chunk (bad magic)");
  write_file_atomic(other, bytes.substr(0, 3));
  CHECK_THROWS_WITH(read_chunk(other), other + ": truncated: only 3 bytes");
  // Regression: an empty file was "truncated: only 0 bytes"; it is named empty.
  write_file_atomic(other, "");
  CHECK_THROWS_WITH(read_chunk(other), other + ": empty file (0 bytes)");

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

namespace {

constexpr size_t kV2Header = 20;  // "PSDZ", u32 version, u64 payload size, u32 game count

template <class T>
T field_at(const std::string& bytes, size_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

/// The zstd frame's content (one game's fields in version 2).
std::string decompress(const std::string& frame) {
  const unsigned long long n = ZSTD_getFrameContentSize(frame.data(), frame.size());
  REQUIRE(n != ZSTD_CONTENTSIZE_ERROR);
  REQUIRE(n != ZSTD_CONTENTSIZE_UNKNOWN);
  std::string out(size_t(n), '\0');
  REQUIRE(ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size()) == n);
  return out;
}

/// A version-1 chunk of these games, built from the layout (header, one frame of "PSTD", game
/// count and the games' fields, which version 2 keeps one game per frame), then `trailing`.
std::string version1_chunk(const std::vector<GameData>& games, const std::string& trailing = "") {
  std::string payload("PSTD", 4);
  const uint32_t count = uint32_t(games.size());
  payload.append(reinterpret_cast<const char*>(&count), 4);
  for (const GameData& g : games) payload += decompress(compress_game(g).frame);
  payload += trailing;
  std::string comp(ZSTD_compressBound(payload.size()), '\0');
  const size_t n = ZSTD_compress(comp.data(), comp.size(), payload.data(), payload.size(), 3);
  REQUIRE_FALSE(ZSTD_isError(n));
  std::string file("PSDZ\x01\x00\x00\x00", 8);
  const uint64_t size = payload.size();
  file.append(reinterpret_cast<const char*>(&size), 8);
  file.append(comp.data(), n);
  return file;
}

std::vector<CompressedGame> compress_games(const std::vector<GameData>& games) {
  std::vector<CompressedGame> frames;
  for (const GameData& g : games) frames.push_back(compress_game(g));
  return frames;
}

/// The bytes of the chunk write_compressed_chunk wrote to file.
std::string written(const std::string& file, const std::vector<CompressedGame>& frames) {
  write_compressed_chunk(file, frames);
  return read_file(file);
}

}  // namespace

TEST_CASE("a chunk rewritten game by game keeps the earlier games' frames and reads back whole") {
  // Self-play's sink rewrites the open chunk after every game from the frames it holds
  // (each game compressed once). Rewrite n is rewrite n-1 with one frame appended (and the
  // header's count and payload size grown), the same bytes as write_chunk of those games.
  TempDir dir;
  const auto games = make_games(6, 7);
  const std::string file = (dir.path / "open.psd").string();
  std::vector<CompressedGame> frames;
  std::string before;
  uint64_t payload = 0;
  for (size_t n = 1; n <= games.size(); ++n) {
    frames.push_back(compress_game(games[n - 1]));
    payload += frames.back().payload_bytes;
    write_compressed_chunk(file, frames);
    const std::string bytes = read_file(file);
    CHECK(field_at<uint32_t>(bytes, 4) == kDataFormatVersion);
    CHECK(field_at<uint64_t>(bytes, 8) == payload);
    CHECK(field_at<uint32_t>(bytes, 16) == n);
    if (n > 1) {
      REQUIRE(bytes.size() == before.size() + 4 + frames.back().frame.size());
      CHECK(bytes.compare(kV2Header, before.size() - kV2Header, before, kV2Header) == 0);
      CHECK(field_at<uint32_t>(bytes, before.size()) == frames.back().frame.size());
      CHECK(bytes.compare(before.size() + 4, std::string::npos, frames.back().frame) == 0);
    }
    const std::vector<GameData> first(games.begin(), games.begin() + long(n));
    check_same_games(first, read_chunk(file));
    const std::string whole = (dir.path / "whole.psd").string();
    write_chunk(whole, first);
    CHECK(read_file(whole) == bytes);
    before = bytes;
  }
  SECTION("an empty chunk is its header") {
    write_compressed_chunk(file, {});
    CHECK(read_file(file).size() == kV2Header);
    CHECK(read_chunk(file).empty());
  }
}

TEST_CASE("version-1 chunks still read") {
  TempDir dir;
  const auto games = make_games(5, 8);
  const std::string file = (dir.path / "v1.psd").string();
  write_file_atomic(file, version1_chunk(games));
  check_same_games(games, read_chunk(file));
  // Bytes the version-1 writer itself wrote: `papersoccer selfplay` at 497a48b, 3 games of the
  // quickstart net at 8 visits (tests/selfplay/data/v1-3games.psd), with the record file it
  // wrote beside it (the record is its fifth column). A version-2 rewrite keeps every field.
  const std::string dir1 = PS_SOURCE_DIR "/tests/selfplay/data/";
  std::vector<std::string> warnings;
  const auto old = parse_chunk("v1-3games.psd", read_file(dir1 + "v1-3games.psd"), &warnings);
  CHECK(warnings.empty());
  REQUIRE(old.size() == 3);
  std::istringstream tsv(read_file(dir1 + "v1-3games.tsv"));
  std::string line;
  for (size_t i = 0; i < old.size(); ++i) {
    REQUIRE(std::getline(tsv, line));
    std::istringstream cols(line);
    std::string col;
    for (int c = 0; c < 5; ++c) std::getline(cols, col, '\t');
    CHECK(old[i].record == col);
    CHECK(old[i].game_id == i);
    CHECK(old[i].network == "/work/wt-chunk/models/quickstart-8x10.model");  // --net as given
    CHECK_FALSE(old[i].samples.empty());
  }
  write_chunk(file, old);
  CHECK(field_at<uint32_t>(read_file(file), 4) == 2);
  check_same_games(old, read_chunk(file));
}

TEST_CASE("a version-2 chunk cut anywhere is reported truncated, by name") {
  const auto frames = compress_games(make_games(3, 9));
  TempDir dir;
  const std::string bytes = written((dir.path / "c.psd").string(), frames);
  // Every cut: inside the header, a length field, a frame, and at each frame's end (a cut at 0
  // bytes is an empty file, named so).
  CHECK_THROWS_WITH(parse_chunk("cut.psd", ""), "cut.psd: empty file (0 bytes)");
  for (size_t k = 1; k < bytes.size(); ++k)
    CHECK_THROWS_WITH(parse_chunk("cut.psd", bytes.substr(0, k)), Catch::StartsWith("cut.psd: truncated: "));
  const size_t second = kV2Header + 4 + frames[0].frame.size();
  CHECK_THROWS_WITH(parse_chunk("cut.psd", bytes.substr(0, second)),
                    "cut.psd: truncated: the file ends before game 1's frame (1 of 3 games complete)");
  CHECK_THROWS_WITH(parse_chunk("cut.psd", bytes.substr(0, second + 10)),
                    "cut.psd: truncated: game 1's zstd frame is " + std::to_string(frames[1].frame.size()) +
                        " bytes, the file holds 6 of them");
}

TEST_CASE("a corrupted version-2 chunk names the game and what is wrong") {
  const auto frames = compress_games(make_games(3, 10));
  TempDir dir;
  const std::string file = (dir.path / "c.psd").string();
  const std::string bytes = written(file, frames);
  const size_t second = kV2Header + 4 + frames[0].frame.size();  // game 1's length field

  // A flipped byte in game 1's checksum (the frame's last byte).
  std::string flipped = bytes;
  flipped[second + 4 + frames[1].frame.size() - 1] ^= 0x5A;
  // (The exact input: it said "corrupted: Restored data doesn't match checksum", no game.)
  CHECK_THROWS_WITH(parse_chunk("c.psd", flipped),
                    Catch::StartsWith("c.psd: corrupted: game 1: ") && Catch::Contains("checksum"));
  // A flipped byte inside game 2's compressed data.
  std::string inside = bytes;
  const size_t third = second + 4 + frames[1].frame.size();
  inside[third + 4 + frames[2].frame.size() / 2] ^= 0x5A;
  CHECK_THROWS_WITH(parse_chunk("c.psd", inside), Catch::StartsWith("c.psd: corrupted: game 2"));

  // A length field one byte short of its frame.
  std::string shorter = bytes;
  const uint32_t len = uint32_t(frames[1].frame.size() - 1);
  std::memcpy(&shorter[second], &len, 4);
  CHECK_THROWS_WITH(parse_chunk("c.psd", shorter),
                    Catch::StartsWith("c.psd: truncated: incomplete zstd frame (game 1's"));

  // Bytes after the last game, a count one short, a payload size that disagrees.
  CHECK_THROWS_WITH(parse_chunk("c.psd", bytes + "x"), "c.psd: corrupted: 1 bytes after the last game");
  std::string fewer = bytes;
  fewer[16] = 2;
  CHECK_THROWS_WITH(
      parse_chunk("c.psd", fewer),
      "c.psd: corrupted: " + std::to_string(4 + frames[2].frame.size()) + " bytes after the last game");
  std::string size = bytes;
  const uint64_t claim = field_at<uint64_t>(bytes, 8) + 1;
  std::memcpy(&size[8], &claim, 8);
  CHECK_THROWS_WITH(
      parse_chunk("c.psd", size),
      Catch::StartsWith("c.psd: corrupted: header says the payload is " + std::to_string(claim)));
  const uint64_t huge = uint64_t(12) << 30;
  std::memcpy(&size[8], &huge, 8);
  CHECK_THROWS_WITH(parse_chunk("c.psd", size),
                    "c.psd: corrupted: header says the payload is 12884901888 bytes, "
                    "more than the format's 268435456");

  // A game whose frame holds one byte more than its fields: named by its index.
  std::string fields = decompress(frames[1].frame) + "x";
  std::string comp(ZSTD_compressBound(fields.size()), '\0');
  const size_t n = ZSTD_compress(comp.data(), comp.size(), fields.data(), fields.size(), 3);
  REQUIRE_FALSE(ZSTD_isError(n));
  std::vector<CompressedGame> padded = frames;
  padded[1] = {comp.substr(0, n), fields.size()};
  write_compressed_chunk(file, padded);
  CHECK_THROWS_WITH(read_chunk(file), file + ": corrupted: game 1: trailing bytes after the game");
}

TEST_CASE("a bad field names its game once, in version 1 and 2") {
  // The exact input: a version-2 chunk whose game 2 has variant 9 said "game 2: bad variant 9
  // in game 2".
  auto games = make_games(3, 12);
  games[2].variant = Variant(9);
  TempDir dir;
  const std::string file = (dir.path / "c.psd").string();
  write_chunk(file, games);
  CHECK_THROWS_WITH(read_chunk(file), file + ": corrupted: game 2: bad variant 9");
  CHECK_THROWS_WITH(parse_chunk("v1.psd", version1_chunk(games)), "v1.psd: corrupted: game 2: bad variant 9");
  games = make_games(3, 12);
  games[1].samples[0].policy.push_back({"", 1});
  write_chunk(file, games);
  CHECK_THROWS_WITH(read_chunk(file), file + ": corrupted: game 1: empty policy turn in sample 0");
  CHECK_THROWS_WITH(parse_chunk("v1.psd", version1_chunk(games)),
                    "v1.psd: corrupted: game 1: empty policy turn in sample 0");
  games = make_games(3, 12);
  games[0].winner = 3;
  write_chunk(file, games);
  CHECK_THROWS_WITH(read_chunk(file), file + ": corrupted: game 0: bad result");
  CHECK_THROWS_WITH(parse_chunk("v1.psd", version1_chunk(games)), "v1.psd: corrupted: game 0: bad result");
  // Bytes after a version-1 payload's last game are in no game.
  CHECK_THROWS_WITH(parse_chunk("v1.psd", version1_chunk(make_games(3, 12), "x")),
                    "v1.psd: corrupted: trailing bytes after the last game");
}

namespace {

/// Appends v's little-endian bytes.
template <class T>
void put_le(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

/// The fields of a game on 8x10 standard, no result, id 0, network "n", with this record, up to
/// its sample count (the samples follow).
std::string game_fields(const std::string& record, uint32_t samples) {
  std::string s;
  for (uint8_t b : {8, 10, 2, 0}) put_le<uint8_t>(s, b);
  put_le<int8_t>(s, -1);
  put_le<uint8_t>(s, 0);
  put_le<uint64_t>(s, 0);
  put_le<uint16_t>(s, 1);
  s += "n";
  put_le<uint32_t>(s, uint32_t(record.size()));
  s += record;
  put_le<uint32_t>(s, samples);
  return s;
}

/// A sample's fields up to its policy size (the policy's turns follow).
void put_sample(std::string& s, uint16_t turn, bool full, uint32_t policy_turns) {
  put_le<uint16_t>(s, turn);
  put_le<uint8_t>(s, full ? 1 : 0);
  put_le<float>(s, 0.0f);
  put_le<int8_t>(s, 0);
  put_le<uint16_t>(s, 0);
  put_le<uint32_t>(s, policy_turns);
}

/// A version-2 chunk of one game whose fields are `fields`, compressed at zstd level 1.
std::string one_game_chunk(const std::string& fields) {
  std::string frame(ZSTD_compressBound(fields.size()), '\0');
  const size_t n = ZSTD_compress(frame.data(), frame.size(), fields.data(), fields.size(), 1);
  REQUIRE_FALSE(ZSTD_isError(n));
  frame.resize(n);
  std::string file("PSDZ", 4);
  put_le<uint32_t>(file, 2);
  put_le<uint64_t>(file, fields.size());
  put_le<uint32_t>(file, 1);
  put_le<uint32_t>(file, uint32_t(frame.size()));
  return file + frame;
}

}  // namespace

TEST_CASE("a game holding more samples or policy turns than the rules allow is refused by file and game") {
  // Regression: a valid 1.6 MB chunk of one game whose one sample lists 33,000,000 copies of the
  // turn "0" (visits 1, a few 2: 231 MB of fields, 144 times its zstd frame) ran `train` past 120 s
  // at 2.7 GB; a 1.1 MB chunk of one game with 19,000,000 samples took it to 3.0 GB.
  SECTION("33 million copies of one policy turn in one sample") {
    const uint32_t copies = 33000000;
    std::string fields = game_fields("", 1);
    put_sample(fields, 0, true, copies);
    fields.reserve(fields.size() + size_t(copies) * 7);
    std::mt19937_64 rng(1);
    for (uint32_t k = 0; k < copies; ++k) {
      put_le<uint16_t>(fields, 1);
      fields += '0';
      put_le<uint32_t>(fields, rng() % 40 == 0 ? 2 : 1);
    }
    const std::string chunk = one_game_chunk(fields);
    fields = std::string();
    CHECK(chunk.size() < 4000000);
    // Refused at the frame's stated size, before it is decompressed.
    CHECK_THROWS_WITH(
        parse_chunk("p.psd", chunk),
        Catch::StartsWith("p.psd: corrupted: implausible payload size 231000039 bytes for game 0's "
                          "zstd frame of "));
  }
  SECTION("19 million samples in one game") {
    std::string fields = game_fields("", 19000000);
    std::string sample;
    put_sample(sample, 0, false, 0);
    fields.reserve(fields.size() + 19000000 * sample.size());
    for (int j = 0; j < 19000000; ++j) fields += sample;
    CHECK_THROWS_WITH(parse_chunk("s.psd", one_game_chunk(fields)),
                      Catch::StartsWith("s.psd: corrupted: implausible payload size") &&
                          Catch::Contains("for game 0's zstd frame"));
  }
  SECTION("each bound by itself, named with the game") {
    // More samples than positions of the record: 3 for a 1-turn record.
    std::string fields = game_fields("0", 3);
    for (int j = 0; j < 3; ++j) put_sample(fields, uint16_t(j), false, 0);
    CHECK_THROWS_WITH(parse_chunk("c.psd", one_game_chunk(fields)),
                      "c.psd: corrupted: game 0: 3 samples, more than the 2 positions of its 1-turn record");
    // A policy longer than the format holds, refused at its count.
    fields = game_fields("", 1);
    put_sample(fields, 0, true, kMaxPolicyTurns + 1);
    CHECK_THROWS_WITH(
        parse_chunk("c.psd", one_game_chunk(fields)),
        "c.psd: corrupted: game 0: sample 0 lists 4097 policy turns, more than the format's 4096");
    // A record longer than any game (random digits: a frame of one repeated digit is refused for
    // its compression ratio first).
    std::mt19937_64 rng(2);
    auto digits = [&](size_t n) {
      std::string d;
      for (size_t i = 0; i < n; ++i) d += char('0' + rng() % 8);
      return d;
    };
    const std::string record = digits(kMaxRecordBytes + 1);
    CHECK_THROWS_WITH(
        parse_chunk("c.psd", one_game_chunk(game_fields(record, 0))),
        Catch::StartsWith("c.psd: corrupted: game 0: the record is 2049 bytes, longer than any game"));
    // A policy turn longer than any game.
    fields = game_fields("", 1);
    put_sample(fields, 0, true, 1);
    put_le<uint16_t>(fields, uint16_t(kMaxGameKicks + 1));
    fields += digits(kMaxGameKicks + 1);
    put_le<uint32_t>(fields, 1);
    CHECK_THROWS_WITH(
        parse_chunk("c.psd", one_game_chunk(fields)),
        "c.psd: corrupted: game 0: sample 0, policy turn 1: 1025 kicks, more than any game holds (1024)");
  }
  SECTION("a policy turn twice, or two samples of one position: the game is skipped") {
    auto games = make_games(2, 13);
    REQUIRE(games[1].samples[0].policy.size() == 2);
    games[1].samples[0].full_search = true;
    games[1].samples[0].policy[1] = games[1].samples[0].policy[0];
    TempDir dir;
    const std::string file = (dir.path / "c.psd").string();
    write_chunk(file, games);
    std::vector<std::string> warnings;
    CHECK(read_chunk(file, &warnings).size() == 1);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0],
               Catch::StartsWith(file + ": game 1 (id 1001): sample 0 (turn 0), policy turn 2 (") &&
                   Catch::EndsWith("the same turn as policy turn 1"));
    games = make_games(2, 13);
    games[0].samples[1].turn_index = games[0].samples[0].turn_index;
    write_chunk(file, games);
    warnings.clear();
    CHECK(read_chunk(file, &warnings).size() == 1);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == file +
                             ": game 0 (id 1000): sample 1 (turn 0): not after sample 0's turn 0 (a game's "
                             "samples are its positions in order, one each)");
  }
  SECTION("the writer writes nothing the reader would refuse") {
    auto games = make_games(1, 14);
    games[0].samples[0].policy.assign(kMaxPolicyTurns + 1, {"0", 1});
    TempDir dir;
    CHECK_THROWS_WITH(write_chunk((dir.path / "c.psd").string(), games),
                      Catch::Contains("a policy of 4097 turns is more than the data format's 4096"));
  }
}
