// A child process with pipes to its stdin and stdout, for engines run as subprocesses (as
// cutechess-cli runs chess engines): posix_spawn, poll() with deadlines, and a kill that always
// reaps the child, so no zombie or orphan engine outlives its game.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace ps::tour {

class ChildProcess {
 public:
  using Clock = std::chrono::steady_clock;

  enum class ReadStatus {
    kLine,     ///< a full line was read (without its '\n'; a trailing '\r' is removed)
    kTimeout,  ///< the deadline passed first
    kEof,      ///< the child closed its stdout (usually: it exited or crashed)
    kTooLong,  ///< more than max_line_bytes without a newline
  };

  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  /// Kills and reaps the child if it still runs (see kill()).
  ~ChildProcess();

  /// Starts argv[0] (looked up in PATH when it has no '/') with argv, in working_dir when not
  /// empty, in its own process group. The child's stderr goes to stderr_path ("" = /dev/null,
  /// "-" = inherit ours). Throws std::runtime_error naming the command when it cannot start
  /// (missing or non-executable file, bad working_dir, ...).
  void start(const std::vector<std::string>& argv, const std::string& working_dir = "",
             const std::string& stderr_path = "");
  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  /// Writes all of data to the child's stdin. Returns false when the child no longer reads
  /// (closed pipe); never raises SIGPIPE.
  bool write(const std::string& data);
  /// Reads one line from the child's stdout, waiting until `deadline` at most.
  ReadStatus read_line(Clock::time_point deadline, std::string* line, size_t max_line_bytes = 65536);
  /// Closes the child's stdin (it sees EOF).
  void close_stdin();

  /// Closes stdin, gives the child grace_ms to exit by itself, then sends SIGKILL to its whole
  /// process group and reaps it. Safe to call repeatedly. Returns the exit description.
  std::string kill(int grace_ms = 0);
  /// Non-blocking check: true (and the status is recorded) when the child has exited.
  bool exited();
  /// "exit status N", "killed by signal N (name)", or "running".
  std::string exit_description() const;

 private:
  void reap(bool block);
  pid_t pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string buffer_;
  std::string command_;
};

/// Resolves a program name like execvp does: returns the path that would run, or "" when none
/// is found or it is not executable.
std::string find_executable(const std::string& program);

}  // namespace ps::tour
