// The one error type of the JSON API: an HTTP status and a message naming the problem. Every
// handler reports bad input by throwing it; the server turns it into {"error": message}.
#pragma once

#include <stdexcept>
#include <string>

namespace ps::serve {

class ApiError : public std::runtime_error {
 public:
  /// A NUL byte in message (from a field quoted in it) is written as "\x00": what() is a C
  /// string, and a raw NUL would cut the message there.
  ApiError(int status, const std::string& message)
      : std::runtime_error(without_nul(message)), status_(status) {}
  int status() const { return status_; }

 private:
  static std::string without_nul(std::string text) {
    for (size_t i = text.find('\0'); i != std::string::npos; i = text.find('\0', i + 4))
      text.replace(i, 1, "\\x00");
    return text;
  }

  int status_;
};

/// 400: the request is wrong (malformed JSON, a bad field, an illegal kick, an unknown game).
inline ApiError bad_request(const std::string& message) { return ApiError(400, message); }

}  // namespace ps::serve
