#include "core/fileutil.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace ps {

namespace fs = std::filesystem;

namespace {

// Why `part` (a prefix of the directory being made) cannot be a directory; "" when it is one
// now (existing, or made by this call or by another process meanwhile).
std::string make_one_directory(const std::string& part) {
  struct stat st {};
  if (::stat(part.c_str(), &st) == 0)
    return S_ISDIR(st.st_mode) ? "" : part + " exists and is not a directory";
  if (errno != ENOENT) return "cannot look at " + part + ": " + std::strerror(errno);
  if (::mkdir(part.c_str(), 0777) == 0) return "";
  const int err = errno;
  if (err == EEXIST && ::stat(part.c_str(), &st) == 0)
    return S_ISDIR(st.st_mode) ? "" : part + " exists and is not a directory";
  std::string why = "mkdir " + part + ": " + std::strerror(err);
  const fs::path parent = fs::path(part).parent_path();
  if (err == ENOENT && !parent.empty() && ::stat(parent.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    why += " (" + parent.string() + " exists: its file system refuses new directories)";
  else if (err == EACCES && !parent.empty())
    why += " (" + parent.string() + " is not writable for this user)";
  return why;
}

// The directory a file path lies in; "" for a bare file name (the working directory).
std::string parent_of(const std::string& path) { return fs::path(path).parent_path().string(); }

}  // namespace

void ensure_directory(const std::string& dir, const std::string& what) {
  if (dir.empty()) return;
  // Each prefix ending before a '/' (and the whole path), shortest first: "a", "a/b", "a/b/c".
  for (size_t end = dir.find('/', 1);; end = dir.find('/', end + 1)) {
    const std::string part = dir.substr(0, end);
    if (!part.empty() && part.back() != '/') {
      const std::string why = make_one_directory(part);
      if (!why.empty()) throw std::runtime_error("cannot create " + what + " " + dir + ": " + why);
    }
    if (end == std::string::npos) break;
  }
}

void write_file_atomic(const std::string& path, const std::string& data) {
  ensure_directory(parent_of(path), "the directory of " + path + ",");
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error(tmp + ": cannot create: " + std::strerror(errno));
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error(tmp + ": write failed: " + std::strerror(e));
    }
    done += size_t(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": rename failed: " + std::strerror(e));
  }
}

std::string read_file(const std::string& path, int64_t max_bytes) {
  // An ifstream opens a directory on Linux and reads nothing from it: a directory given for a
  // file read as an empty file ("truncated") until this check.
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(st)) throw std::runtime_error(path + ": is a directory, not a file");
  if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
    throw std::runtime_error(path + ": is not a regular file (a FIFO, a device or a socket)");
  if (max_bytes >= 0) {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > uint64_t(max_bytes))
      throw std::runtime_error(path + ": " + std::to_string(size) + " bytes, more than the " +
                               std::to_string(max_bytes) + " such a file can hold");
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open");
  std::stringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw std::runtime_error(path + ": read failed");
  return ss.str();
}

void append_line(const std::string& path, const std::string& line) {
  ensure_directory(parent_of(path), "the directory of " + path + ",");
  std::ofstream f(path, std::ios::app);
  if (!f) throw std::runtime_error(path + ": cannot open for appending");
  f << line << '\n';
  f.flush();
  if (!f) throw std::runtime_error(path + ": write failed");
}

namespace {

thread_local uint64_t tree_removed = 0;
thread_local std::string tree_error;

int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
  if (::remove(path) != 0) {
    tree_error = std::string(path) + ": " + std::strerror(errno);
    return 1;  // stops the walk
  }
  ++tree_removed;
  return 0;
}

}  // namespace

uint64_t remove_tree(const std::string& path) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return 0;
    throw std::runtime_error("cannot remove " + path + ": " + std::strerror(errno));
  }
  tree_removed = 0;
  tree_error.clear();
  // Depth first (children before their directory), physical (links are not followed).
  const int rc = ::nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (rc != 0)
    throw std::runtime_error("cannot remove " +
                             (tree_error.empty() ? path + ": " + std::strerror(errno) : tree_error));
  return tree_removed;
}

namespace {
// nftw's callback takes no context: the sweep's state, guarded by g_stale_mutex.
std::mutex g_stale_mutex;
uint64_t g_stale_removed = 0;
const std::function<bool(const std::string&)>* g_stale_select = nullptr;
int remove_if_stale_temp(const char* path, const struct stat*, int type, struct FTW* ftw) {
  if (type != FTW_F) return 0;
  const std::string name(path + ftw->base);
  const size_t at = name.rfind(".tmp.");
  if (at == std::string::npos || at + 5 >= name.size()) return 0;
  for (size_t i = at + 5; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return 0;
  if (*g_stale_select && !(*g_stale_select)(name.substr(0, at))) return 0;
  if (::unlink(path) == 0) ++g_stale_removed;
  return 0;
}
}  // namespace

uint64_t remove_stale_temp_files(const std::string& dir,
                                 const std::function<bool(const std::string& name)>& select) {
  const std::lock_guard<std::mutex> lock(g_stale_mutex);
  g_stale_removed = 0;
  g_stale_select = &select;
  ::nftw(dir.c_str(), remove_if_stale_temp, 16, FTW_PHYS);
  g_stale_select = nullptr;
  return g_stale_removed;
}

std::vector<std::string> repository_file_candidates(const std::string& path, const std::string& root) {
  std::vector<std::string> out = {path};
  if (fs::path(path).is_absolute()) return out;
  auto add = [&out](const fs::path& p) {  // each place once (build/.. is often the source tree)
    const std::string s = p.lexically_normal().string();
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    const fs::path dir = fs::path(exe).parent_path();
    add(dir.parent_path() / path);
    add(dir / path);
  }
  if (!root.empty()) add(fs::path(root) / path);
  return out;
}

std::string find_repository_file(const std::string& path, const std::string& root) {
  std::string looked;
  std::error_code ec;
  for (const std::string& p : repository_file_candidates(path, root)) {
    if (fs::exists(p, ec)) return p;
    looked += (looked.empty() ? "" : ", ") + p;
  }
  throw std::invalid_argument("no such file or folder " + path + " (looked for " + looked + ")");
}

}  // namespace ps
