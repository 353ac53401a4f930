#include "selfplay/data.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "core/byte_io.h"
#include "core/file_kind.h"
#include "core/fileutil.h"
#include "core/text.h"

namespace ps {

namespace {

constexpr char kPayloadMagic[4] = {'P', 'S', 'T', 'D'};

// The format's strings: a u16 or u32 length, then the bytes.
class Writer : public ByteWriter {
 public:
  void put_str16(const std::string& s) {
    if (s.size() > 0xFFFF) throw std::runtime_error("string too long for the data format");
    put<uint16_t>(uint16_t(s.size()));
    str() += s;
  }
  void put_str32(const std::string& s) {
    put<uint32_t>(uint32_t(s.size()));
    str() += s;
  }
};

class Reader : public ByteReader {
 public:
  /// where: what the bytes are, for messages ("game 3: ", or "" outside a game).
  Reader(const std::string& path, const std::string& where, const char* data, size_t size)
      : ByteReader(data, size), path_(path), where_(where) {}
  /// A version-1 payload holds every game: the reader names the one it is in.
  void set_where(const std::string& where) { where_ = where; }
  std::string str16(const char* what) { return bytes(get<uint16_t>(what), what); }
  std::string str32(const char* what) { return bytes(get<uint32_t>(what), what); }
  [[noreturn]] void fail(const std::string& why) const override {
    throw DataError(path_ + ": corrupted: " + where_ + why);
  }

