// The commands of apps/ registered on an app of the test's own and parsed as main.cpp parses the
// command line: what a command's options hold belongs to its registration.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "nn/checkpoint.h"

namespace fs = std::filesystem;

namespace {

// A fresh app with the run commands (run, selfplay, train, gatekeeper, export, init-net),
// parsing `args` (the words after the program name).
void parse_run_commands(const std::vector<std::string>& args) {
  CLI::App app{"test"};
  app.require_subcommand(0, 1);
  ps::cmd::register_run_commands(app);
  std::vector<const char*> argv{"papersoccer"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  app.parse(int(argv.size()), argv.data());
}

// Do the checkpoints at a and b hold the same weights?
bool same_weights(const std::string& a, const std::string& b) {
  const auto pa = ps::nn::load_checkpoint(a, "cpu").net->parameters();
  const auto pb = ps::nn::load_checkpoint(b, "cpu").net->parameters();
  if (pa.size() != pb.size()) return false;
  for (size_t i = 0; i < pa.size(); ++i)
    if (!torch::equal(pa[i], pb[i])) return false;
  return true;
}

}  // namespace

TEST_CASE("a second registration of the run commands starts from the defaults, not the last parse") {
  const fs::path dir = fs::temp_directory_path() / ("ps_apps_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string first = (dir / "first.ckpt").string(), second = (dir / "second.ckpt").string();

  // init-net: --note and --seed given once, then left out.
  parse_run_commands({"init-net", first, "--note", "first note", "--seed", "7"});
  parse_run_commands({"init-net", second});
  CHECK(ps::nn::read_checkpoint_meta(first).note == "first note");
  CHECK(ps::nn::read_checkpoint_meta(second).note.empty());
  // The same weights as a third net with the default seed (1), not those of seed 7.
  const std::string third = (dir / "third.ckpt").string();
  parse_run_commands({"init-net", third, "--seed", "1"});
  CHECK(same_weights(second, third));
  CHECK_FALSE(same_weights(second, first));

  // export: --pitch and --variant given once, then left out (the checkpoint records neither).
  const std::string restricted = (dir / "restricted.model").string(), any = (dir / "any.model").string();
  parse_run_commands({"export", first, restricted, "--pitch", "8x10", "--variant", "no-bounce"});
  parse_run_commands({"export", first, any});
  const ps::nn::CheckpointMeta r = ps::nn::read_checkpoint_meta(restricted);
  CHECK(r.pitches == std::vector<std::string>{"8x10"});
  CHECK(r.variants == std::vector<std::string>{"no-bounce"});
  const ps::nn::CheckpointMeta a = ps::nn::read_checkpoint_meta(any);
  CHECK(a.pitches.empty());
  CHECK(a.variants.empty());
  fs::remove_all(dir);
}

TEST_CASE("a folder in the shipped value net's place is an error, not a silent fallback") {
  // Regression: `mkdir -p models/8x10-standard.vnet` in the working directory made
  // bot/ladder/analyse look past it (to the executable's models/ or to no net at all) without a word.
  const fs::path dir = fs::temp_directory_path() / ("ps_apps_models_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "models" / "8x10-standard.vnet");
  const fs::path cwd = fs::current_path();
  fs::current_path(dir);
  const ps::Pitch& pitch = ps::Pitch::standard();
  CHECK_THROWS_WITH(ps::default_model_path(pitch, ps::Variant::kStandard, ".vnet"),
                    "the shipped vnet models/8x10-standard.vnet is not a regular file (a folder or a "
                    "broken link in its place)");
  // A broken link in its place too; a regular file is found.
  fs::remove_all(dir / "models" / "8x10-standard.vnet");
  fs::create_symlink(dir / "nowhere.vnet", dir / "models" / "8x10-standard.vnet");
  CHECK_THROWS(ps::default_model_path(pitch, ps::Variant::kStandard, ".vnet"));
  fs::remove(dir / "models" / "8x10-standard.vnet");
  { std::ofstream(dir / "models" / "8x10-standard.vnet") << "x"; }
  CHECK(ps::default_model_path(pitch, ps::Variant::kStandard, ".vnet") == "models/8x10-standard.vnet");
  fs::current_path(cwd);
  fs::remove_all(dir);
}
