#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/commands.h"

namespace ps::cmd {

std::optional<LeafEvalSpec> endgame_eval_or_shipped(const std::string& given, const Pitch& pitch,
                                                    Variant variant) {
  if (!given.empty()) return leaf_eval_from_name(given);
  const std::string shipped = default_model_path(pitch, variant, ".vnet");
  if (shipped.empty()) return std::nullopt;
  return leaf_eval_from_name(shipped);
}

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
  for (const fs::path& p : candidates) {
    if (fs::is_regular_file(p, ec)) return p.string();
    // Something else in a shipped file's place (a folder, a dangling link) would otherwise fall
    // through to the next candidate or to no model at all without a word.
    if (fs::exists(fs::symlink_status(p, ec)))
      throw std::runtime_error("the shipped " + extension.substr(1) + " " + p.string() +
                               " is not a regular file (a folder or a broken link in its place)");
  }
  return "";
}

void check_model_rules(const std::string& who, const std::string& model,
                       const std::vector<std::string>& pitches, const std::vector<std::string>& variants,
                       const std::string& pitch, const std::string& variant) {
  auto listed = [](const std::vector<std::string>& v, const std::string& x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
  };
  auto first = [](const std::vector<std::string>& v) { return v[0] + (v.size() > 1 ? ", ..." : ""); };
  if (!listed(pitches, pitch))
    throw std::invalid_argument(who + ": " + model + " is not trained for pitch " + pitch +
                                " (its pitches: " + first(pitches) + ")");
  if (!listed(variants, variant))
    throw std::invalid_argument(who + ": " + model + " is not trained for variant " + variant +
                                " (its variants: " + first(variants) + ")");
}

}  // namespace ps::cmd