 private:
  std::string truncated(const char* what) const override {
    return std::string("payload ends inside ") + what;
  }
  std::string path_, where_;
};

constexpr size_t kHeaderV1 = 16;  // magic, version, payload size
constexpr size_t kHeaderV2 = 20;  // ... and the game count

// The turns of a record: its words between spaces.
size_t record_turns(const std::string& record) {
  size_t turns = 0;
  for (size_t i = 0; i < record.size(); ++i)
    if (record[i] != ' ' && (i == 0 || record[i - 1] == ' ')) ++turns;
  return turns;
}

// One game's fields (the same in both versions). What get_game would refuse is not written.
void put_game(Writer& w, const GameData& g) {
  if (g.record.size() > kMaxRecordBytes)
    throw std::runtime_error("a record of " + std::to_string(g.record.size()) +
                             " bytes is longer than the data format's " + std::to_string(kMaxRecordBytes));
  if (g.samples.size() > record_turns(g.record) + 1)
    throw std::runtime_error(std::to_string(g.samples.size()) + " samples are more than the positions of a " +
                             std::to_string(record_turns(g.record)) + "-turn record");
  for (const TrainingSample& s : g.samples) {
    if (s.policy.size() > kMaxPolicyTurns)
      throw std::runtime_error("a policy of " + std::to_string(s.policy.size()) +
                               " turns is more than the data format's " + std::to_string(kMaxPolicyTurns));
    for (const TurnVisits& t : s.policy)
      if (t.kicks.size() > size_t(kMaxGameKicks))
        throw std::runtime_error("a policy turn of " + std::to_string(t.kicks.size()) +
                                 " kicks is longer than any game (" + std::to_string(kMaxGameKicks) + ")");
  }
  w.put<uint8_t>(uint8_t(g.width));
  w.put<uint8_t>(uint8_t(g.length));
  w.put<uint8_t>(uint8_t(g.goal));
  w.put<uint8_t>(uint8_t(g.variant));
  w.put<int8_t>(g.winner);
  w.put<uint8_t>(uint8_t(g.reason));
  w.put<uint64_t>(g.game_id);
  w.put_str16(g.network);
  w.put_str32(g.record);
  w.put<uint32_t>(uint32_t(g.samples.size()));
  for (const TrainingSample& s : g.samples) {
    w.put<uint16_t>(s.turn_index);
    w.put<uint8_t>(s.full_search ? 1 : 0);
    w.put<float>(s.root_value);
    w.put<int8_t>(s.result);
    w.put<uint16_t>(s.turns_left);
    w.put<uint32_t>(uint32_t(s.policy.size()));
    for (const TurnVisits& t : s.policy) {
      w.put_str16(t.kicks);
      w.put<uint32_t>(t.visits);
    }
  }
}

// One game's fields (see put_game). Messages do not name the game: the Reader's `where` does,
// once. Each count and length is checked against its bound (data.h) before anything is
// allocated for it.
GameData get_game(Reader& r) {
  GameData g;
  g.width = r.get<uint8_t>("width");
  g.length = r.get<uint8_t>("length");
  g.goal = r.get<uint8_t>("goal");
  uint8_t v = r.get<uint8_t>("variant");
  if (v >= kNumVariants) r.fail("bad variant " + std::to_string(v));
  g.variant = Variant(v);
  g.winner = r.get<int8_t>("winner");
  uint8_t reason = r.get<uint8_t>("reason");
  if (reason > 2 || g.winner < -1 || g.winner > 1) r.fail("bad result");
  g.reason = Reason(reason);
  g.game_id = r.get<uint64_t>("game id");
  g.network = r.str16("network");
  const uint32_t record_bytes = r.get<uint32_t>("record");
  if (record_bytes > kMaxRecordBytes)
    r.fail("the record is " + std::to_string(record_bytes) + " bytes, longer than any game (at most " +
           std::to_string(kMaxRecordBytes) + ": " + std::to_string(kMaxGameKicks) + " kicks)");
  g.record = r.bytes(record_bytes, "record");
  const size_t turns = record_turns(g.record);
  const uint32_t ns = r.get<uint32_t>("sample count");
  if (ns > turns + 1)
    r.fail(std::to_string(ns) + " samples, more than the " + std::to_string(turns + 1) +
           " positions of its " + std::to_string(turns) + "-turn record");
  g.samples.reserve(ns);
  for (uint32_t j = 0; j < ns; ++j) {
    TrainingSample s;
    s.turn_index = r.get<uint16_t>("turn index");
    s.full_search = r.get<uint8_t>("flags") & 1;
    s.root_value = r.get<float>("root value");
    s.result = r.get<int8_t>("result");
    s.turns_left = r.get<uint16_t>("turns left");
    uint32_t nt = r.get<uint32_t>("policy size");
    if (nt > kMaxPolicyTurns)
      r.fail("sample " + std::to_string(j) + " lists " + std::to_string(nt) +
             " policy turns, more than the format's " + std::to_string(kMaxPolicyTurns));
    s.policy.reserve(nt);
    for (uint32_t k = 0; k < nt; ++k) {
      TurnVisits t;
      const uint16_t kicks = r.get<uint16_t>("turn");
      if (kicks == 0) r.fail("empty policy turn in sample " + std::to_string(j));
      if (kicks > kMaxGameKicks)
        r.fail("sample " + std::to_string(j) + ", policy turn " + std::to_string(k + 1) + ": " +
               std::to_string(kicks) + " kicks, more than any game holds (" + std::to_string(kMaxGameKicks) +
               ")");
      t.kicks = r.bytes(kicks, "turn");
      t.visits = r.get<uint32_t>("visits");
      s.policy.push_back(std::move(t));
    }
    g.samples.push_back(std::move(s));
  }
  return g;
}

}  // namespace

CompressedGame compress_game(const GameData& game, int zstd_level) {
  Writer w;
  put_game(w, game);
  const std::string& payload = w.str();
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  if (!cctx) throw std::runtime_error("game " + std::to_string(game.game_id) + ": out of memory for zstd");
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, zstd_level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  CompressedGame c;
  c.payload_bytes = payload.size();
  c.frame.resize(ZSTD_compressBound(payload.size()));
  // ZSTD_compress2 states the content size in the frame (the reader requires it).
  const size_t n = ZSTD_compress2(cctx, c.frame.data(), c.frame.size(), payload.data(), payload.size());
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n))
    throw std::runtime_error("game " + std::to_string(game.game_id) +
                             ": zstd compression failed: " + ZSTD_getErrorName(n));
  c.frame.resize(n);
  return c;
}

