// The JSON API's guards: a refused request changes nothing, the body limit holds for chunked
// bodies, out-of-range numbers, the Host check against DNS rebinding, a burst of requests all
// answered, and bodies that are empty, start with a byte order mark or hold null or NUL.
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "serve_fixture.h"

using ps::serve::test::contains;
using ps::serve::test::Json;
using ps::serve::test::Reply;
using ps::serve::test::TestServer;

namespace {

std::string new_game(const TestServer& s, Json body) {
  const Reply r = s.post("/api/games", body);
  REQUIRE(r.status == 200);
  return r.body["id"].get<std::string>();
}

// A kB figure of /proc/self/status ("VmHWM", "VmRSS").
long status_kb(const std::string& key) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) return std::stol(line.substr(key.size() + 1));
  return -1;
}

// The backlog of the socket of this process listening on port (TCP_INFO of a listening socket
// gives it as tcpi_sacked); -1 when none is found.
int listen_backlog(int port) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    const int fd = std::stoi(entry.path().filename().string());
    sockaddr_in addr{};
    socklen_t len = sizeof(addr);
    int listening = 0;
    socklen_t flag_len = sizeof(listening);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 || addr.sin_family != AF_INET ||
        ntohs(addr.sin_port) != port ||
        getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &flag_len) != 0 || !listening)
      continue;
    tcp_info info{};
    socklen_t info_len = sizeof(info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &info_len) == 0) return int(info.tcpi_sacked);
  }
  return -1;
}

// Sends text on a new connection to 127.0.0.1:port and returns all it reads until the server
// closes the connection.
std::string raw_exchange(int port, const std::string& text) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      send(fd, text.data(), text.size(), MSG_NOSIGNAL) == ssize_t(text.size())) {
    char buf[4096];
    for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;) reply.append(buf, size_t(n));
  }
  close(fd);
  return reply;
}

}  // namespace

TEST_CASE("a refused request changes nothing", "[serve]") {
  TestServer s;
  const std::string id = new_game(s, {{"opponent", "random"}});
  const Reply kick = s.send("POST", "/api/games/" + id + "/kick", R"({"dir":0,"reply":"yes"})");
  CHECK(kick.status == 400);
  CHECK(contains(kick.body, "field 'reply' must be true or false"));
  const Reply bot = s.send("POST", "/api/games/" + id + "/bot", R"({"wait":"no"})");
  CHECK(bot.status == 400);
  CHECK(contains(bot.body, "field 'wait' must be true or false"));
  const Reply now = s.get("/api/games/" + id);
  CHECK(now.body["record"]["kicks"] == "");  // the kick was not played
  CHECK(now.body["version"] == 0);
  CHECK(now.body["thinking"] == false);  // nor the bot's turn started
}

TEST_CASE("a kick whose reply cannot be queued is taken back (503)", "[serve]") {
  auto o = TestServer::options();
  o.max_queued = 0;  // every search is refused
  TestServer s(o);
  const std::string id = new_game(s, {{"opponent", "random"}});
  const Reply r = s.post("/api/games/" + id + "/kick", {{"dir", 0}, {"reply", true}});
  CHECK(r.status == 503);
  CHECK(contains(r.body, "too many searches queued"));
  const Reply now = s.get("/api/games/" + id);
  CHECK(now.body["record"]["kicks"] == "");
  CHECK(now.body["thinking"] == false);
  CHECK(s.post("/api/games/" + id + "/kick", {{"dir", 0}}).status == 200);  // without the reply it is played
}

