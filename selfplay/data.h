// Training data: the versioned, zstd-compressed chunk format written by self-play and read by
// the trainer (in the spirit of lc0's versioned training records, KataGo's npz chunks).
//
// A chunk file ("*.psd") holds whole games. Per game: rules (pitch, variant), the full game
// record in the notation of RULES.md, result, network id and game id; per sampled position
// (the position after `turn_index` complete turns of the record): the root's visited turns as
// kick strings with visit counts (the policy target), the root value, the game result from the
// side to move, turns left, and whether the search was a full one (playout-cap randomization:
// cheap searches are kept for the value target only).
//
// File layout (version 1): "PSDZ" u32 version, u64 payload size, then one zstd frame (with
// checksum) of the payload: "PSTD", u32 game count, then games (little-endian fields; see
// data.cpp). Files are written atomically (temp + rename), so a reader sees all or nothing.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/record.h"

namespace ps {

constexpr uint32_t kDataFormatVersion = 1;

/// A bad data file: what() starts with the file name and says what is wrong.
class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One root child of a search: a turn and its visit count.
struct TurnVisits {
  std::string kicks;
  uint32_t visits = 0;
};

struct TrainingSample {
  uint16_t turn_index = 0;    ///< position after this many complete turns of the record
  bool full_search = true;    ///< false: cheap search (playout cap), not a policy target
  float root_value = 0.0f;    ///< search value at the root, for the side to move, [-1, 1]
  int8_t result = 0;          ///< game result for the side to move: +1 win, -1 loss
  uint16_t turns_left = 0;    ///< turns from this position to the end of the game
  std::vector<TurnVisits> policy;  ///< visited root turns (empty allowed for cheap searches)
};

struct GameData {
  int width = 8, length = 10, goal = 2;
  Variant variant = Variant::kStandard;
  std::string record;        ///< the whole game, turns separated by single spaces
  int8_t winner = -1;        ///< -1: unfinished (e.g. aborted or resigned without a result)
  Reason reason = Reason::kNone;
  uint64_t game_id = 0;
  std::string network;       ///< id of the network that played (checkpoint name)
  std::vector<TrainingSample> samples;
};

/// Serialises and compresses games into one chunk file, atomically. Throws std::runtime_error.
void write_chunk(const std::string& path, const std::vector<GameData>& games,
                 int zstd_level = 3);
/// Upper bounds on a chunk's payload (the uncompressed games): its header must agree with the
/// zstd frame's content size, and neither may exceed the hard cap nor kMaxCompressionRatio times
/// the compressed frame (self-play data compresses about 5:1, a
/// chunk of 32 games is tens of kB). Decompression never allocates
/// more than the data actually decompressed so far.
constexpr uint64_t kMaxChunkPayload = uint64_t(1) << 28;
constexpr uint64_t kMaxCompressionRatio = 256;

/// Reads a chunk. Throws DataError("<path>: ...") for a truncated, corrupted or wrong-version
/// file; the message says which. Games that decode but are not legal games (a bad pitch, an
/// illegal record, a sample past the end of the record or with an illegal policy turn, a bad
/// result) are skipped: each skip adds a warning "<path>: game N: <why>" to *warnings, or
/// prints "warning: skipping <path>: game N: <why>" on stderr when warnings is null.
std::vector<GameData> read_chunk(const std::string& path,
                                 std::vector<std::string>* warnings = nullptr);
/// read_chunk on bytes already in memory; name is used in messages as the path.
std::vector<GameData> parse_chunk(const std::string& name, const std::string& bytes,
                                  std::vector<std::string>* warnings = nullptr);
/// Checks that a decoded game is a legal game whose samples a trainer can use (see read_chunk).
/// Throws RecordError or std::invalid_argument saying why.
void validate_game(const GameData& game);

/// The position of a sample: the game's record replayed for sample.turn_index turns.
/// Throws RecordError when the record is bad.
Position sample_position(const GameData& game, const TrainingSample& sample);

}  // namespace ps
