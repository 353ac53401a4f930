// Small file helpers: atomic writes (temp file + fsync + rename), whole-file reads.
#pragma once

#include <string>

namespace ps {

/// Writes data to path atomically: a reader sees the old file or the whole new one, never a
/// part. Creates parent directories. Throws std::runtime_error naming the path on failure.
void write_file_atomic(const std::string& path, const std::string& data);
/// Reads a whole file; throws std::runtime_error naming the path when it cannot.
std::string read_file(const std::string& path);
/// Appends one line (adds '\n') and flushes; for logs (CSV/JSONL). Throws on failure.
void append_line(const std::string& path, const std::string& line);

}  // namespace ps