TEST_CASE("a chunked body over the limit answers 413 without being kept", "[serve]") {
  TestServer s;  // a limit of 64 KiB
  httplib::Client cli("127.0.0.1", s.port());
  cli.set_read_timeout(60, 0);
  // Under the limit a chunked body is read as any other.
  const std::string small = R"({"opponent":"greedy"})";
  auto ok = cli.Post(
      "/api/games",
      [&](size_t offset, httplib::DataSink& sink) {
        sink.write(small.data() + offset, std::min<size_t>(8, small.size() - offset));
        if (offset + 8 >= small.size()) sink.done();
        return true;
      },
      "application/json");
  REQUIRE(ok);
  CHECK(ok->status == 200);
  // 48 MiB in 64 KiB chunks: refused, and the server's memory does not grow by the body.
  std::ofstream("/proc/self/clear_refs") << "5";  // restart the peak (VmHWM) from the present size
  const long before_kb = status_kb("VmHWM");
  const std::string piece = "[" + std::string(64 * 1024 - 2, '0') + "]";
  const size_t total = 48u << 20;
  auto big = cli.Post(
      "/api/games",
      [&](size_t offset, httplib::DataSink& sink) {
        sink.write(piece.data(), piece.size());
        if (offset + piece.size() >= total) sink.done();
        return true;
      },
      "application/json");
  REQUIRE(big);
  CHECK(big->status == 413);
  CHECK(Json::parse(big->body)["error"].get<std::string>().find("too large") != std::string::npos);
  CHECK(status_kb("VmHWM") - before_kb < 24 * 1024);
  CHECK(s.get("/api/info").status == 200);  // still serving
  // A POST to no route is read within the limit too: 413 over it, 404 under it.
  for (const size_t size : {size_t(4) << 20, piece.size()}) {
    auto nowhere = cli.Post(
        "/nosuch",
        [&](size_t offset, httplib::DataSink& sink) {
          sink.write(piece.data(), piece.size());
          if (offset + piece.size() >= size) sink.done();
          return true;
        },
        "application/json");
    REQUIRE(nowhere);
    CHECK(nowhere->status == (size > piece.size() ? 413 : 404));
  }
  // Methods whose bodies cpp-httplib would keep whole are refused before reading.
  auto put = cli.Put("/api/games", "{}", "application/json");
  REQUIRE(put);
  CHECK(put->status == 405);
}

