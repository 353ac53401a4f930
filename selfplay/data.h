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
// File layout, version 2: "PSDZ", u32 version, u64 payload size (the
// games' uncompressed bytes, all frames together), u32 game count, then per game a u32 frame
// length and one zstd frame (with checksum and content size) of that game alone (little-endian
// fields; see data.cpp). Each game is compressed once: self-play rewrites its open chunk after
// every game as the header and the frames it already holds plus the new one, so rewrite n's
// frames are rewrite n-1's with one frame appended.
// Version 1 (read, no longer written): "PSDZ", u32 version, u64 payload size, then one zstd
// frame of the whole payload: "PSTD", u32 game count, then the games in the same fields.
// Files are written atomically (temp + rename), so a reader sees all or nothing.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/record.h"

namespace ps {

/// The version write_chunk writes; read_chunk reads it and every earlier one (1).
constexpr uint32_t kDataFormatVersion = 2;

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

/// One game serialised and compressed on its own: a version-2 chunk's frame. No shared state:
/// any thread may call it (self-play compresses on the game's thread, outside the sink's lock).
struct CompressedGame {
  std::string frame;           ///< one zstd frame, with checksum and content size
  uint64_t payload_bytes = 0;  ///< the game's uncompressed bytes (the frame's content size)
};
/// Throws std::runtime_error when a field does not fit the format or zstd fails.
CompressedGame compress_game(const GameData& game, int zstd_level = 3);

/// Writes a chunk of games compressed by compress_game, in order, atomically: the header, then
/// each frame as it is (no recompression). Throws std::runtime_error.
void write_compressed_chunk(const std::string& path, const std::vector<CompressedGame>& games);

/// Serialises and compresses games into one chunk file (compress_game, then
/// write_compressed_chunk), atomically. Throws std::runtime_error.
void write_chunk(const std::string& path, const std::vector<GameData>& games,
                 int zstd_level = 3);
/// Bounds on what one decoded game may hold, from the rules and the format, checked as the
/// game is decoded (before anything is allocated for it; a game past one makes the chunk
/// corrupted):
/// - every kick draws a new line of the point grid, and a point has 8 neighbours, so no game
///   (and no turn) has more than kMaxGameKicks kicks, and no record is longer than
///   kMaxRecordBytes (a digit per kick, a space between turns);
/// - a sample is the position after some complete turns of the record, so a game holds at most
///   its record's turns + 1 samples (in turn order, each at its own turn: validate_game);
/// - a sample's policy lists distinct root turns of one search, at most kMaxPolicyTurns of
///   them (self-play keeps the most visited ones; a duplicate is refused by validate_game).
constexpr int kMaxGameKicks = 4 * kMaxPoints;
constexpr size_t kMaxRecordBytes = 2 * size_t(kMaxGameKicks);
constexpr uint32_t kMaxPolicyTurns = 4096;

/// Upper bounds on a chunk's payload (the uncompressed games): its header must agree with the
/// zstd frames' content sizes (summed), and neither may exceed the hard cap, nor any frame's
/// content kMaxCompressionRatio times the compressed frame (a game's frame of self-play or
/// teacher data holds at most about 3 times its size: 3.15 over 3,056 frames; a chunk of 32
/// games is tens of kB), so a frame that claims more is refused before it is decompressed.
/// Decompression never allocates more than the data actually decompressed so far.
constexpr uint64_t kMaxChunkPayload = uint64_t(1) << 28;
constexpr uint64_t kMaxCompressionRatio = 32;

/// Reads a chunk of any version up to kDataFormatVersion. Throws DataError("<path>: ...") for a
/// truncated, corrupted or unknown-version file; the message says which (and, in a version-2
/// file, which game's frame). Games that decode but are not legal games (a bad pitch, an
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
