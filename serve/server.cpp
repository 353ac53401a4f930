#include "serve/server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

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

// cpp-httplib listens with a backlog of CPPHTTPLIB_LISTEN_BACKLOG, 5, compiled into Debian's
// libcpp-httplib (defining the macro here would not change the library): a burst of a few
// hundred connections overflowed the accept queue and some were reset without an answer.
// start() listens again on the bound socket with this backlog (Linux clamps it to
// net.core.somaxconn).
constexpr int kListenBacklog = SOMAXCONN;

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

// The name of a Host header "name[:port]" or "[v6 address][:port]", lower case; "" when the
// header is not of that form.
std::string host_name(const std::string& header) {
  const std::string h = lower_case(header);
  const size_t end = !h.empty() && h[0] == '[' ? (h.find(']') == std::string::npos ? 0 : h.find(']') + 1)
                                               : std::min(h.find(':'), h.size());
  const std::string port = h.substr(end);
  if (end == 0 ||
      (!port.empty() && (port[0] != ':' || port.find_first_not_of("0123456789", 1) != std::string::npos)))
    return "";
  return h.substr(0, end);
}

bool is_ip_address(const std::string& name) {
  unsigned char addr[sizeof(in6_addr)];
  if (inet_pton(AF_INET, name.c_str(), addr) == 1) return true;
  return name.size() > 2 && name.front() == '[' && name.back() == ']' &&
         inet_pton(AF_INET6, name.substr(1, name.size() - 2).c_str(), addr) == 1;
}

