// core/fileutil.h's ensure_directory and core/plural.h's counted: the exact inputs once
// mishandled (an unwritable --out, a file in the place of RUNDIR/claims, "1 games stored").
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>

#include "core/fileutil.h"
#include "core/plural.h"

using namespace ps;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  std::string path;
  explicit TempDir(const std::string& tag)
      : path((fs::temp_directory_path() / ("ps_core_" + tag + "_" + std::to_string(::getpid()))).string()) {
    remove_tree(path);
  }
  ~TempDir() { remove_tree(path); }
};

}  // namespace

TEST_CASE("ensure_directory makes missing parents and accepts an existing directory") {
  TempDir dir("ensure");
  const std::string deep = dir.path + "/a/b/c";
  ensure_directory(deep, "the run directory");
  CHECK(fs::is_directory(deep));
  CHECK_NOTHROW(ensure_directory(deep, "the run directory"));
  CHECK_NOTHROW(ensure_directory(deep + "/", "the run directory"));
  CHECK_NOTHROW(ensure_directory("", "the run directory"));  // the working directory
}

TEST_CASE("ensure_directory names what could not be created and why") {
  TempDir dir("refused");
  ensure_directory(dir.path, "a test directory");
  // A regular file in the place of RUNDIR/claims, and as a part of a longer path.
  write_file_atomic(dir.path + "/claims", "x");
  CHECK_THROWS_WITH(ensure_directory(dir.path + "/claims", "the claims directory"),
                    "cannot create the claims directory " + dir.path + "/claims: " + dir.path +
                        "/claims exists and is not a directory");
  CHECK_THROWS_WITH(ensure_directory(dir.path + "/claims/x/y", "the output directory"),
                    Catch::EndsWith(dir.path + "/claims exists and is not a directory"));
  // `teacher ... --out /proc/x`: /proc takes no new directories (mkdir says ENOENT there).
  CHECK_THROWS_WITH(ensure_directory("/proc/x", "the data directory"),
                    "cannot create the data directory /proc/x: mkdir /proc/x: No such file or directory "
                    "(/proc exists: its file system refuses new directories)");
  // A file written below a regular file names the file and the directory.
  CHECK_THROWS_WITH(write_file_atomic(dir.path + "/claims/state.json", "{}"),
                    Catch::StartsWith("cannot create the directory of " + dir.path + "/claims/state.json, " +
                                      dir.path + "/claims: "));
  CHECK_THROWS_WITH(append_line(dir.path + "/claims/log.jsonl", "{}"),
                    Catch::Contains("claims exists and is not a directory"));
}

TEST_CASE("counted: singular for one, plural otherwise") {
  CHECK(counted(1, "game") == "1 game");
  CHECK(counted(0, "game") == "0 games");
  CHECK(counted(12, "game") == "12 games");
  CHECK(counted(-1, "step") == "-1 step");
  CHECK(counted(2, "search", "searches") == "2 searches");
  CHECK(counted(1, "search", "searches") == "1 search");
  CHECK(counted(1, "new sample") == "1 new sample");
}

// read_file reads regular files only, and at most max_bytes of them (a FIFO
// given as a value net blocked the reader; /dev/zero grew it past 2 GB).
TEST_CASE("read_file refuses special files and files over its bound") {
  CHECK_THROWS_WITH(read_file("/dev/zero"), Catch::Contains("/dev/zero: is not a regular file"));
  CHECK_THROWS_WITH(read_file("/"), Catch::Contains("is a directory"));
  const fs::path dir = fs::temp_directory_path() / ("ps-read-file-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string f = (dir / "ten").string();
  write_file_atomic(f, "0123456789");
  CHECK(read_file(f) == "0123456789");
  CHECK(read_file(f, 10) == "0123456789");
  CHECK_THROWS_WITH(read_file(f, 9), Catch::Contains("10 bytes, more than the 9"));
  fs::remove_all(dir);
}

TEST_CASE("repository_file_candidates names each place once") {
  // Regression: with the source tree as root and the executable in build/, "looked for" listed
  // SRC/models/x twice (as build/../models/x and as root/models/x).
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe").parent_path();
  const std::string root = (exe_dir / "..").string();
  const std::vector<std::string> c = repository_file_candidates("models/no-such", root);
  REQUIRE(c.size() == 3);
  CHECK(c[0] == "models/no-such");
  CHECK(c[1] == (exe_dir.parent_path() / "models/no-such").string());
  CHECK(c[2] == (exe_dir / "models/no-such").string());
  CHECK_THROWS_WITH(
      find_repository_file("models/no-such", root),
      "no such file or folder models/no-such (looked for " + c[0] + ", " + c[1] + ", " + c[2] + ")");
  CHECK(repository_file_candidates("/abs/x", root) == std::vector<std::string>{"/abs/x"});
}
