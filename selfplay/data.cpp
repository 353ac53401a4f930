#include "selfplay/data.h"

#include <zstd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "core/fileutil.h"

namespace ps {

namespace {

constexpr char kFileMagic[4] = {'P', 'S', 'D', 'Z'};
constexpr char kPayloadMagic[4] = {'P', 'S', 'T', 'D'};

class Writer {
 public:
  template <class T>
  void put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    buf_.append(b, sizeof(T));
  }
  void put_str16(const std::string& s) {
    if (s.size() > 0xFFFF) throw std::runtime_error("string too long for the data format");
    put<uint16_t>(uint16_t(s.size()));
    buf_ += s;
  }
  void put_str32(const std::string& s) {
    put<uint32_t>(uint32_t(s.size()));
    buf_ += s;
  }
  void raw(const char* p, size_t n) { buf_.append(p, n); }
  std::string& str() { return buf_; }

 private:
  std::string buf_;
};

class Reader {
 public:
  Reader(const std::string& path, const char* data, size_t size) : path_(path), p_(data), end_(data + size) {}
  template <class T>
  T get(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  std::string str16(const char* what) { return bytes(get<uint16_t>(what), what); }
  std::string str32(const char* what) { return bytes(get<uint32_t>(what), what); }
  std::string bytes(size_t n, const char* what) {
    need(n, what);
    std::string s(p_, n);
    p_ += n;
    return s;
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw DataError(path_ + ": corrupted: " + why);
  }
  bool at_end() const { return p_ == end_; }

 private:
  void need(size_t n, const char* what) const {
    if (size_t(end_ - p_) < n) fail(std::string("payload ends inside ") + what);
  }
  std::string path_;
  const char* p_;
  const char* end_;
};

}  // namespace

void write_chunk(const std::string& path, const std::vector<GameData>& games, int zstd_level) {
  Writer w;
  w.raw(kPayloadMagic, 4);
  w.put<uint32_t>(uint32_t(games.size()));
  for (const GameData& g : games) {
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
  const std::string& payload = w.str();
  std::string out(4 + 4 + 8, '\0');
  std::memcpy(&out[0], kFileMagic, 4);
  uint32_t version = kDataFormatVersion;
  uint64_t size = payload.size();
  std::memcpy(&out[4], &version, 4);
  std::memcpy(&out[8], &size, 8);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, zstd_level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  std::string comp(ZSTD_compressBound(payload.size()), '\0');
  size_t n = ZSTD_compress2(cctx, comp.data(), comp.size(), payload.data(), payload.size());
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n)) throw std::runtime_error(path + ": zstd compression failed: " + ZSTD_getErrorName(n));
  out.append(comp.data(), n);
  write_file_atomic(path, out);
}

std::vector<GameData> read_chunk(const std::string& path) {
  std::string file;
  try {
    file = read_file(path);
  } catch (const std::exception& e) {
    throw DataError(e.what());
  }
  if (file.size() < 16) throw DataError(path + ": truncated: only " + std::to_string(file.size()) + " bytes");
  if (std::memcmp(file.data(), kFileMagic, 4) != 0)
    throw DataError(path + ": not a training data chunk (bad magic)");
  uint32_t version;
  uint64_t size;
  std::memcpy(&version, file.data() + 4, 4);
  std::memcpy(&size, file.data() + 8, 8);
  if (version != kDataFormatVersion)
    throw DataError(path + ": data format version " + std::to_string(version) +
                    ", this program reads version " + std::to_string(kDataFormatVersion));
  if (size > (uint64_t(1) << 34)) throw DataError(path + ": corrupted: implausible payload size");
  const char* frame = file.data() + 16;
  const size_t frame_size = file.size() - 16;
  unsigned long long content = ZSTD_getFrameContentSize(frame, frame_size);
  if (content == ZSTD_CONTENTSIZE_ERROR) throw DataError(path + ": corrupted: not a zstd frame");
  size_t frame_len = ZSTD_findFrameCompressedSize(frame, frame_size);
  if (ZSTD_isError(frame_len)) throw DataError(path + ": truncated: incomplete zstd frame");
  std::string payload(size, '\0');
  size_t n = ZSTD_decompress(payload.data(), payload.size(), frame, frame_len);
  if (ZSTD_isError(n)) throw DataError(path + ": corrupted: " + ZSTD_getErrorName(n));
  if (n != size) throw DataError(path + ": corrupted: payload size mismatch");

  Reader r(path, payload.data(), payload.size());
  if (r.bytes(4, "magic") != std::string(kPayloadMagic, 4)) r.fail("bad payload magic");
  uint32_t count = r.get<uint32_t>("game count");
  std::vector<GameData> games;
  games.reserve(std::min<uint32_t>(count, 1u << 16));
  for (uint32_t i = 0; i < count; ++i) {
    GameData g;
    g.width = r.get<uint8_t>("width");
    g.length = r.get<uint8_t>("length");
    g.goal = r.get<uint8_t>("goal");
    uint8_t v = r.get<uint8_t>("variant");
    if (v >= kNumVariants) r.fail("bad variant " + std::to_string(v) + " in game " + std::to_string(i));
    g.variant = Variant(v);
    g.winner = r.get<int8_t>("winner");
    uint8_t reason = r.get<uint8_t>("reason");
    if (reason > 2 || g.winner < -1 || g.winner > 1) r.fail("bad result in game " + std::to_string(i));
    g.reason = Reason(reason);
    g.game_id = r.get<uint64_t>("game id");
    g.network = r.str16("network");
    g.record = r.str32("record");
    uint32_t ns = r.get<uint32_t>("sample count");
    for (uint32_t j = 0; j < ns; ++j) {
      TrainingSample s;
      s.turn_index = r.get<uint16_t>("turn index");
      s.full_search = r.get<uint8_t>("flags") & 1;
      s.root_value = r.get<float>("root value");
      s.result = r.get<int8_t>("result");
      s.turns_left = r.get<uint16_t>("turns left");
      uint32_t nt = r.get<uint32_t>("policy size");
      for (uint32_t k = 0; k < nt; ++k) {
        TurnVisits t;
        t.kicks = r.str16("turn");
        t.visits = r.get<uint32_t>("visits");
        s.policy.push_back(std::move(t));
      }
      g.samples.push_back(std::move(s));
    }
    games.push_back(std::move(g));
  }
  if (!r.at_end()) r.fail("trailing bytes after the last game");
  return games;
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
