#include "serve/server.h"

#include <httplib.h>

#include <atomic>
#include <cctype>
#include <functional>
#include <stdexcept>
#include <thread>

#include "core/text.h"
#include "loop/players.h"
#include "serve/api.h"
#include "serve/api_error.h"
#include "serve/assets.h"
#include "serve/net_setup.h"
#include "serve/request.h"

namespace ps::serve {

namespace {

using Handler = std::function<Json(const httplib::Request&, const Json&)>;

void send_json(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

std::string lower_case(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// "host[:port]" of an Origin "scheme://host[:port]" or of a Host header, lower case.
std::string authority_of(const std::string& text) {
  const size_t scheme = text.find("://");
  return lower_case(scheme == std::string::npos ? text : text.substr(scheme + 3));
}

// Refuses what a web page of another origin could send to this server: a request whose Origin
// header is another host or port (or the opaque "null"), 403; a POST body not declared as JSON,
// 415. Browsers send text/plain, form and multipart bodies cross-origin without asking first;
// a JSON body needs a CORS preflight, which this server never grants.
void check_request_source(const httplib::Request& req) {
  const std::string origin = req.get_header_value("Origin");
  if (!origin.empty() && authority_of(origin) != authority_of(req.get_header_value("Host")))
    throw ApiError(403, "requests from a page of another origin (Origin " + quoted_text(origin, 80) +
                            ", this server " + quoted_text(req.get_header_value("Host"), 80) + ") are refused");
  if (req.method != "POST" || req.body.empty()) return;
  std::string type = lower_case(req.get_header_value("Content-Type"));
  type = type.substr(0, type.find(';'));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  if (type != "application/json")
    throw ApiError(415, "the request body must be sent with Content-Type: application/json (got " +
                            (type.empty() ? std::string("none") : quoted_text(type, 80)) + ")");
}

// Parses the body, runs the handler, and answers its JSON or {"error": message}.
httplib::Server::Handler json_route(Handler fn) {
  return [fn](const httplib::Request& req, httplib::Response& res) {
    try {
      check_request_source(req);
      send_json(res, 200, fn(req, parse_body(req.body)));
    } catch (const ApiError& e) {
      send_json(res, e.status(), {{"error", e.what()}});
    } catch (const std::exception& e) {
      send_json(res, 500, {{"error", std::string("internal error: ") + e.what()}});
    }
  };
}

// Registers the player types (idempotent) and starts the model's inference service.
std::shared_ptr<Evaluator> load_net(const ServeOptions& o) {
  register_builtin_players();
  if (o.model.empty()) return nullptr;
  return shared_net_evaluator(o.model, service_options(o));
}

}  // namespace

struct Server::Impl {
  explicit Impl(const ServeOptions& o)
      : ctx(o, o.model.empty() ? ModelInfo{} : read_model_info(o.model), load_net(o)) {}
  void routes();
  void game_routes();

  ApiContext ctx;
  httplib::Server http;
  std::thread thread;
  int port = 0;
};

void Server::Impl::routes() {
  for (const Asset& a : web_assets()) {
    const std::string body(a.body), mime(mime_type(a.path));
    const auto serve = [body, mime](const httplib::Request&, httplib::Response& res) {
      res.set_header("Cache-Control", "no-cache");
      res.set_content(body, mime.c_str());
    };
    http.Get(std::string(a.path), serve);
    if (a.path == "/index.html") http.Get("/", serve);
  }
  http.Get("/api/info", json_route([this](auto&, auto&) { return api_info(ctx); }));
  http.Post("/api/position", json_route([this](auto&, const Json& b) { return api_position(ctx, b); }));
  http.Post("/api/analyse", json_route([this](auto&, const Json& b) { return api_analyse(ctx, b); }));
  http.Post("/api/review", json_route([this](auto&, const Json& b) { return api_review(ctx, b); }));
  http.Post("/api/runs", json_route([this](auto&, const Json& b) { return api_runs(ctx, b); }));
  game_routes();
  const std::string too_large = "the request is too large: at most " + std::to_string(ctx.options.max_request_bytes) +
                                " bytes (8192 with Content-Type application/x-www-form-urlencoded, curl -d's "
                                "default: send Content-Type: application/json)";
  http.set_error_handler(httplib::Server::HandlerWithResponse([too_large](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string why = res.status == 404 ? "no such path: " + req.method + " " + req.path
                      : res.status == 413 ? too_large
                                          : "HTTP " + std::to_string(res.status);
    send_json(res, res.status, {{"error", why}});
    return httplib::Server::HandlerResponse::Handled;
  }));
}

void Server::Impl::game_routes() {
  const std::string game = "/api/games/([^/]+)";
  http.Post("/api/games", json_route([this](auto&, const Json& b) { return api_new_game(ctx, b); }));
  http.Get(game, json_route([this](const httplib::Request& r, auto&) { return api_game(ctx, r.matches[1]); }));
  http.Post(game + "/kick", json_route([this](const httplib::Request& r, const Json& b) {
    return api_kick(ctx, r.matches[1], b);
  }));
  http.Post(game + "/bot", json_route([this](const httplib::Request& r, const Json& b) {
    return api_bot(ctx, r.matches[1], b);
  }));
  http.Post(game + "/undo", json_route([this](const httplib::Request& r, const Json& b) {
    return api_undo(ctx, r.matches[1], b);
  }));
}

Server::Server(const ServeOptions& options) : impl_(std::make_unique<Impl>(options)) {
  const ServeOptions& o = impl_->ctx.options;
  impl_->http.set_payload_max_length(o.max_request_bytes);
  // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, with which a second server on
  // the same port starts silently and the two share the requests.
  impl_->http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
  });
  const int threads = o.http_threads < 1 ? 1 : o.http_threads;
  impl_->http.new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
  impl_->routes();
}

Server::~Server() { stop(); }

int Server::start() {
  const ServeOptions& o = impl_->ctx.options;
  auto& http = impl_->http;
  const bool bound = o.port == 0 ? (impl_->port = http.bind_to_any_port(o.host)) > 0
                                 : http.bind_to_port(o.host, impl_->port = o.port);
  if (!bound)
    throw std::runtime_error("cannot listen on " + o.host + ":" + std::to_string(o.port) +
                             " (address in use, or not an address of this machine)");
  auto ended = std::make_shared<std::atomic<bool>>(false);
  impl_->thread = std::thread([&http, ended] {
    http.listen_after_bind();
    ended->store(true);
  });
  while (!http.is_running() && !ended->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (ended->load()) throw std::runtime_error("the server on " + url() + " stopped at once");
  return impl_->port;
}

std::string Server::url() const {
  const std::string& h = impl_->ctx.options.host;
  return "http://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + std::to_string(impl_->port) + "/";
}

void Server::stop() {
  impl_->http.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace ps::serve
