// One progress line on stderr: rewritten in place on a terminal, printed every few seconds
// (and at the end) otherwise, so logs stay readable.
#pragma once

#include <chrono>
#include <string>

namespace ps {

class ProgressLine {
 public:
  /// min_interval_s: on a non-terminal, the least time between printed lines.
  explicit ProgressLine(double min_interval_s = 5.0);
  ~ProgressLine();
  /// Shows text (e.g. "self-play gen 3: 12/40 games, 1.3/s, ETA 21 s").
  void update(const std::string& text);
  /// Prints the last text as a final line.
  void finish();

 private:
  bool tty_;
  bool open_ = false;
  bool printed_last_ = false;  // the last update was printed (non-terminal)
  double min_interval_;
  std::string last_;
  std::chrono::steady_clock::time_point last_print_;
};

/// Wall seconds on the steady clock since t0 (timings of benchmarks and progress lines).
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// "1 h 02 min", "3 min 05 s", "42 s".
std::string format_duration(double seconds);

/// Peak resident set size of this process so far, in MiB (getrusage ru_maxrss); 0 where the
/// platform does not report it. Printed by `run` per generation and by every `bench`.
double peak_rss_mib();

}  // namespace ps
