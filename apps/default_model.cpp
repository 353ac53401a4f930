#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "apps/commands.h"

namespace ps::cmd {

std::string default_model_path(const Pitch& pitch, Variant variant, const std::string& extension) {
  namespace fs = std::filesystem;
  const std::string name = "models/" + pitch.name() + "-" + variant_name(variant) + extension;
  std::vector<fs::path> candidates = {fs::path(name)};
  // The executable is build/papersoccer (or a copy elsewhere): try its folder's parent too, so
  // the shipped model is found from any working directory.
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    const fs::path dir = fs::path(exe).parent_path();
    candidates.push_back(dir.parent_path() / name);
    candidates.push_back(dir / name);
  }
  std::error_code ec;
  for (const fs::path& p : candidates)
    if (fs::is_regular_file(p, ec)) return p.string();
  return "";
}

}  // namespace ps::cmd
