// A fresh empty directory for one test, removed with everything in it at the end.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/fileutil.h"

namespace ps::test {

/// <system temp dir>/ps_<tag>_<pid>_<n>, created empty; removed by the destructor (errors there
/// are swallowed: a leftover temp dir is harmless).
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag) {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("ps_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    ps::remove_tree(path.string());
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    try {
      ps::remove_tree(path.string());
    } catch (...) {}
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace ps::test