void write_compressed_chunk(const std::string& path, const std::vector<CompressedGame>& games) {
  uint64_t payload = 0;
  size_t bytes = kHeaderV2;
  for (const CompressedGame& g : games) {
    if (g.frame.size() > 0xFFFFFFFFu)
      throw std::runtime_error(path + ": a game's zstd frame is too long for the data format");
    payload += g.payload_bytes;
    bytes += 4 + g.frame.size();
  }
  if (payload > kMaxChunkPayload)
    throw std::runtime_error(path + ": " + std::to_string(games.size()) + " games of " +
                             std::to_string(payload) + " bytes are more than a chunk holds (" +
                             std::to_string(kMaxChunkPayload) + ")");
  ByteWriter w;
  w.str().reserve(bytes);
  w.raw(kChunkMagic, 4);
  w.put<uint32_t>(kDataFormatVersion);
  w.put<uint64_t>(payload);
  w.put<uint32_t>(uint32_t(games.size()));
  for (const CompressedGame& g : games) {
    w.put<uint32_t>(uint32_t(g.frame.size()));
    w.raw(g.frame.data(), g.frame.size());
  }
  write_file_atomic(path, w.str());
}

void write_chunk(const std::string& path, const std::vector<GameData>& games, int zstd_level) {
  std::vector<CompressedGame> compressed;
  compressed.reserve(games.size());
  for (const GameData& g : games) {
    try {
      compressed.push_back(compress_game(g, zstd_level));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(path + ": " + e.what());
    }
  }
  write_compressed_chunk(path, compressed);
}

namespace {

/// The zstd frame at the start of [p, p + avail): its length and stated content size, checked
/// to be a whole frame whose content size is stated and plausible. what names it in errors.
struct Frame {
  size_t length = 0;
  uint64_t content = 0;
};
Frame locate_frame(const std::string& path, const std::string& what, const char* p, size_t avail) {
  Frame f;
  f.length = ZSTD_findFrameCompressedSize(p, avail);
  if (ZSTD_isError(f.length)) {
    if (ZSTD_getErrorCode(f.length) == ZSTD_error_srcSize_wrong)
      throw DataError(path + ": truncated: incomplete zstd frame (" + what + ")");
    throw DataError(path + ": corrupted: " + what + " is not a zstd frame (" + ZSTD_getErrorName(f.length) +
                    ")");
  }
  const unsigned long long content = ZSTD_getFrameContentSize(p, f.length);
  if (content == ZSTD_CONTENTSIZE_ERROR)
    throw DataError(path + ": corrupted: " + what + " is not a zstd frame");
  // The writer always records the content size in the frame; it must be plausible before
  // anything is allocated.
  if (content == ZSTD_CONTENTSIZE_UNKNOWN)
    throw DataError(path + ": corrupted: " + what + " does not state its content size");
  if (content > kMaxChunkPayload || content > uint64_t(f.length) * kMaxCompressionRatio)
    throw DataError(path + ": corrupted: implausible payload size " + std::to_string(content) +
                    " bytes for " + what + " of " + std::to_string(f.length) + " bytes (at most " +
                    std::to_string(kMaxCompressionRatio) + " times the frame, and " +
                    std::to_string(kMaxChunkPayload) + " bytes)");
  f.content = content;
  return f;
}

/// Decompresses one zstd frame, growing the output as data arrives (never more than `size`).
std::string decompress_payload(const std::string& path, const char* frame, size_t frame_len, uint64_t size,
                               const std::string& where = "") {
  std::string payload;
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  if (!dctx) throw DataError(path + ": out of memory for zstd");
  struct Free {
    ZSTD_DCtx* d;
    ~Free() { ZSTD_freeDCtx(d); }
  } free_dctx{dctx};
  ZSTD_inBuffer in{frame, frame_len, 0};
  size_t have = 0;
  for (;;) {
    if (payload.size() - have < (1u << 16)) {
      const size_t grow = std::max<size_t>(payload.size(), 1u << 16);
      // One byte beyond `size` lets an overlong frame show itself.
      payload.resize(size_t(std::min<uint64_t>(uint64_t(payload.size()) + grow, size + 1)));
    }
    ZSTD_outBuffer out{payload.data() + have, payload.size() - have, 0};
    const size_t ret = ZSTD_decompressStream(dctx, &out, &in);
    if (ZSTD_isError(ret)) throw DataError(path + ": corrupted: " + where + ZSTD_getErrorName(ret));
    have += out.pos;
    if (have > size)
      throw DataError(path + ": corrupted: payload is longer than the " + std::to_string(size) +
                      " bytes its header says");
    if (ret == 0) break;  // frame complete
    if (in.pos == in.size && out.pos < out.size)
      throw DataError(path + ": truncated: incomplete zstd frame");
  }
  if (have != size)
    throw DataError(path + ": corrupted: payload is " + std::to_string(have) +
                    " bytes, its header says " + std::to_string(size));
  payload.resize(have);
  return payload;
}

}  // namespace

