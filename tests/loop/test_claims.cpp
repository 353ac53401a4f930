// Claims of role identities (loop/role_claim.h): one process per identity, takeover of dead
// owners at once on this host and after a stale period from another host, loss detection.
// Two processes with one worker id: tests/scaling/roles_processes.sh.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/fileutil.h"
#include "loop/role_claim.h"

using namespace ps;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct TempRunDir {
  std::string path;
  explicit TempRunDir(const std::string& name)
      : path(
            (fs::temp_directory_path() / ("ps_claims_" + name + "_" + std::to_string(::getpid()))).string()) {
    remove_tree(path);
  }
  ~TempRunDir() { remove_tree(path); }
  std::string claim(const std::string& identity) const { return path + "/claims/" + identity + ".claim"; }
};

std::string this_host() {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  return host;
}

int64_t start_ticks_of(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream rest(text.substr(text.rfind(')') + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return std::atoll(field.c_str());
  return -1;
}

// A claim file as another process would have written it.
void write_claim(const std::string& path, const std::string& host, long pid, int64_t start,
                 const std::string& token, int64_t beat, double heartbeat_s) {
  write_file_atomic(path, json({{"identity", "x"},
                                {"host", host},
                                {"pid", pid},
                                {"start_ticks", start},
                                {"token", token},
                                {"since", "2026-12-01T10:00:00Z"},
                                {"heartbeat", beat},
                                {"heartbeat_s", heartbeat_s}})
                              .dump());
}

std::string token_in(const std::string& path) {
  return json::parse(read_file(path)).at("token").get<std::string>();
}

// How often `number_text` ("pid 123") occurs in text as a whole number (not "pid 1234").
int count_of(const std::string& text, const std::string& number_text) {
  int n = 0;
  for (size_t at = text.find(number_text); at != std::string::npos; at = text.find(number_text, at + 1)) {
    const size_t end = at + number_text.size();
    if (end == text.size() || !std::isdigit(static_cast<unsigned char>(text[end]))) ++n;
  }
  return n;
}

// The pid of a process that has ended.
long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return long(child);
}

}  // namespace

// What a file descriptor (1: stdout, 2: stderr) receives while this object lives.
class CaptureFd {
 public:
  CaptureFd(int fd, std::string path) : fd_(fd), path_(std::move(path)) {
    std::fflush(nullptr);
    saved_ = ::dup(fd_);
    file_ = std::fopen(path_.c_str(), "w");
    ::dup2(::fileno(file_), fd_);
  }
  std::string text() {
    restore();
    return read_file(path_);
  }
  ~CaptureFd() { restore(); }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(nullptr);
    ::dup2(saved_, fd_);
    ::close(saved_);
    std::fclose(file_);
    saved_ = -1;
  }
  int fd_, saved_ = -1;
  std::string path_;
  FILE* file_ = nullptr;
};

TEST_CASE("create_file_exclusive creates a name once (link of a unique temporary file)") {
  TempRunDir dir("excl");
  fs::create_directories(dir.path);
  const std::string path = dir.path + "/config.yaml";
  CHECK(create_file_exclusive(path, "first\n"));
  CHECK_FALSE(create_file_exclusive(path, "second\n"));
  CHECK(read_file(path) == "first\n");
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir.path)) files += e.is_regular_file();
  CHECK(files == 1);  // no temporary left
}

