// The main job: shipped configs parse, and a tiny loop runs end to end and resumes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/progress.h"
#include "core/fileutil.h"
#include "loop/run.h"
#include "nn/checkpoint.h"

using namespace ps;
namespace fs = std::filesystem;

TEST_CASE("every shipped run config parses; the built-in quickstart is configs/quickstart.yaml") {
  for (const char* name : {"quickstart.yaml", "standard-8x10.yaml", "long-8x12.yaml",
                           "single-bounce-8x10.yaml"}) {
    INFO(name);
    RunConfig c = load_run_config(std::string(PS_CONFIGS_DIR) + "/" + name);
    CHECK(c.generations >= 1);
    CHECK(!c.selfplay.pitches.empty());
  }
  CHECK(quickstart_config_text() == read_file(std::string(PS_CONFIGS_DIR) + "/quickstart.yaml"));
  RunConfig q = parse_run_config(quickstart_config_text(), "quickstart");
  CHECK(q.dir == "runs/quickstart");
  CHECK(q.selfplay.pitches[0].length == 10);
  RunConfig l = load_run_config(std::string(PS_CONFIGS_DIR) + "/long-8x12.yaml");
  CHECK(l.length == 12);
  CHECK(l.selfplay.pitches[0].length == 12);
}

TEST_CASE("run config errors name the key") {
  CHECK_THROWS_WITH(parse_run_config("run: {generations: 0}\n", "r.yaml"),
                    Catch::Contains("run.generations"));
  CHECK_THROWS_WITH(parse_run_config("evaluate: {games: 3}\n", "r.yaml"),
                    Catch::Contains("evaluate.games"));
  CHECK_THROWS_WITH(parse_run_config("selfplay: {visits: -1}\n", "r.yaml"),
                    Catch::Contains("visits"));
  CHECK_THROWS_WITH(parse_run_config("trainn: {}\n", "r.yaml"),
                    Catch::Contains("trainn") && Catch::Contains("unknown key"));
  CHECK_THROWS_WITH(load_run_config("/nonexistent/x.yaml"), Catch::Contains("cannot open"));
  // Regressions: these were accepted and failed (or did nothing) only after the run directory
  // and its state were written.
  CHECK_THROWS_WITH(parse_run_config("selfplay: {games: 0}\n", "r.yaml"),
                    Catch::Contains("r.yaml: selfplay.games must be >= 1"));
  CHECK_THROWS_WITH(parse_run_config("train: {steps: 0}\n", "r.yaml"),
                    Catch::Contains("r.yaml: train.steps must be >= 1"));
  CHECK_THROWS_WITH(parse_run_config("service: {device: tpu}\n", "r.yaml"),
                    Catch::Contains("r.yaml: service.device: 'tpu' is not a device"));
  CHECK_THROWS_WITH(parse_run_config("train: {device: 'cuda:x'}\n", "r.yaml"),
                    Catch::Contains("train.device"));
  CHECK(parse_run_config("service: {device: 'cuda:1'}\n", "r.yaml").service.device == "cuda:1");
  // Regression: a repeated key was silently ignored (yaml-cpp keeps both, lookups see the first).
  CHECK_THROWS_WITH(parse_run_config("run: {generations: 1}\nrun: {generations: 2}\n", "r.yaml"),
                    Catch::Contains("r.yaml: run (line 2): duplicate key"));
  CHECK_THROWS_WITH(parse_run_config("train: {steps: 5, steps: 6}\n", "r.yaml"),
                    Catch::Contains("train.steps") && Catch::Contains("duplicate key"));
}

TEST_CASE("Wilson interval") {
  auto [lo, hi] = wilson_interval(15, 20);
  CHECK(lo == Approx(0.531).epsilon(0.01));
  CHECK(hi == Approx(0.888).epsilon(0.01));
  auto [l0, h0] = wilson_interval(0, 10);
  CHECK(l0 == 0.0);
  CHECK(h0 < 0.31);
}

TEST_CASE("a tiny loop runs end to end and a second call resumes without redoing work") {
  const fs::path dir = fs::temp_directory_path() / ("ps_loop_" + std::to_string(::getpid()));
  ps::remove_tree(fs::path(dir).string());
  const std::string yaml =
      "run: {name: tiny, generations: 2, pitch: 6x8, dir: " + dir.string() + "}\n"
      "service: {max_batch: 8, batch_timeout_us: 200}\n"
      "selfplay: {games: 4, concurrent_games: 4, visits: 8, cheap_visits: 4, games_per_chunk: 2}\n"
      "train: {net: {preset: tiny}, threads: 1, batch_size: 16, steps: 10, checkpoint_interval: 5, "
      "log_interval: 5}\n"
      "evaluate: {games: 2, final_games: 2, visits: 4, openings: 1, opening_turns: 1, "
      "concurrency: 2}\n";
  RunConfig cfg = parse_run_config(yaml, "tiny.yaml");
  // Stop after generation 1 (as an interrupted run would), then resume to the end.
  RunConfig first = cfg;
  first.generations = 1;
  run_training_loop(first);
  CHECK(fs::exists(dir / "checkpoints" / "gen-0001.ckpt"));
  CHECK_FALSE(fs::exists(dir / "checkpoints" / "gen-0002.ckpt"));
  const auto mtime = fs::last_write_time(dir / "checkpoints" / "gen-0001.ckpt");
  run_training_loop(cfg);
  CHECK(fs::last_write_time(dir / "checkpoints" / "gen-0001.ckpt") == mtime);  // not redone
  CHECK(fs::exists(dir / "checkpoints" / "gen-0002.ckpt"));
  auto state = nlohmann::json::parse(read_file((dir / "state.json").string()));
  CHECK(state["generation"] == 2);
  CHECK(state["phase"] == "finished");
  // 4 opponents in generation 2 (previous, generation 0, random, greedy) x 2 games.
  auto outcomes = nlohmann::json::parse(read_file((dir / "eval" / "gen-0002" / "outcomes.json").string()));
  CHECK(outcomes["games"].size() == 8);
  auto ratings = nlohmann::json::parse(read_file((dir / "ratings.json").string()));
  CHECK(ratings["anchor"] == "random");
  CHECK(ratings["players"].size() == 5);  // random, greedy, gen-0000, gen-0001, gen-0002
  CHECK(fs::exists(dir / "report.html"));
  nn::CheckpointMeta meta = nn::read_checkpoint_meta((dir / "best.model").string());
  CHECK(meta.pitches == std::vector<std::string>{"6x8"});
  CHECK(std::isfinite(meta.rating_elo));
  CHECK(fs::exists(dir / "data" / "gen0001-000000.psd"));
  ps::remove_tree(fs::path(dir).string());
}

TEST_CASE("durations for progress lines, huge ones included") {
  CHECK(ps::format_duration(42.4) == "42 s");
  CHECK(ps::format_duration(125) == "2 min 05 s");
  CHECK(ps::format_duration(7322) == "2 h 02 min");
  // Regression: an ETA for 99999999999 games printed "245146770 h -8 min" (int overflow).
  CHECK(ps::format_duration(882526000000.0) == "245146111 h 06 min");
  CHECK(ps::format_duration(1e300) == "more than 10^9 h");
  CHECK(ps::format_duration(-5) == "0 s");
}
