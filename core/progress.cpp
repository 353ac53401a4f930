#include "core/progress.h"

#include <sys/resource.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace ps {

ProgressLine::ProgressLine(double min_interval_s)
    : tty_(::isatty(2) != 0), min_interval_(min_interval_s),
      last_print_(std::chrono::steady_clock::now() - std::chrono::hours(1)) {}

ProgressLine::~ProgressLine() {
  if (open_) finish();
}

void ProgressLine::update(const std::string& text) {
  last_ = text;
  open_ = true;
  const auto now = std::chrono::steady_clock::now();
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", text.c_str());
    std::fflush(stderr);
  } else if (std::chrono::duration<double>(now - last_print_).count() >= min_interval_) {
    std::fprintf(stderr, "%s\n", text.c_str());
    last_print_ = now;
    printed_last_ = true;
    return;
  }
  printed_last_ = false;
}

void ProgressLine::finish() {
  if (!open_) return;
  if (tty_) std::fprintf(stderr, "\r\033[K%s\n", last_.c_str());
  else if (!printed_last_) std::fprintf(stderr, "%s\n", last_.c_str());
  std::fflush(stderr);
  open_ = false;
}

std::string format_duration(double s) {
  char buf[64];
  if (!(s >= 0)) s = 0;  // also NaN
  if (s >= 3600.0 * 1e9) return "more than 10^9 h";
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld h %02d min", (long long)(s / 3600), int(std::fmod(s / 60, 60.0)));
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%d min %02d s", int(s / 60), int(s) % 60);
  else std::snprintf(buf, sizeof buf, "%.0f s", s);
  return buf;
}

double peak_rss_mib() {
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0.0;
  return double(ru.ru_maxrss) / 1024.0;  // KiB on Linux
}

}  // namespace ps