TEST_CASE("a claim is held, its heartbeat counts, it is released on the end") {
  TempRunDir dir("hold");
  ClaimOptions opt;
  opt.heartbeat_s = 0.1;
  auto claim = RoleClaim::acquire(dir.path, "worker-A", opt);
  REQUIRE(claim);
  const json j = json::parse(read_file(dir.claim("worker-A")));
  CHECK(j.at("host") == this_host());
  CHECK(j.at("pid") == long(::getpid()));
  CHECK(j.at("heartbeat") == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  CHECK(json::parse(read_file(dir.claim("worker-A"))).at("heartbeat").get<int64_t>() >= 2);
  CHECK_NOTHROW(claim->verify());
  claim.reset();
  CHECK_FALSE(fs::exists(dir.claim("worker-A")));
}

TEST_CASE("a live process's claim of this host is refused, naming it") {
  TempRunDir dir("live");
  fs::create_directories(dir.path + "/claims");
  const long parent = long(::getppid());  // alive while this test runs
  write_claim(dir.claim("worker-A"), this_host(), parent, start_ticks_of(parent), "theirs", 4, 30);
  CHECK_THROWS_AS(RoleClaim::acquire(dir.path, "worker-A"), ClaimTaken);
  CHECK_THROWS_WITH(RoleClaim::acquire(dir.path, "worker-A"),
                    Catch::Contains("pid " + std::to_string(parent)) && Catch::Contains(this_host()) &&
                        Catch::Contains("since 2026-12-01T10:00:00Z") &&
                        Catch::Contains("another --worker id"));
  CHECK(RoleClaim::acquire(dir.path, "trainer"));  // another identity
  write_claim(dir.claim("gatekeeper"), this_host(), parent, start_ticks_of(parent), "theirs", 4, 30);
  CHECK_THROWS_WITH(RoleClaim::acquire(dir.path, "gatekeeper"), Catch::Contains("one gatekeeper"));
  CHECK(token_in(dir.claim("worker-A")) == "theirs");  // untouched
}

TEST_CASE("a dead process's claim of this host is taken over at once (SIGKILL, then restart)") {
  TempRunDir dir("dead");
  fs::create_directories(dir.path + "/claims");
  const long dead = dead_pid();
  write_claim(dir.claim("worker-A"), this_host(), dead, 12345, "theirs", 9, 30);
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<RoleClaim> claim;
  {
    CaptureFd out(1, dir.path + "/stdout.txt");
    claim = RoleClaim::acquire(dir.path, "worker-A");
    CHECK_THAT(out.text(), Catch::Contains("took over the claim of pid " + std::to_string(dead) +
                                           " on host " + this_host()) &&
                               Catch::EndsWith(", whose process does not run\n"));
    // Regression: the line said "pid N" twice ("... of pid N on host H ..., whose pid N does
    // not run").
    CHECK(count_of(out.text(), "pid " + std::to_string(dead)) == 1);
  }
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
  REQUIRE(claim);
  CHECK(token_in(dir.claim("worker-A")) != "theirs");
  // A pid now used by another process (another start time) is dead too. Regression: this was
  // reported as "which no longer runs"; the pid runs, as another process.
  claim.reset();
  const long parent = long(::getppid());
  write_claim(dir.claim("worker-A"), this_host(), parent, start_ticks_of(parent) + 1, "reused", 0, 30);
  CaptureFd out(1, dir.path + "/stdout2.txt");
  CHECK(RoleClaim::acquire(dir.path, "worker-A"));
  CHECK_THAT(out.text(), Catch::EndsWith("whose pid runs but is another process: it started at "
                                         "another time (a reused pid)\n"));
  CHECK(count_of(out.text(), "pid " + std::to_string(parent)) == 1);
}

// Regression: a SIGKILLed holder that its parent had not reaped yet (a zombie)
// passed kill(pid, 0) and its start time, so its claim was refused as live until the reap.
TEST_CASE("a zombie's claim of this host (exited, not yet reaped) is taken over at once") {
  TempRunDir dir("zombie");
  fs::create_directories(dir.path + "/claims");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(0);
  // Wait until it has exited, without reaping it.
  for (int i = 0; i < 200; ++i) {
    std::ifstream in("/proc/" + std::to_string(child) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find(") Z") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  write_claim(dir.claim("worker-Z"), this_host(), long(child), start_ticks_of(long(child)), "zombie", 0, 30);
  {
    CaptureFd out(1, dir.path + "/stdout.txt");
    CHECK(RoleClaim::acquire(dir.path, "worker-Z"));
    CHECK_THAT(out.text(),
               Catch::EndsWith("whose process has exited (a zombie not yet reaped by its parent)\n"));
  }
  int status = 0;
  ::waitpid(child, &status, 0);
}

TEST_CASE("another host's claim: taken over after its heartbeat stood still, refused while it moves") {
  TempRunDir dir("remote");
  fs::create_directories(dir.path + "/claims");
  ClaimOptions opt;
  opt.poll_s = 0.05;
  SECTION("stale: taken over after 3 of its heartbeats (0.1 s) without a change") {
    write_claim(dir.claim("trainer"), "node-elsewhere", long(::getpid()), 1, "theirs", 7, 0.1);
    const auto t0 = std::chrono::steady_clock::now();
    auto claim = RoleClaim::acquire(dir.path, "trainer", opt);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    REQUIRE(claim);
    CHECK(waited >= 0.3);
    CHECK(token_in(dir.claim("trainer")) != "theirs");
  }
  SECTION("live: its counter moves while watched") {
    write_claim(dir.claim("trainer"), "node-elsewhere", 77, 1, "theirs", 0, 0.2);
    std::atomic<bool> stop{false};
    std::thread owner([&] {
      for (int beat = 1; !stop.load(); ++beat) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        write_claim(dir.claim("trainer"), "node-elsewhere", 77, 1, "theirs", beat, 0.2);
      }
    });
    CHECK_THROWS_WITH(RoleClaim::acquire(dir.path, "trainer", opt),
                      Catch::Contains("node-elsewhere") && Catch::Contains("heartbeat moves"));
    stop = true;
    owner.join();
  }
  SECTION("a stop request while watching returns no claim") {
    write_claim(dir.claim("trainer"), "node-elsewhere", 77, 1, "theirs", 0, 30);
    std::atomic<bool> cancel{true};
    CHECK_FALSE(RoleClaim::acquire(dir.path, "trainer", opt, &cancel));
  }
  // Another host's stated heartbeat interval is clamped to what our processes write (a
  // user may edit it by hand).
  SECTION("a stated heartbeat_s of 0 is clamped to 0.1 s: 3 x 0.1 s of watching, not a takeover at once") {
    write_claim(dir.claim("trainer"), "node-elsewhere", 77, 1, "theirs", 3, 0);
    const auto t0 = std::chrono::steady_clock::now();
    CaptureFd out(1, dir.path + "/stdout.txt");
    REQUIRE(RoleClaim::acquire(dir.path, "trainer", opt));
    const std::string printed = out.text();
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >= 0.3);
    CHECK_THAT(printed, Catch::Contains("whose heartbeat stood still"));
  }
  SECTION("a stated heartbeat_s of 1e308 is clamped to 3600 s: watched for 3 x 3600 s, not forever") {
    write_claim(dir.claim("trainer"), "node-elsewhere", 77, 1, "theirs", 3, 1e308);
    std::atomic<bool> cancel{false};
    std::thread stopper([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      cancel = true;
    });
    CaptureFd out(1, dir.path + "/stdout.txt");
    CHECK_FALSE(RoleClaim::acquire(dir.path, "trainer", opt, &cancel));
    const std::string printed = out.text();
    stopper.join();
    CHECK_THAT(printed, Catch::Contains("watching its heartbeat for 10800 s"));
  }
}

TEST_CASE(
    "a claim taken over by another process: verify throws, the heartbeat reports it, release keeps it") {
  TempRunDir dir("lost");
  ClaimOptions opt;
  opt.heartbeat_s = 0.1;
  std::atomic<bool> lost{false};
  std::string message;
  opt.on_lost = [&](const std::string& m) {
    message = m;
    lost = true;
  };
  auto claim = RoleClaim::acquire(dir.path, "gatekeeper", opt);
  REQUIRE(claim);
  write_claim(dir.claim("gatekeeper"), "node-elsewhere", 4242, 1, "newer", 0, 30);
  CHECK_THROWS_AS(claim->verify(), ClaimLost);
  CHECK_THROWS_WITH(claim->verify(), Catch::Contains("taken over by pid 4242 on host node-elsewhere"));
  for (int i = 0; i < 50 && !lost.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(lost.load());
  CHECK_THAT(message, Catch::Contains("gatekeeper"));
  claim.reset();
  CHECK(token_in(dir.claim("gatekeeper")) == "newer");  // not ours: not removed
}

TEST_CASE("RoleClaims holds several identities and releases them all") {
  TempRunDir dir("several");
  {
    RoleClaims claims;
    for (const char* id : {"trainer", "gatekeeper", "selfplay"}) REQUIRE(claims.add(dir.path, id));
    CHECK_NOTHROW(claims.verify());
    CHECK(fs::exists(dir.claim("selfplay")));
    CHECK_THROWS(RoleClaim::acquire(dir.path, "bad/identity"));
  }
  CHECK(fs::is_empty(dir.path + "/claims"));
}

// Regressions: each exact input that was mishandled.
TEST_CASE("a directory or a dangling link in a claim's place is named as such") {
  TempRunDir dir("foreign");
  fs::create_directories(dir.claim("worker-A"));  // a directory named worker-A.claim
  CHECK_THROWS_WITH(RoleClaim::acquire(dir.path, "worker-A"),
                    Catch::Contains("worker-A.claim: a directory in the place of a claim file"));
  fs::create_symlink(dir.path + "/nowhere", dir.claim("trainer"));
  CHECK_THROWS_WITH(RoleClaim::acquire(dir.path, "trainer"),
                    Catch::Contains("trainer.claim: a symbolic link in the place of a claim file"));
}

TEST_CASE("a refused acquire on a corrupt claim leaves it alone and warns of no release") {
  TempRunDir dir("corrupt");
  fs::create_directories(dir.path + "/claims");
  write_file_atomic(dir.claim("gatekeeper"), "{not json");
  std::string message;
  CaptureFd err(2, dir.path + "/stderr.txt");
  try {
    RoleClaim::acquire(dir.path, "gatekeeper");
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  const std::string printed = err.text();
  CHECK_THAT(message, Catch::Contains("not a claim file"));
  CHECK_THAT(printed, !Catch::Contains("not released"));  // it printed this before
  CHECK(read_file(dir.claim("gatekeeper")) == "{not json");
}

// Regression: nlohmann-json's own message text ("[json.exception.parse_error.101] ...") was
// shown inside ours. Each exact input, and the message in our words.
TEST_CASE("a corrupt claim file is named with what is wrong with it") {
  TempRunDir dir("corrupt_words");
  fs::create_directories(dir.path + "/claims");
  const auto message_for = [&](const std::string& text) {
    write_file_atomic(dir.claim("trainer"), text);
    try {
      RoleClaim::acquire(dir.path, "trainer");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string path = dir.claim("trainer");
  const std::string advice = "; remove it if no process of this role runs";
  CHECK(message_for("{not json") ==
        path + ": not a claim file: its text is not JSON (the error is at byte 3)" + advice);
  CHECK(message_for("") == path + ": not a claim file: it is empty" + advice);
  CHECK(message_for("[1, 2]") == path + ": not a claim file: its JSON is not an object" + advice);
  CHECK(message_for(R"({"host": "h", "pid": 5, "heartbeat": 0})") ==
        path + ": not a claim file: it has no \"token\" key" + advice);
  CHECK(message_for(R"({"host": 7, "token": "t", "pid": 5, "heartbeat": 0})") ==
        path + ": not a claim file: its \"host\" is not a string" + advice);
  CHECK(message_for(R"({"host": "h", "token": "t", "pid": "5", "heartbeat": 0})") ==
        path + ": not a claim file: its \"pid\" is not an integer" + advice);
  CHECK(message_for(R"({"host": "h", "token": "t", "pid": 5, "heartbeat": 0, "heartbeat_s": "x"})") ==
        path + ": not a claim file: its \"heartbeat_s\" is not a number" + advice);
  CHECK_THAT(message_for("{not json"), !Catch::Contains("json.exception"));
}
