// A server on an ephemeral port of 127.0.0.1 and a client talking JSON to it.
#pragma once

#include <httplib.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "serve/server.h"

namespace ps::serve::test {

using Json = nlohmann::json;

struct Reply {
  int status = 0;
  Json body;
};

/// Whether an answer is an error whose message holds text.
inline bool contains(const Json& j, const std::string& text) {
  return j.is_object() && j.contains("error") && j["error"].is_string() &&
         j["error"].get<std::string>().find(text) != std::string::npos;
}

class TestServer {
 public:
  explicit TestServer(ServeOptions o = options()) : server_(o) {
    port_ = server_.start();
  }
  static ServeOptions options() {
    ServeOptions o;
    o.port = 0;
    o.model = std::string(PS_MODELS_DIR) + "/quickstart-8x10.model";
    o.max_request_bytes = 64 * 1024;
    o.max_games = 32;
    return o;
  }
  int port() const { return port_; }

  Reply send(const std::string& method, const std::string& path, const std::string& body = "") const {
    httplib::Client cli("127.0.0.1", port_);
    cli.set_read_timeout(60, 0);
    auto res = method == "GET" ? cli.Get(path.c_str()) : cli.Post(path.c_str(), body, "application/json");
    Reply r;
    if (!res) return r;  // status 0: no answer
    r.status = res->status;
    r.body = Json::parse(res->body, nullptr, false);
    return r;
  }
  Reply post(const std::string& path, const Json& body) const { return send("POST", path, body.dump()); }
  Reply get(const std::string& path) const { return send("GET", path); }

 private:
  Server server_;
  int port_ = 0;
};

}  // namespace ps::serve::test