// What a request must be to be served: the names it may be addressed to and the body limit.
struct RequestRules {
  explicit RequestRules(const ServeOptions& o)
      : max_body(o.max_request_bytes),
        too_large("the request is too large: at most " + std::to_string(o.max_request_bytes) + " bytes") {
    // The loopback names, and the --host the server listens on. A wildcard --host (every
    // interface) also answers to any IP address: a Host that is an address cannot come from
    // DNS rebinding, since the page's origin is then that address itself.
    const std::string host = lower_case(o.host);
    any_address = host.empty() || host == "0.0.0.0" || host == "::" || host == "[::]";
    const std::string name = host.find(':') != std::string::npos && host[0] != '[' ? "[" + host + "]" : host;
    if (!any_address && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  std::vector<std::string> names = {"localhost", "127.0.0.1", "[::1]"};
  bool any_address = false;
  size_t max_body;
  std::string too_large;
};

// Refuses a request addressed to a name that is not this server's (403): a page of another
// site that has its own name resolve to this machine (DNS rebinding) sends its own name as Host,
// and is then of the same origin for the browser, so the Origin check alone cannot see it.
// A request without Host is malformed HTTP/1.1 (400).
void check_host(const httplib::Request& req, const RequestRules& rules) {
  if (!req.has_header("Host")) throw bad_request("the request has no Host header");
  const std::string header = req.get_header_value("Host");
  const std::string name = host_name(header);
  if (!name.empty() && (std::find(rules.names.begin(), rules.names.end(), name) != rules.names.end() ||
                        (rules.any_address && is_ip_address(name))))
    return;
  std::string known;
  for (const std::string& n : rules.names) known += (known.empty() ? "" : ", ") + n;
  if (rules.any_address) known += " or an IP address";
  throw ApiError(
      403, "requests for the host " + quoted_text(header, 80) + " are refused: this server answers to " +
               known +
               " (a page of another site can reach it under its own name through DNS rebinding; start the "
               "server with --host NAME to answer to NAME)");
}

// Refuses what a web page of another origin could send to this server: a request whose Origin
// header is another host or port (or the opaque "null"), 403. With the Host checked first, an
// Origin equal to it is one of the server's names.
void check_origin(const httplib::Request& req) {
  const std::string origin = req.get_header_value("Origin");
  if (!origin.empty() && authority_of(origin) != authority_of(req.get_header_value("Host")))
    throw ApiError(403, "requests from a page of another origin (Origin " + quoted_text(origin, 80) +
                            ", this server " + quoted_text(req.get_header_value("Host"), 80) + ") are refused");
}

// A POST body not declared as JSON, 415. Browsers send text/plain, form and multipart bodies
// cross-origin without asking first; a JSON body needs a CORS preflight, which this server
// never grants.
void check_content_type(const httplib::Request& req, const std::string& body) {
  if (body.empty()) return;
  std::string type = lower_case(req.get_header_value("Content-Type"));
  type = type.substr(0, type.find(';'));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  if (type != "application/json")
    throw ApiError(415, "the request body must be sent with Content-Type: application/json (got " +
                            (type.empty() ? std::string("none") : quoted_text(type, 80)) + ")");
}

// The body of a POST, read through cpp-httplib's content reader so that the limit holds however
// the body is framed: cpp-httplib refuses a Content-Length over its payload limit itself (413,
// the body skipped), but would buffer a chunked body, or one decompressed from a
// Content-Encoding, whole. Past rules.max_body the rest is read and dropped, not kept: memory
// stays bounded, and the client, its body sent, reads the 413 on a connection still in step.
// Then the request's Host, Origin and Content-Type are checked (ApiError 403, 413, 415; 400
// when the body cannot be read).
std::string read_post_body(const httplib::Request& req, httplib::Response& res,
                           const httplib::ContentReader& reader, const RequestRules& rules) {
  std::string body;
  bool read = true, too_large = false;
  const bool chunked = req.has_header("Transfer-Encoding");
  const std::string coding = lower_case(req.get_header_value("Transfer-Encoding"));
  // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112, 6.3);
  // cpp-httplib would read one until the client closes. A transfer coding other than chunked
  // cannot be read at all.
  if ((chunked && coding == "chunked") || (!chunked && req.has_header("Content-Length"))) {
    const httplib::ContentReceiver keep = [&](const char* data, size_t n) {
      if (!too_large && body.size() + n <= rules.max_body) {
        body.append(data, n);
      } else if (!too_large) {
        too_large = true;
        std::string().swap(body);
      }
      return true;
    };
    read = req.is_multipart_form_data() ? reader([](const httplib::MultipartFormData&) { return true; }, keep)
                                        : reader(keep);
  }
  check_host(req, rules);
  check_origin(req);
  if (too_large || res.status == 413) throw ApiError(413, rules.too_large);
  if (chunked && coding != "chunked")
    throw bad_request("the body's Transfer-Encoding " + quoted_text(coding, 80) +
                      " is not supported: send it chunked or with a Content-Length");
  check_content_type(req, body);
  if (!read)
    throw bad_request(
        std::string("the request body could not be read (") +
        (chunked ? "malformed chunked encoding" : "it ended before its Content-Length") +
        (req.has_header("Content-Encoding")
             ? ", or its Content-Encoding " + quoted_text(req.get_header_value("Content-Encoding"), 40)
             : std::string()) +
        ")");
  return body;
}

// Answers fn's JSON, or {"error": message} for an ApiError (any other exception: 500).
void answer(httplib::Response& res, const std::function<Json()>& fn) {
  try {
    send_json(res, 200, fn());
  } catch (const ApiError& e) {
    send_json(res, e.status(), {{"error", e.what()}});
  } catch (const std::exception& e) {
    send_json(res, 500, {{"error", std::string("internal error: ") + e.what()}});
  }
}

// A GET route: no body (the pre-routing handler has checked Host and Origin).
httplib::Server::Handler json_get(Handler fn) {
  return [fn](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] { return fn(req, Json::object()); });
  };
}

