#include "tournament/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace ps::tour {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

bool is_executable_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::string find_executable(const std::string& program) {
  if (program.empty()) return "";
  if (program.find('/') != std::string::npos) return is_executable_file(program) ? program : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + program;
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

ChildProcess::~ChildProcess() { kill(0); }

void ChildProcess::start(const std::vector<std::string>& argv, const std::string& working_dir,
                         const std::string& stderr_path) {
  if (started()) throw std::logic_error("ChildProcess::start: already started");
  if (argv.empty() || argv[0].empty()) throw std::runtime_error("engine command is empty");
  command_ = argv[0];
  std::string exe = argv[0];
  if (exe.find('/') != std::string::npos && exe[0] != '/' && !working_dir.empty()) {
    // A relative path with a directory part is taken relative to our cwd, not working_dir.
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd)) exe = std::string(cwd) + "/" + exe;
  }
  const std::string resolved = find_executable(exe);
  if (resolved.empty())
    throw std::runtime_error("engine command '" + argv[0] +
                             "': no such executable file (not found, or not executable)");
  if (!working_dir.empty()) {
    struct stat st;
    if (::stat(working_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw std::runtime_error("engine '" + argv[0] + "': working_dir '" + working_dir +
                               "' is not a directory");
  }

  // O_CLOEXEC on every pipe end: engines started concurrently by other threads must not inherit
  // them (or this child would never see EOF on its stdin).
  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("engine '" + argv[0] + "': pipe: " + errno_text(errno));
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    const int e = errno;
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    throw std::runtime_error("engine '" + argv[0] + "': pipe: " + errno_text(e));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  if (stderr_path != "-")
    posix_spawn_file_actions_addopen(&fa, 2, stderr_path.empty() ? "/dev/null" : stderr_path.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (!working_dir.empty()) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
    posix_spawn_file_actions_addchdir_np(&fa, working_dir.c_str());
#else
#error "posix_spawn_file_actions_addchdir_np is needed for working_dir"
#endif
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group: kill() reaches helpers the engine starts (e.g. a shell script's children).
  // Default signal handling and an empty mask in the child, whatever this process changed.
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, resolved.c_str(), &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  if (rc != 0) {
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    throw std::runtime_error("engine '" + argv[0] + "': cannot start: " + errno_text(rc));
  }
  pid_ = pid;
  reaped_ = false;
  in_fd_ = in_pipe[1];
  out_fd_ = out_pipe[0];
  buffer_.clear();
}

bool ChildProcess::write(const std::string& data) {
  if (in_fd_ < 0) return false;
  // Block SIGPIPE in this thread while writing, then discard one that the write raised, so a
  // dead engine cannot kill the whole program.
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  size_t done = 0;
  bool ok = true;
  while (done < data.size()) {
    const ssize_t n = ::write(in_fd_, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      ok = false;
      break;
    }
    done += size_t(n);
  }
  if (!ok && errno == EPIPE) {
    const timespec zero{0, 0};
    sigtimedwait(&pipe_set, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

ChildProcess::ReadStatus ChildProcess::read_line(Clock::time_point deadline, std::string* line,
                                                 size_t max_line_bytes) {
  for (;;) {
    const size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      *line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return ReadStatus::kLine;
    }
    if (buffer_.size() > max_line_bytes) {
      *line = buffer_.substr(0, 80);
      return ReadStatus::kTooLong;
    }
    if (out_fd_ < 0) {
      *line = buffer_;
      return ReadStatus::kEof;
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      *line = buffer_;
      return ReadStatus::kTimeout;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    pollfd p{out_fd_, POLLIN, 0};
    const int r = ::poll(&p, 1, int(std::min<long long>(left + 1, 1 << 30)));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("poll on engine output: " + errno_text(errno));
    }
    if (r == 0) continue;  // re-check the deadline
    char buf[4096];
    const ssize_t n = ::read(out_fd_, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      close_fd(out_fd_);
      continue;
    }
    if (n == 0) {
      close_fd(out_fd_);
      continue;
    }
    buffer_.append(buf, size_t(n));
  }
}

void ChildProcess::close_stdin() { close_fd(in_fd_); }

void ChildProcess::reap(bool block) {
  if (pid_ <= 0 || reaped_) return;
  for (;;) {
    int st = 0;
    const pid_t r = ::waitpid(pid_, &st, block ? 0 : WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      status_ = st;
      return;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) reaped_ = true;  // not our child any more (ECHILD): nothing left to reap
    return;
  }
}

bool ChildProcess::exited() {
  reap(false);
  return pid_ > 0 && reaped_;
}

std::string ChildProcess::kill(int grace_ms) {
  if (pid_ <= 0) return "not started";
  close_stdin();
  if (!reaped_) {
    // Wait for a voluntary exit without reaping (WNOWAIT): the zombie keeps the pid and the
    // process group id reserved, so the group kill below cannot hit a recycled id.
    const auto until = Clock::now() + std::chrono::milliseconds(std::max(0, grace_ms));
    for (;;) {
      siginfo_t info{};
      const int r = ::waitid(P_PID, id_t(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
      if (r == 0 && info.si_pid == pid_) break;  // exited, not yet reaped
      if (r < 0 && errno != EINTR) break;
      if (Clock::now() >= until) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    // The group may hold helpers even when the leader has exited.
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    reap(true);
  }
  close_fd(out_fd_);
  return exit_description();
}

std::string ChildProcess::exit_description() const {
  if (pid_ <= 0) return "not started";
  if (!reaped_) return "running";
  if (WIFEXITED(status_)) return "exit status " + std::to_string(WEXITSTATUS(status_));
  if (WIFSIGNALED(status_)) {
    const int sig = WTERMSIG(status_);
    const char* name = strsignal(sig);
    return "killed by signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : "");
  }
  return "status " + std::to_string(status_);
}

}  // namespace ps::tour
