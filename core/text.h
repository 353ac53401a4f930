// Text from outside (records, protocol lines, command-line values) as it is shown in messages:
// bytes that are not printable ASCII are escaped, so an error line never carries raw control
// or binary bytes into a terminal, a log or a TSV column.
// Header-only, so every library can use it (the engine included, which does not link ps_core).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ps {

/// s with every byte outside printable ASCII (0x20..0x7e) written as \xNN (two upper-case hex
/// digits, e.g. "\x01", "\xFF"), and a backslash written as "\\" so the form is unambiguous.
inline std::string escape_bytes(std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c <= 0x7e) {
      out += ch;
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

/// escape_bytes(s) in single quotes; when s is longer than max_bytes, its first max_bytes bytes
/// followed by "..." inside the quotes.
inline std::string quoted_text(std::string_view s, size_t max_bytes = std::string_view::npos) {
  if (s.size() > max_bytes) return "'" + escape_bytes(s.substr(0, max_bytes)) + "...'";
  return "'" + escape_bytes(s) + "'";
}

}  // namespace ps
