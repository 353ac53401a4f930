// Claims of role identities (loop/role_claim.h: the protocol, its NFS assumptions, its limits).
#include "loop/role_claim.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/fileutil.h"
#include "loop/run_dir.h"

namespace ps {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string host_name() {
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0 || !host[0]) return "unknown-host";
  return host;
}

std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

// The start time of process `pid` in clock ticks after boot (/proc/PID/stat field 22), -1 when
// unknown: with the pid it names one process, a reused pid has another start time.
int64_t start_ticks(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');  // the command name may hold spaces and ')'
  if (close == std::string::npos) return -1;
  std::istringstream rest(text.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return std::atoll(field.c_str());
  return -1;
}

std::string random_token() {
  std::random_device rd;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
  return buf;
}

struct Holder {
  std::string host, boot, token, since;
  long pid = 0;
  int64_t start = -1, beat = 0;
  double heartbeat_s = 30;
};

// The claim file as read now; nullopt when there is none. std::runtime_error for a file that is
// not a claim (claims are written whole, so only a foreign file gets here).
std::optional<Holder> read_holder(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (!fs::exists(status)) return std::nullopt;
  if (!fs::is_regular_file(status))
    throw std::runtime_error(path + ": " +
                             (fs::is_symlink(status)     ? "a symbolic link"
                              : fs::is_directory(status) ? "a directory"
                                                         : "not a regular file") +
                             " in the place of a claim file; remove it if no process of this role runs");
  std::string text;
  {
    std::ifstream in(path);
    if (!in) {
      if (errno == ENOENT || !fs::exists(path)) return std::nullopt;
      throw std::runtime_error(path + ": cannot read the claim: " + std::strerror(errno));
    }
    text.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  try {
    const json j = json::parse(text);
    Holder h;
    h.host = j.at("host").get<std::string>();
    h.boot = j.value("boot_id", std::string());
    h.token = j.at("token").get<std::string>();
    h.since = j.value("since", std::string("?"));
    h.pid = j.at("pid").get<long>();
    h.start = j.value("start_ticks", int64_t(-1));
    h.beat = j.at("heartbeat").get<int64_t>();
    // Our processes write 0.1-3600 s (--heartbeat); a hand-edited value outside is clamped, so
    // neither 0 (a takeover at once) nor 1e308 (never) is believed.
    h.heartbeat_s = std::clamp(j.value("heartbeat_s", 30.0), kMinHeartbeatS, kMaxHeartbeatS);
    return h;
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": not a claim file (" + e.what() +
                             "); remove it if no process of this role runs");
  }
}

// Whether the process a claim of this host names still runs.
bool holder_alive_here(const Holder& h) {
  if (!h.boot.empty() && h.boot != boot_id()) return false;  // the machine restarted since
  if (h.pid == long(::getpid())) return false;               // not us: we are claiming now
  if (::kill(pid_t(h.pid), 0) != 0 && errno == ESRCH) return false;
  const int64_t now_start = start_ticks(h.pid);
  return h.start < 0 || now_start < 0 || now_start == h.start;
}

std::string holder_text(const Holder& h) {
  return "pid " + std::to_string(h.pid) + " on host " + h.host + " since " + h.since + " (heartbeat " +
         std::to_string(h.beat) + ")";
}

// What a user does about a live claim of `identity`.
std::string advice(const std::string& identity) {
  if (identity.rfind("worker-", 0) == 0)
    return "give this worker another --worker id, or stop that process first";
  if (identity == "selfplay") return "another `run` of this directory is running: stop it first";
  return "a run directory has one " + identity + ": stop that process (or the `run` that holds it) first";
}

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

}  // namespace

