// Shared helpers of the libFuzzer harnesses (tests/fuzz, built with -DPS_FUZZ=ON and clang).
//
// Each harness feeds the input to one reader and accepts only that reader's documented error,
// and only when its message says where (file, line, column, kick...). Any other exception
// escapes and libFuzzer reports it as a crash: an undocumented error type (std::bad_alloc,
// std::out_of_range from a library) or a message without its location is a finding too.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace ps::fuzz {

/// Aborts (a libFuzzer crash) when `ok` is false, printing the message that failed the check.
inline void expect(bool ok, const std::string& what, const std::string& message) {
  if (ok) return;
  std::fprintf(stderr, "fuzz: %s: %s\n", what.c_str(), message.c_str());
  std::abort();
}

inline bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace ps::fuzz
