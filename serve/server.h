// The HTTP server of `papersoccer serve`: the embedded page and the JSON API (serve/api.h) on
// cpp-httplib. Used by apps/cmd_serve.cpp and, on an ephemeral port, by the tests.
#pragma once

#include <memory>
#include <string>

#include "serve/options.h"

namespace ps::serve {

class Server {
 public:
  /// Reads the model's metadata and starts its inference service when options.model is set
  /// (nn::CheckpointError naming the file otherwise). Does not bind yet.
  explicit Server(const ServeOptions& options);
  ~Server();  ///< stops
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Binds host:port (port 0: any free port) and serves on a background thread; returns the
  /// port. Throws std::runtime_error naming the address when it cannot bind.
  int start();
  /// "http://host:port/".
  std::string url() const;
  /// Stops serving (idempotent); searches still running finish first.
  void stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ps::serve