std::vector<GameData> read_chunk(const std::string& path, std::vector<std::string>* warnings) {
  std::string file;
  try {
    file = read_file(path);
  } catch (const std::exception& e) {
    throw DataError(e.what());
  }
  return parse_chunk(path, file, warnings);
}

namespace {

// Each decoded game goes to keep(index, game) as soon as it is read, so that a game that is not
// kept is not held while the rest decode.
using KeepGame = std::function<void(size_t, GameData&&)>;

// Version 1: one zstd frame of "PSTD", u32 game count, the games.
void decode_v1(const std::string& path, const std::string& file, const KeepGame& keep) {
  const uint64_t size = get_le<uint64_t>(file.data() + 8);
  const char* frame = file.data() + kHeaderV1;
  const size_t frame_size = file.size() - kHeaderV1;
  const Frame f = locate_frame(path, "the zstd frame", frame, frame_size);
  if (f.length != frame_size)
    throw DataError(path + ": corrupted: " + std::to_string(frame_size - f.length) +
                    " bytes after the zstd frame");
  if (f.content != size)
    throw DataError(path + ": corrupted: header says the payload is " + std::to_string(size) +
                    " bytes, the zstd frame says " + std::to_string(f.content));
  const std::string payload = decompress_payload(path, frame, f.length, size);
  Reader r(path, "", payload.data(), payload.size());
  if (r.bytes(4, "magic") != std::string(kPayloadMagic, 4)) r.fail("bad payload magic");
  uint32_t count = r.get<uint32_t>("game count");
  for (uint32_t i = 0; i < count; ++i) {
    r.set_where("game " + std::to_string(i) + ": ");
    keep(i, get_game(r));
  }
  r.set_where("");
  if (!r.at_end()) r.fail("trailing bytes after the last game");
}

// Version 2: u32 game count, then per game a u32 frame length and its zstd frame.
void decode_v2(const std::string& path, const std::string& file, const KeepGame& keep) {
  if (file.size() < kHeaderV2)
    throw DataError(path + ": truncated: only " + std::to_string(file.size()) + " bytes");
  const uint64_t size = get_le<uint64_t>(file.data() + 8);
  const uint32_t count = get_le<uint32_t>(file.data() + 16);
  if (size > kMaxChunkPayload)
    throw DataError(path + ": corrupted: header says the payload is " + std::to_string(size) +
                    " bytes, more than the format's " + std::to_string(kMaxChunkPayload));
  size_t pos = kHeaderV2;
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const std::string game = "game " + std::to_string(i);
    if (file.size() - pos < 4)
      throw DataError(path + ": truncated: the file ends before " + game + "'s frame (" + std::to_string(i) +
                      " of " + std::to_string(count) + " games complete)");
    const uint32_t length = get_le<uint32_t>(file.data() + pos);
    pos += 4;
    if (length > file.size() - pos)
      throw DataError(path + ": truncated: " + game + "'s zstd frame is " + std::to_string(length) +
                      " bytes, the file holds " + std::to_string(file.size() - pos) + " of them");
    const Frame f = locate_frame(path, game + "'s zstd frame", file.data() + pos, length);
    if (f.length != length)
      throw DataError(path + ": corrupted: " + game + "'s zstd frame is " + std::to_string(f.length) +
                      " bytes, its length field says " + std::to_string(length));
    total += f.content;
    if (total > size)
      throw DataError(path + ": corrupted: the frames up to " + game + " hold " + std::to_string(total) +
                      " payload bytes, the header says " + std::to_string(size));
    const std::string payload = decompress_payload(path, file.data() + pos, length, f.content, game + ": ");
    Reader r(path, game + ": ", payload.data(), payload.size());
    GameData g = get_game(r);
    if (!r.at_end()) r.fail("trailing bytes after the game");
    keep(i, std::move(g));
    pos += length;
  }
  if (pos != file.size())
    throw DataError(path + ": corrupted: " + std::to_string(file.size() - pos) +
                    " bytes after the last game");
  if (total != size)
    throw DataError(path + ": corrupted: header says the payload is " + std::to_string(size) +
                    " bytes, the frames hold " + std::to_string(total));
}

}  // namespace

