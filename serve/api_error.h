// The one error type of the JSON API: an HTTP status and a message naming the problem. Every
// handler reports bad input by throwing it; the server turns it into {"error": message}.
#pragma once

#include <stdexcept>
#include <string>

namespace ps::serve {

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

/// 400: the request is wrong (malformed JSON, a bad field, an illegal kick, an unknown game).
inline ApiError bad_request(const std::string& message) { return ApiError(400, message); }

}  // namespace ps::serve
