// Small file helpers: atomic writes (temp file + fsync + rename), whole-file reads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ps {

/// Creates directory `dir` and its missing parents (as `mkdir -p`); nothing when it exists.
/// `what` names the directory's role for the message ("the run directory", "the output
/// directory"). Throws std::runtime_error "cannot create WHAT DIR: REASON", where REASON names
/// the part of the path that failed and why: it exists and is not a directory, or mkdir's error
/// (with a hint when the parent exists but refuses new entries, as /proc does).
void ensure_directory(const std::string& dir, const std::string& what);
/// Writes data to path atomically: a reader sees the old file or the whole new one, never a
/// part. Creates parent directories (ensure_directory). Throws std::runtime_error naming the
/// path on failure.
void write_file_atomic(const std::string& path, const std::string& data);
/// Reads a whole regular file; throws std::runtime_error naming the path when it cannot, when
/// the path is not a regular file (a directory, a FIFO, a device: a FIFO blocked the reader and
/// /dev/zero grew it without bound) or when it holds more than max_bytes (-1: no bound).
std::string read_file(const std::string& path, int64_t max_bytes = -1);
/// Appends one line (adds '\n') and flushes; for logs (CSV/JSONL). Creates parent directories
/// (ensure_directory). Throws std::runtime_error naming the path on failure.
void append_line(const std::string& path, const std::string& line);
/// Removes path and everything below it (no error when it does not exist; symbolic links are
/// removed, not followed). Returns the number of entries removed; throws std::runtime_error
/// naming the first entry that could not be removed. Plain POSIX (nftw), not
/// std::filesystem::remove_all: in a build against the CUDA LibTorch 2.11 wheel that call
/// crashed (docs/BENCHMARKS.md, "CUDA on an H200").
uint64_t remove_tree(const std::string& path);
/// Where a file of the repository (a path relative to its root, such as models/x.vnet) is
/// looked for, in order: as given (relative to the working directory), then below the folder
/// above the executable's (the executable is build/papersoccer), then below the executable's
/// own folder, then below `root` when not empty, each place once (normalised: build/.. is the
/// source tree). An absolute path is its only candidate.
std::vector<std::string> repository_file_candidates(const std::string& path, const std::string& root = "");
/// The first of repository_file_candidates(path, root) that exists (a file or a folder). Throws
/// std::invalid_argument "no such file or folder PATH (looked for A, B, ...)" when none does.
std::string find_repository_file(const std::string& path, const std::string& root = "");
/// Removes the temporary files write_file_atomic leaves when its process is killed between
/// creating and renaming one (`NAME.tmp.PID`), anywhere below dir: all of them, or only those
/// whose NAME (the file name without `.tmp.PID`) select accepts. Only for files no live process
/// writes: a resumed run's own directory, or the names only one process writes (a worker's own
/// chunks). Returns how many it removed. Thread-safe (calls are serialised).
uint64_t remove_stale_temp_files(const std::string& dir,
                                 const std::function<bool(const std::string& name)>& select = {});

}  // namespace ps