std::vector<GameData> parse_chunk(const std::string& path, const std::string& file,
                                  std::vector<std::string>* warnings) {
  if (std::string problem = foreign_file_problem(file, FileKind::Chunk); !problem.empty())
    throw DataError(path + ": " + problem);
  // A file too short for the header is a truncated chunk only when the bytes it has begin the
  // magic; a 3-byte text file is not a chunk at all.
  if (std::memcmp(file.data(), kChunkMagic, std::min<size_t>(4, file.size())) != 0)
    throw DataError(path + ": not a training data chunk (bad magic)");
  if (file.size() < kHeaderV1)
    throw DataError(path + ": truncated: only " + std::to_string(file.size()) + " bytes");
  const uint32_t version = get_le<uint32_t>(file.data() + 4);
  if (version < 1 || version > kDataFormatVersion)
    throw DataError(path + ": data format version " + std::to_string(version) +
                    ", this program reads versions 1 to " + std::to_string(kDataFormatVersion));
  // Each game is checked as soon as it is decoded (one that is not kept is not held while the
  // rest decode); the skips are told only when the whole chunk has decoded.
  std::vector<GameData> kept;
  std::vector<std::string> skipped;
  const KeepGame keep = [&](size_t i, GameData&& game) {
    try {
      validate_game(game);
    } catch (const std::exception& e) {
      skipped.push_back(path + ": game " + std::to_string(i) + " (id " + std::to_string(game.game_id) +
                        "): " + e.what());
      return;
    }
    kept.push_back(std::move(game));
  };
  try {
    if (version == 1) decode_v1(path, file, keep);
    else decode_v2(path, file, keep);
  } catch (const std::bad_alloc&) {
    throw DataError(path + ": out of memory decoding the games");
  }
  for (std::string& w : skipped) {
    if (warnings) warnings->push_back(std::move(w));
    else std::cerr << "warning: skipping " << w << "\n";
  }
  return kept;
}