bool create_file_exclusive(const std::string& path, const std::string& content) {
  const std::string tmp = path + "." + host_name() + "." + std::to_string(::getpid()) + "." +
                          random_token().substr(0, 8) + ".link";
  {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) throw std::runtime_error(tmp + ": cannot create: " + std::strerror(errno));
    bool ok = ::write(fd, content.data(), content.size()) == ssize_t(content.size());
    ok = ::fsync(fd) == 0 && ok;
    ok = ::close(fd) == 0 && ok;
    if (!ok) {
      ::unlink(tmp.c_str());
      throw std::runtime_error(tmp + ": write failed: " + std::strerror(errno));
    }
  }
  bool created = ::link(tmp.c_str(), path.c_str()) == 0;
  const int err = errno;
  struct stat st {};
  if (!created && ::stat(tmp.c_str(), &st) == 0 && st.st_nlink == 2) created = true;  // lost reply
  ::unlink(tmp.c_str());
  if (!created && err != EEXIST) throw std::runtime_error(path + ": cannot create: " + std::strerror(err));
  return created;
}

RoleClaim::RoleClaim(std::string identity, std::string path, std::string token, std::string since,
                     ClaimOptions options)
    : identity_(std::move(identity)),
      path_(std::move(path)),
      token_(std::move(token)),
      since_(std::move(since)),
      options_(std::move(options)) {}

std::string RoleClaim::content(int64_t beat) const {
  return json({{"identity", identity_},
               {"host", host_name()},
               {"boot_id", boot_id()},
               {"pid", long(::getpid())},
               {"start_ticks", start_ticks(long(::getpid()))},
               {"token", token_},
               {"since", since_},
               {"heartbeat", beat},
               {"heartbeat_s", options_.heartbeat_s}})
             .dump() +
         "\n";
}

std::unique_ptr<RoleClaim> RoleClaim::acquire(const std::string& run_dir, const std::string& identity,
                                              const ClaimOptions& options, const std::atomic<bool>* cancel) {
  bool ok = !identity.empty();
  for (char c : identity) ok = ok && (std::isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-');
  if (!ok) throw std::invalid_argument("claim identity '" + identity + "': letters, digits, '_', '.', '-'");
  const fs::path dir = fs::path(run_dir) / "claims";
  fs::create_directories(dir);
  const std::string path = (dir / (identity + ".claim")).string();
  const std::string token = random_token();
  std::unique_ptr<RoleClaim> claim(new RoleClaim(identity, path, token, now_iso(), options));
  auto held = [&] {  // the heartbeat starts once the claim is held
    claim->held_ = true;
    claim->heart_ = std::thread([c = claim.get()] { c->heartbeat_loop(); });
    return std::move(claim);
  };
  const std::string mine = claim->content(0);
  bool watched = false;  // another host's claim, taken over after its heartbeat stood still
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (create_file_exclusive(path, mine)) return held();
    const std::optional<Holder> h = read_holder(path);
    if (!h) continue;  // released meanwhile
    if (h->host == host_name()) {
      if (holder_alive_here(*h))
        throw ClaimTaken(identity + " is held by " + holder_text(*h) + " (" + path +
                         "): " + advice(identity));
    } else {
      const double stale_s = options.stale_beats * h->heartbeat_s;
      std::printf(
          "%s is held by %s; watching its heartbeat for %.0f s (%d of its heartbeats) before "
          "taking it over\n",
          identity.c_str(), holder_text(*h).c_str(), stale_s, options.stale_beats);
      std::fflush(stdout);
      const auto t0 = std::chrono::steady_clock::now();
      bool gone = false;
      while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < stale_s) {
        for (double waited = 0; waited < options.poll_s; waited += 0.05) {
          if (cancel && cancel->load()) return nullptr;
          sleep_s(0.05);
        }
        const std::optional<Holder> now = read_holder(path);
        if (!now) {
          gone = true;
          break;
        }
        if (now->token != h->token || now->beat != h->beat)
          throw ClaimTaken(identity + " is held by " + holder_text(*now) + " (" + path +
                           "), whose heartbeat moves: " + advice(identity));
      }
      if (gone) continue;
      watched = true;
    }
    // Dead owner: our claim replaces it, unless it changed meanwhile.
    const std::string tmp = path + "." + token + ".takeover";
    write_file_atomic(tmp, mine);
    const std::optional<Holder> again = read_holder(path);
    if (!again || again->token != h->token) {
      ::unlink(tmp.c_str());
      continue;
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      const int err = errno;
      ::unlink(tmp.c_str());
      throw std::runtime_error(path + ": cannot take the claim over: " + std::strerror(err));
    }
    const std::optional<Holder> check = read_holder(path);
    if (check && check->token == token) {
      std::printf("%s: took over the claim of %s, %s\n", identity.c_str(), holder_text(*h).c_str(),
                  watched ? "whose heartbeat stood still" : "which no longer runs");
      std::fflush(stdout);
      return held();
    }
  }
  throw std::runtime_error(path +
                           ": the claim changed hands 100 times while this process tried to "
                           "take it; are many processes of this role starting at once?");
}