TEST_CASE("a POST without a length has no body and other transfer codings are refused", "[serve]") {
  TestServer s;
  const std::string head =
      "POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Connection: close\r\n";
  // Neither Content-Length nor Transfer-Encoding: no body (not one read until the client closes).
  const auto t0 = std::chrono::steady_clock::now();
  const std::string none = raw_exchange(s.port(), head + "\r\n");
  CHECK(std::chrono::steady_clock::now() - t0 <
        std::chrono::seconds(3));  // cpp-httplib's read timeout is 5 s
  CHECK(none.rfind("HTTP/1.1 400", 0) == 0);
  CHECK(none.find("the request body is empty") != std::string::npos);
  const std::string gzip =
      raw_exchange(s.port(), head + "Transfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
  CHECK(gzip.rfind("HTTP/1.1 400", 0) == 0);
  CHECK(gzip.find("Transfer-Encoding 'gzip, chunked' is not supported") != std::string::npos);
  const std::string chunked =
      raw_exchange(s.port(), head + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
  CHECK(chunked.rfind("HTTP/1.1 200", 0) == 0);
}

TEST_CASE("numbers beyond a double answer 400 naming the field", "[serve]") {
  TestServer s;
  const std::string id = new_game(s, {{"opponent", "human"}});
  const Reply dir = s.send("POST", "/api/games/" + id + "/kick", R"({"dir":1e400})");
  CHECK(dir.status == 400);
  CHECK(contains(dir.body, "field 'dir': the number '1e400' is out of range"));
  const Reply visits = s.send("POST", "/api/analyse", R"({"engine":"puct","record":"2 4","visits":1e999})");
  CHECK(visits.status == 400);
  CHECK(contains(visits.body, "field 'visits'"));
  const Reply nested = s.send("POST", "/api/games", R"([1, -1e400])");
  CHECK(nested.status == 400);
  CHECK(contains(nested.body, "out of range"));
  CHECK(s.send("POST", "/api/games", R"({"seed":1e3})").status == 400);  // an integer as a float
  CHECK(s.get("/api/games/" + id).body["record"]["kicks"] == "");
}

TEST_CASE("a request for another host name is refused (DNS rebinding)", "[serve]") {
  TestServer s;
  httplib::Client cli("127.0.0.1", s.port());
  auto evil = cli.Post("/api/games", {{"Host", "evil.example:8080"}, {"Origin", "http://evil.example:8080"}},
                       R"({"opponent":"greedy"})", "application/json");
  REQUIRE(evil);
  CHECK(evil->status == 403);
  CHECK(evil->body.find("'evil.example:8080' are refused") != std::string::npos);
  auto read = cli.Get("/api/info", {{"Host", "evil.example"}});
  REQUIRE(read);
  CHECK(read->status == 403);
  auto page = cli.Get("/", {{"Host", "evil.example:8080"}});
  REQUIRE(page);
  CHECK(page->status == 403);
  CHECK(s.get("/api/info").body["games"] == 0);  // no game was made
  // The loopback names, with any port or none, pass.
  for (const char* host : {"localhost:8080", "LOCALHOST", "127.0.0.1:1", "[::1]:8080", "[::1]"}) {
    auto r = cli.Get("/api/info", {{"Host", host}});
    REQUIRE(r);
    CHECK(r->status == 200);
  }
  for (const char* host : {"127.0.0.2", "localhost.evil.example", "localhost:x", "[::2]:80", "[::1"}) {
    auto r = cli.Get("/api/info", {{"Host", host}});
    REQUIRE(r);
    CHECK(r->status == 403);
  }
  auto none = cli.Get("/api/info", {{"Host", ""}});  // an empty header is no header for cpp-httplib
  REQUIRE(none);
  CHECK(none->status == 400);
}

TEST_CASE("the server's --host adds its name to the names it answers to", "[serve]") {
  SECTION("an address") {
    auto o = TestServer::options();
    o.host = "127.0.0.2";
    TestServer s(o);
    httplib::Client cli("127.0.0.2", s.port());  // sends Host 127.0.0.2:PORT
    auto r = cli.Post("/api/games", R"({"opponent":"greedy"})", "application/json");
    REQUIRE(r);
    CHECK(r->status == 200);
    auto evil = cli.Get("/api/info", {{"Host", "evil.example"}});
    REQUIRE(evil);
    CHECK(evil->status == 403);
  }
  SECTION("every interface: any IP address, no other name") {
    auto o = TestServer::options();
    o.host = "0.0.0.0";
    TestServer s(o);
    httplib::Client cli("127.0.0.1", s.port());
    for (const char* host : {"192.0.2.7:8080", "[2001:db8::1]:8080", "localhost"}) {
      auto r = cli.Get("/api/info", {{"Host", host}});
      REQUIRE(r);
      CHECK(r->status == 200);
    }
    auto evil = cli.Get("/api/info", {{"Host", "evil.example"}});
    REQUIRE(evil);
    CHECK(evil->status == 403);
  }
}

TEST_CASE("a burst of 200 analyses is all answered (503 past the search queue)", "[serve]") {
  auto o = TestServer::options();
  o.search_threads = 1;
  o.max_queued = 2;
  TestServer s(o);
  // cpp-httplib's own backlog is 5; the server raises it (Linux caps it at somaxconn).
  int somaxconn = 128;
  std::ifstream("/proc/sys/net/core/somaxconn") >> somaxconn;
  CHECK(listen_backlog(s.port()) >= std::min(128, somaxconn));
  std::vector<int> status(200, 0);
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < status.size(); ++i)
    threads.emplace_back([&, i] {
      while (!go) std::this_thread::yield();
      status[i] = s.post("/api/analyse", {{"record", "2 4"}, {"time_ms", 100}}).status;
    });
  go = true;
  for (auto& t : threads) t.join();
  const auto count = [&](int code) { return std::count(status.begin(), status.end(), code); };
  CHECK(count(200) + count(503) == 200);  // every request answered (0: no answer)
  CHECK(count(200) >= 1);
  CHECK(count(503) >= 1);
}

TEST_CASE("empty bodies, a byte order mark, null and NUL are refused with 400", "[serve]") {
  TestServer s;
  const Reply empty = s.send("POST", "/api/games", "");
  CHECK(empty.status == 400);
  CHECK(contains(empty.body, "the request body is empty: send a JSON object ({} for the defaults)"));
  CHECK(contains(s.send("POST", "/api/games", " \r\n").body, "the request body is empty"));
  const Reply bom = s.send("POST", "/api/games", "\xEF\xBB\xBF{}");
  CHECK(bom.status == 400);
  CHECK(contains(bom.body, "byte order mark"));
  const Reply null = s.send("POST", "/api/games", R"({"opponent":null})");
  CHECK(null.status == 400);
  CHECK(contains(null.body, "field 'opponent' must be a string, not null"));
  CHECK(contains(s.send("POST", "/api/analyse", R"({"engine":"puct","visits":null})").body,
                 "field 'visits' must be an integer"));
  const Reply nul = s.send("POST", "/api/games", R"({"opponent":"gr\u0000eedy"})");
  CHECK(nul.status == 400);
  CHECK(contains(nul.body, "field 'opponent' holds a NUL byte: 'gr\\x00eedy'"));  // not cut at the NUL
  CHECK(s.get("/api/info").body["games"] == 0);
}

// Misspelt and unknown fields were read as absent: {"recrod":"0 3"} analysed the start
// position, {"tme_ms":100} searched the default time, {"oponent":"random"} made a game against
// the bot, and a repeated field kept its last value.
TEST_CASE("a field a request does not read, or a field given twice, is refused with 400", "[serve]") {
  TestServer s;
  const Reply recrod = s.send("POST", "/api/analyse", R"({"recrod":"0 3","time_ms":100})");
  CHECK(recrod.status == 400);
  CHECK(
      contains(recrod.body, "field 'recrod' is not read by this request (its fields: engine, game, record"));
  const Reply tme = s.send("POST", "/api/analyse", R"({"record":"0 3","tme_ms":100})");
  CHECK(tme.status == 400);
  CHECK(contains(tme.body, "field 'tme_ms' is not read by this request"));
  const int64_t games = s.get("/api/info").body["games"];
  const Reply oponent = s.send("POST", "/api/games", R"({"oponent":"random"})");
  CHECK(oponent.status == 400);
  CHECK(contains(oponent.body, "field 'oponent' is not read by this request"));
  CHECK(s.get("/api/info").body["games"] == games);  // no game made
  const std::string id = new_game(s, {{"opponent", "random"}});
  const Reply twice = s.send("POST", "/api/games/" + id + "/kick", R"({"dir":1,"dir":2})");
  CHECK(twice.status == 400);
  CHECK(contains(twice.body, "field 'dir' is given twice"));
  CHECK(contains(s.send("POST", "/api/games/" + id + "/undo", R"({"all":true})").body,
                 "it reads none: send {}"));
  CHECK(s.get("/api/games/" + id).body["version"] == 0);  // nothing was played or undone
  // "wait": false with "reply": true answers at once, the bot's turn queued.
  const Reply quick = s.send("POST", "/api/games/" + id + "/kick", R"({"dir":4,"reply":true,"wait":false})");
  REQUIRE(quick.status == 200);
  CHECK(quick.body["record"]["kicks"].get<std::string>().rfind("4", 0) == 0);
  CHECK(contains(s.send("POST", "/api/games/" + id + "/kick", R"({"dir":0,"wait":false})").body,
                 "field 'wait': is read with \"reply\": true only"));
}
