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

// The fields of /proc/PID/stat after the command name (which may hold spaces and ')'): field 3
// (the state) first; "" when the process does not exist.
std::string proc_stat_fields(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return "";
  return text.substr(close + 2);
}

// The start time of process `pid` in clock ticks after boot (/proc/PID/stat field 22), -1 when
// unknown: with the pid it names one process, a reused pid has another start time.
int64_t start_ticks(long pid) {
  std::istringstream rest(proc_stat_fields(pid));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return std::atoll(field.c_str());
  return -1;
}

// Whether /proc says pid is a zombie (state Z): it has exited and holds nothing, but its parent
// has not reaped it yet, so kill(pid, 0) still succeeds. A SIGKILLed role whose parent does not
// wait for it (a shell's background job until the next wait, a container whose PID 1 does not
// reap) stayed "alive" until reaped, and its claim could not be taken over.
bool is_zombie(long pid) {
  const std::string fields = proc_stat_fields(pid);
  return !fields.empty() && (fields[0] == 'Z' || fields[0] == 'X');
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
  const auto not_a_claim = [&](const std::string& why) {
    return std::runtime_error(path + ": not a claim file: " + why +
                              "; remove it if no process of this role runs");
  };
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw not_a_claim(text.empty()
                          ? "it is empty"
                          : "its text is not JSON (the error is at byte " + std::to_string(e.byte) + ")");
  }
  if (!j.is_object()) throw not_a_claim("its JSON is not an object");
  // The key's value, checked by is_type; nullptr for an absent optional key.
  const auto value = [&](const char* key, bool required, bool (json::*is_type)() const noexcept,
                         const char* type) -> const json* {
    const auto it = j.find(key);
    if (it == j.end()) {
      if (required) throw not_a_claim(std::string("it has no \"") + key + "\" key");
      return nullptr;
    }
    if (!((*it).*is_type)()) throw not_a_claim(std::string("its \"") + key + "\" is not " + type);
    return &*it;
  };
  const auto text_of = [&](const char* key, bool required, const std::string& absent) {
    const json* v = value(key, required, &json::is_string, "a string");
    return v ? v->get<std::string>() : absent;
  };
  const auto integer_of = [&](const char* key, bool required, int64_t absent) {
    const json* v = value(key, required, &json::is_number_integer, "an integer");
    return v ? v->get<int64_t>() : absent;
  };
  const json* beat_s = value("heartbeat_s", false, &json::is_number, "a number");
  Holder h;
  h.host = text_of("host", true, "");
  h.boot = text_of("boot_id", false, "");
  h.token = text_of("token", true, "");
  h.since = text_of("since", false, "?");
  h.pid = long(integer_of("pid", true, 0));
  h.start = integer_of("start_ticks", false, -1);
  h.beat = integer_of("heartbeat", true, 0);
  // Our processes write 0.1-3600 s (--heartbeat); a hand-edited value outside is clamped, so
  // neither 0 (a takeover at once) nor 1e308 (never) is believed.
  h.heartbeat_s = std::clamp(beat_s ? beat_s->get<double>() : 30.0, kMinHeartbeatS, kMaxHeartbeatS);
  return h;
}

// Why the process a claim of this host names is known not to run any more (the end of the
// sentence "took over the claim of ..., "); "" when it may still run. What is checked: the boot
// id, whether the pid exists, and the process start time of /proc/PID/stat (a pid reused by a
// new process has another one). A claim without a start time and a pid whose start time cannot
// be read count as running.
std::string holder_gone_here(const Holder& h) {
  // The sentence's start (holder_text) names the pid already: it is not said twice.
  if (!h.boot.empty() && h.boot != boot_id()) return "written before this host restarted (another boot id)";
  if (h.pid == long(::getpid())) return "whose pid is now this process's (a reused pid)";
  if (::kill(pid_t(h.pid), 0) != 0 && errno == ESRCH) return "whose process does not run";
  if (is_zombie(h.pid)) return "whose process has exited (a zombie not yet reaped by its parent)";
  const int64_t now_start = start_ticks(h.pid);
  if (h.start >= 0 && now_start >= 0 && now_start != h.start)
    return "whose pid runs but is another process: it started at another time (a reused pid)";
  return "";
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
  if (identity.rfind("chunks-", 0) == 0)
    return "another `selfplay` or `teacher` writes chunks of this --prefix to this --out directory: stop "
           "it first, or give this one another --out or --prefix";
  return "a run directory has one " + identity + ": stop that process (or the `run` that holds it) first";
}

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

}  // namespace

std::unique_ptr<RoleClaim> claim_chunk_folder(const std::string& out_dir, const std::string& prefix) {
  // No '-': the chunk readers match "<prefix>-<number>", so a prefix "a-1" would be counted as
  // prefix "a"'s chunks (and "" as every "-..." one) by resume counts and numbering.
  bool ok = !prefix.empty();
  for (char c : prefix)
    ok = ok &&
         ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.');
  if (!ok)
    throw std::invalid_argument(
        "--prefix '" + prefix +
        "': one or more ASCII letters, digits, '_' or '.' (no '-': chunk names are <prefix>-<number>)");
  ensure_directory(out_dir, "the data directory");  // named as the folder it is, not as a run's
  return RoleClaim::acquire(out_dir, "chunks-" + prefix);
}

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
  // The run directory first, so that a run directory that cannot be one (a regular file, an
  // unwritable place) is named as such, not as its claims/ subdirectory.
  ensure_directory(run_dir, "the run directory");
  ensure_directory(dir.string(), "the claims directory");
  const std::string path = (dir / (identity + ".claim")).string();
  const std::string token = random_token();
  std::unique_ptr<RoleClaim> claim(new RoleClaim(identity, path, token, now_iso(), options));
  auto held = [&] {  // the heartbeat starts once the claim is held
    claim->held_ = true;
    claim->heart_ = std::thread([c = claim.get()] { c->heartbeat_loop(); });
    return std::move(claim);
  };
  const std::string mine = claim->content(0);
  std::string gone;  // why the owner is known to be dead (the takeover message's end)
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (create_file_exclusive(path, mine)) return held();
    const std::optional<Holder> h = read_holder(path);
    if (!h) continue;  // released meanwhile
    if (h->host == host_name()) {
      gone = holder_gone_here(*h);
      if (gone.empty())
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
      bool released = false;
      while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < stale_s) {
        for (double waited = 0; waited < options.poll_s; waited += 0.05) {
          if (cancel && cancel->load()) return nullptr;
          sleep_s(0.05);
        }
        const std::optional<Holder> now = read_holder(path);
        if (!now) {
          released = true;
          break;
        }
        if (now->token != h->token || now->beat != h->beat)
          throw ClaimTaken(identity + " is held by " + holder_text(*now) + " (" + path +
                           "), whose heartbeat moves: " + advice(identity));
      }
      if (released) continue;
      gone = "whose heartbeat stood still";
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
                  gone.c_str());
      std::fflush(stdout);
      return held();
    }
  }
  throw std::runtime_error(path +
                           ": the claim changed hands 100 times while this process tried to "
                           "take it; are many processes of this role starting at once?");
}

bool is_claim_file_name(const std::string& name) {
  auto ends_with = [&name](const std::string& s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends_with(".claim") || (ends_with(".takeover") && name.find(".claim.") != std::string::npos);
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