// A POST route: the body read and checked (read_post_body), parsed as a JSON object, then fn.
httplib::Server::HandlerWithContentReader json_post(Handler fn, const RequestRules& rules) {
  return [fn, &rules](const httplib::Request& req, httplib::Response& res,
                      const httplib::ContentReader& reader) {
    answer(res, [&] { return fn(req, parse_body(read_post_body(req, res, reader, rules))); });
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
      : ctx(o, o.model.empty() ? ModelInfo{} : read_model_info(o.model), load_net(o)), rules(o) {}
  void routes();
  void game_routes();
  void checks();
  void post(const std::string& pattern, Handler fn);  ///< a POST route of the JSON API (json_post)

  ApiContext ctx;
  const RequestRules rules;
  httplib::Server http;
  std::thread thread;
  int port = 0;
  socket_t listen_socket = INVALID_SOCKET;  ///< the socket bound last (set by the socket options)
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
  http.Get("/api/info", json_get([this](auto&, auto&) { return api_info(ctx); }));
  post("/api/position", [this](auto&, const Json& b) { return api_position(ctx, b); });
  post("/api/analyse", [this](auto&, const Json& b) { return api_analyse(ctx, b); });
  post("/api/review", [this](auto&, const Json& b) { return api_review(ctx, b); });
  post("/api/runs", [this](auto&, const Json& b) { return api_runs(ctx, b); });
  game_routes();
  // Any other POST: its body read within the limit like the others', then 404. Without this
  // route cpp-httplib would read it into memory whole before finding no handler.
  http.Post(".*", [this](const httplib::Request& req, httplib::Response& res,
                         const httplib::ContentReader& reader) {
    answer(res, [&]() -> Json {
      read_post_body(req, res, reader, rules);
      throw ApiError(404, "no such path: " + req.method + " " + req.path);
    });
  });
  checks();
}

// What every request passes before its route: the method, and for GET and HEAD (which have no
// body to read first) the Host and Origin. A POST's are checked by its route once its body is
// read (read_post_body), so that the connection stays in step. Errors answer JSON.
void Server::Impl::checks() {
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "POST") return httplib::Server::HandlerResponse::Unhandled;
    try {
      // cpp-httplib reads the body of a PUT, PATCH, DELETE or PRI into memory whole, without
      // the limit; the body is left unread and the client asked to close.
      if (req.method != "GET" && req.method != "HEAD") {
        res.set_header("Allow", "GET, HEAD, POST");
        res.set_header("Connection", "close");
        throw ApiError(405, "the method " + quoted_text(req.method, 16) +
                                " is not allowed: the server answers GET and POST");
      }
      check_host(req, rules);
      check_origin(req);
      return httplib::Server::HandlerResponse::Unhandled;
    } catch (const ApiError& e) {
      send_json(res, e.status(), {{"error", e.what()}});
      return httplib::Server::HandlerResponse::Handled;
    }
  });
  const std::string too_large = rules.too_large;
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
  post("/api/games", [this](auto&, const Json& b) { return api_new_game(ctx, b); });
  http.Get(game, json_get([this](const httplib::Request& r, auto&) { return api_game(ctx, r.matches[1]); }));
  post(game + "/kick",
       [this](const httplib::Request& r, const Json& b) { return api_kick(ctx, r.matches[1], b); });
  post(game + "/bot",
       [this](const httplib::Request& r, const Json& b) { return api_bot(ctx, r.matches[1], b); });
  post(game + "/undo",
       [this](const httplib::Request& r, const Json& b) { return api_undo(ctx, r.matches[1], b); });
}

void Server::Impl::post(const std::string& pattern, Handler fn) {
  http.Post(pattern, json_post(std::move(fn), rules));
}

Server::Server(const ServeOptions& options) : impl_(std::make_unique<Impl>(options)) {
  const ServeOptions& o = impl_->ctx.options;
  impl_->http.set_payload_max_length(o.max_request_bytes);
  // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, with which a second server on
  // the same port starts silently and the two share the requests.
  // The socket is noted for start(), which raises its listen backlog.
  impl_->http.set_socket_options([impl = impl_.get()](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
    impl->listen_socket = sock;
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
  // listen() again on the listening socket sets its backlog (see kListenBacklog).
  if (::listen(impl_->listen_socket, kListenBacklog) != 0)
    throw std::runtime_error("cannot listen on " + url() + " with a backlog of " +
                             std::to_string(kListenBacklog));
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