void RoleClaim::verify() const {
  for (int attempt = 0;; ++attempt) {
    try {
      std::optional<Holder> h = read_holder(path_);
      if (!h) {
        // Deleted by hand: claimed again if nobody else did meanwhile.
        std::cerr << "warning: " << path_ << " vanished; claiming it again\n";
        if (create_file_exclusive(path_, content(beat_.load()))) return;
        h = read_holder(path_);
        if (!h) continue;
      }
      if (h->token == token_) return;
      throw ClaimLost(identity_ + ": this process's claim " + path_ + " was taken over by " +
                      holder_text(*h) + ": another process of this role runs on this run " +
                      "directory (it judged this one dead); this one stops, losing the work since "
                      "its last write");
    } catch (const ClaimLost&) {
      throw;
    } catch (const std::runtime_error&) {
      if (attempt >= 10) throw;
      sleep_s(0.1);  // NFS: a transient error (ESTALE, EIO) while the file is replaced
    }
  }
}

void RoleClaim::verify_or_exit() const {
  try {
    verify();
  } catch (const ClaimLost& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", e.what());
    std::_Exit(1);
  }
}

void RoleClaim::heartbeat_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (cv_.wait_for(lock, std::chrono::duration<double>(options_.heartbeat_s), [&] { return stop_; }))
      return;
    lock.unlock();
    try {
      verify();
      const int64_t next = beat_.load() + 1;
      write_file_atomic(path_, content(next));
      beat_ = next;
    } catch (const ClaimLost& e) {
      if (options_.on_lost) {
        options_.on_lost(e.what());
        return;
      }
      std::fflush(stdout);
      std::fprintf(stderr, "error: %s\n", e.what());
      std::_Exit(1);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "warning: %s: heartbeat not written: %s\n", path_.c_str(), e.what());
    }
    lock.lock();
  }
}

void RoleClaim::release() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (released_) return;
    released_ = stop_ = true;
  }
  if (!held_) return;  // a refused or abandoned acquire: the file is another process's
  cv_.notify_all();
  if (heart_.joinable()) heart_.join();
  try {
    const std::optional<Holder> h = read_holder(path_);
    if (h && h->token == token_) ::unlink(path_.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warning: %s not released: %s\n", path_.c_str(), e.what());
  }
}

RoleClaim::~RoleClaim() { release(); }

bool RoleClaims::add(const std::string& run_dir, const std::string& identity, const ClaimOptions& options,
                     const std::atomic<bool>* cancel) {
  std::unique_ptr<RoleClaim> c = RoleClaim::acquire(run_dir, identity, options, cancel);
  if (!c) return false;
  held_.push_back(std::move(c));
  return true;
}

void RoleClaims::verify() const {
  for (const auto& c : held_) c->verify();
}

void RoleClaims::verify_or_exit() const {
  for (const auto& c : held_) c->verify_or_exit();
}

void RoleClaims::release() {
  while (!held_.empty()) {
    held_.back()->release();
    held_.pop_back();
  }
}

}  // namespace ps