void validate_game(const GameData& game) {
  const Pitch& pitch = Pitch::get(game.width, game.length, game.goal);  // invalid_argument
  // Positions after each complete turn of the record (parse_record checks every turn).
  Game g(pitch, game.variant);
  std::vector<Position> at_turn{g.position()};
  const std::string& rec = game.record;
  for (size_t i = 0; i < rec.size();) {
    if (rec[i] == ' ') {
      ++i;
      continue;
    }
    size_t j = rec.find(' ', i);
    if (j == std::string::npos) j = rec.size();
    g.play_turn(std::string_view(rec).substr(i, j - i));  // RecordError names turn and kick
    at_turn.push_back(g.position());
    i = j;
  }
  if (game.winner != -1 && g.position().game_over() && g.position().winner() != game.winner)
    throw std::invalid_argument("the record is won by player " +
                                std::to_string(g.position().winner()) + ", the result says " +
                                std::to_string(game.winner));
  for (size_t si = 0; si < game.samples.size(); ++si) {
    const TrainingSample& s = game.samples[si];
    const std::string where = "sample " + std::to_string(si) + " (turn " +
                              std::to_string(s.turn_index) + ")";
    if (s.turn_index >= at_turn.size())
      throw std::invalid_argument(where + ": past the end of the record (" +
                                  std::to_string(at_turn.size() - 1) + " turns)");
    if (si > 0 && s.turn_index <= game.samples[si - 1].turn_index)
      throw std::invalid_argument(where + ": not after sample " + std::to_string(si - 1) + "'s turn " +
                                  std::to_string(game.samples[si - 1].turn_index) +
                                  " (a game's samples are its positions in order, one each)");
    if (s.result < -1 || s.result > 1)
      throw std::invalid_argument(where + ": bad result " + std::to_string(s.result));
    if (!std::isfinite(s.root_value))
      throw std::invalid_argument(where + ": root value is not a finite number");
    if (!s.full_search || s.policy.empty()) continue;
    const Position& at = at_turn[s.turn_index];
    if (at.game_over())
      throw std::invalid_argument(where + ": a policy target for a finished game");
    uint64_t total = 0;
    std::unordered_map<std::string_view, size_t> seen;  // turn -> its first index
    seen.reserve(s.policy.size());
    for (size_t k = 0; k < s.policy.size(); ++k) {
      total += s.policy[k].visits;
      const std::string& kicks = s.policy[k].kicks;
      const auto first = seen.emplace(kicks, k);
      if (!first.second)
        throw std::invalid_argument(where + ", policy turn " + std::to_string(k + 1) + " (" +
                                    quoted_text(kicks, 60) + "): the same turn as policy turn " +
                                    std::to_string(first.first->second + 1));
      auto bad = [&](size_t kick, const std::string& why) {
        throw std::invalid_argument(where + ", policy turn " + std::to_string(k + 1) + " (" +
                                    quoted_text(kicks, 60) + "), kick " +
                                    std::to_string(kick + 1) + ": " + why);
      };
      Position p = at;
      for (size_t i = 0; i < kicks.size(); ++i) {
        const char c = kicks[i];
        if (c < '0' || c > '7') bad(i, "bad character " + quoted_text(std::string_view(&c, 1)));
        if (p.game_over()) bad(i, "kick after the end of the game");
        if (i > 0 && p.turn_start()) bad(i, "the turn already ended");
        if (!p.is_legal(c - '0')) bad(i, "illegal kick");
        p.make_kick(c - '0');
      }
      if (!p.game_over() && !p.turn_start()) bad(kicks.size() - 1, "the turn is not finished");
    }
    if (total == 0) throw std::invalid_argument(where + ": the policy's visit counts sum to 0");
  }
}

Position sample_position(const GameData& game, const TrainingSample& sample) {
  const Pitch& pitch = Pitch::get(game.width, game.length, game.goal);
  Game g(pitch, game.variant);
  size_t i = 0;
  int turns = 0;
  const std::string& rec = game.record;
  while (turns < sample.turn_index) {
    while (i < rec.size() && rec[i] == ' ') ++i;
    size_t j = rec.find(' ', i);
    if (j == std::string::npos) j = rec.size();
    if (j == i)
      throw RecordError("sample at turn " + std::to_string(sample.turn_index) +
                            " is past the end of the record",
                        turns + 1, 0);
    g.play_turn(std::string_view(rec).substr(i, j - i));
    i = j;
    ++turns;
  }
  return g.position();
}

}  // namespace ps
