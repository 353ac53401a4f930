// A count and its noun in messages, singular for exactly one: "1 game", "3 games", "0 games".
// Header-only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ps {

/// n followed by `singular` when n is 1 or -1, else by `plural` (default: singular + "s"),
/// e.g. counted(1, "game") == "1 game", counted(12, "game") == "12 games",
/// counted(2, "search", "searches") == "2 searches".
inline std::string counted(int64_t n, std::string_view singular, std::string_view plural = {}) {
  std::string out = std::to_string(n);
  out += ' ';
  if (n == 1 || n == -1) {
    out += singular;
  } else if (plural.empty()) {
    out += singular;
    out += 's';
  } else {
    out += plural;
  }
  return out;
}

}  // namespace ps
