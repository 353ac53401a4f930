// The roles of a shared run directory (loop/roles.h): the trainer's data rule, worker ids, the
// shared config. The roles as processes: tests/scaling/roles_processes.sh.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "core/fileutil.h"
#include "loop/roles.h"
#include "loop/run_dir.h"

using namespace ps;
namespace fs = std::filesystem;

TEST_CASE("the trainer trains at most rows_per_sample rows per self-play row, else waits") {
  RunConfig cfg = parse_run_config(
      "train: {batch_size: 16, steps: 30, rows_per_sample: 4}\nselfplay: {games: 6}\n", "r.yaml");
  // Generation g needs 4 * samples >= g * 30 * 16, i.e. 120 samples per generation.
  CHECK_FALSE(trainer_ready(cfg, 1, 100, 119));
  CHECK(trainer_ready(cfg, 1, 1, 120));
  CHECK_FALSE(trainer_ready(cfg, 2, 100, 239));
  CHECK(trainer_ready(cfg, 2, 1, 240));
  // Without a ratio: `run`'s cadence, selfplay.games new games per generation.
  cfg.train.rows_per_sample = 0;
  CHECK_FALSE(trainer_ready(cfg, 2, 11, 100000));
  CHECK(trainer_ready(cfg, 2, 12, 0));
}

TEST_CASE("worker ids that name chunks: letters, digits, '_' and '.'") {
  CHECK_NOTHROW(check_worker_id("w1"));
  CHECK_NOTHROW(check_worker_id("node_7.gpu"));
  CHECK_THROWS_WITH(check_worker_id("w-1"), Catch::Contains("worker id 'w-1'"));
  CHECK_THROWS(check_worker_id(""));
  CHECK_THROWS(check_worker_id("a/b"));
  // Regression: "." and ".." were accepted.
  CHECK_THROWS_WITH(check_worker_id("."), Catch::Contains("not starting with '.'"));
  CHECK_THROWS(check_worker_id(".."));
  CHECK_THROWS(check_worker_id(".hidden"));
  CHECK_NOTHROW(check_worker_id("a.."));
  CHECK_THROWS(check_worker_id(std::string(65, 'a')));
  CHECK_NOTHROW(check_worker_id(default_worker_id()));
}

TEST_CASE("roles share the run directory's config, a different one is refused") {
  const fs::path dir = fs::temp_directory_path() / ("ps_roles_" + std::to_string(::getpid()));
  remove_tree(dir.string());
  const std::string a = (dir.string() + ".a.yaml"), b = (dir.string() + ".b.yaml");
  write_file_atomic(a, "run: {name: r, generations: 3, pitch: 6x8}\n");
  write_file_atomic(b, "run: {name: r, generations: 4, pitch: 6x8}\n");
  // The hint names how each role takes the config: selfplay and train as their CONFIG argument
  // (it said `--config`, which they do not have).
  CHECK_THROWS_WITH(load_shared_run_config(dir.string(), "", 0),
                    Catch::Contains("`selfplay CONFIG --follow RUNDIR`") &&
                        Catch::Contains("`train CONFIG --follow RUNDIR`") &&
                        Catch::Contains("`gatekeeper RUNDIR --config CONFIG`"));
  RunConfig c = *load_shared_run_config(dir.string(), a, 0);
  CHECK(c.dir == dir.string());
  CHECK(c.generations == 3);
  CHECK(read_file((dir / "config.yaml").string()) == read_file(a));
  CHECK(load_shared_run_config(dir.string(), "", 5)->generations == 5);  // --generations
  CHECK(load_shared_run_config(dir.string(), a, 0)->generations == 3);   // the same file again
  CHECK_THROWS_WITH(load_shared_run_config(dir.string(), b, 0),
                    Catch::Contains(b) && Catch::Contains("config.yaml") &&
                        Catch::Contains("at run.generations (3 there, 4 here)") &&
                        Catch::Contains("no CONFIG argument"));
  // Regression: the same config with another comment (and layout) was refused as text.
  const std::string commented = dir.string() + ".c.yaml";
  write_file_atomic(commented, "# my run\nrun:\n  name: r   # the name\n  generations: 3\n  pitch: 6x8\n");
  CHECK(load_shared_run_config(dir.string(), commented, 0)->generations == 3);
  // A pitch change is named too.
  write_file_atomic(b, "run: {name: r, generations: 3, pitch: 8x10}\n");
  CHECK_THROWS_WITH(load_shared_run_config(dir.string(), b, 0), Catch::Contains("run.pitch"));
  remove_tree(dir.string());
  for (const std::string& f : {a, b, commented}) fs::remove(f);
}

TEST_CASE("a role started before the run directory has its config waits for it") {
  const fs::path dir = fs::temp_directory_path() / ("ps_roles_wait_" + std::to_string(::getpid()));
  remove_tree(dir.string());
  // Started together with the first gatekeeper, a follower exited at once: now it waits.
  std::thread first([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    write_file_atomic((dir / "config.yaml").string(), "run: {name: r, generations: 2, pitch: 6x8}\n");
  });
  const auto t0 = std::chrono::steady_clock::now();
  const std::optional<RunConfig> c = load_shared_run_config(dir.string(), "", 0, 0.1);
  first.join();
  REQUIRE(c);
  CHECK(c->generations == 2);
  CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(400));
  // A stop request ends the wait without a config.
  remove_tree(dir.string());
  std::atomic<bool> cancel{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  CHECK_FALSE(load_shared_run_config(dir.string(), "", 0, 0.1, &cancel));
  stopper.join();
  remove_tree(dir.string());
}

TEST_CASE("state.json: absent reads as generation 0 with best gen-0000, written atomically") {
  const fs::path dir = fs::temp_directory_path() / ("ps_state_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "state.json").string();
  RunState s = read_run_state(path);
  CHECK(s.generation == 0);
  CHECK(s.best == "gen-0000");
  s.generation = 3;
  s.best = "gen-0002";
  write_run_state(s, path, "waiting for gen-0004");
  const RunState t = read_run_state(path);
  CHECK(t.generation == 3);
  CHECK(t.best == "gen-0002");
  CHECK(t.phase == "waiting for gen-0004");
  remove_tree(dir.string());
}

namespace {

// A tiny run for the worker tests: generation 1 needs 30 x 16 / 4 = 120 samples.
RunConfig tiny_worker_run(const std::string& dir) {
  RunConfig cfg = parse_run_config(
      "run: {name: tiny, generations: 2, pitch: 6x8}\n"
      "service: {max_batch: 8, batch_timeout_us: 0, workers: 1, torch_threads: 1}\n"
      "selfplay: {games: 6, concurrent_games: 4, visits: 4, cheap_visits: 2, games_per_chunk: 2}\n"
      "train: {net: {preset: tiny}, batch_size: 16, steps: 30, rows_per_sample: 4}\n",
      "tiny.yaml");
  cfg.dir = dir;
  return cfg;
}

// Games and samples in a run directory's data chunks.
std::pair<int64_t, int64_t> stored_data(const std::string& dir) {
  int64_t games = 0, samples = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir + "/data", ec)) {
    if (e.path().extension() != ".psd") continue;
    for (const GameData& g : read_chunk(e.path().string())) {
      games += 1;
      samples += int64_t(g.samples.size());
    }
  }
  return {games, samples};
}

}  // namespace

TEST_CASE("a worker's --max-games N stores exactly N games, with more games in flight") {
  const std::string dir =
      (fs::temp_directory_path() / ("ps_maxgames_" + std::to_string(::getpid()))).string();
  remove_tree(dir);
  const RunConfig cfg = tiny_worker_run(dir);
  RoleOptions o;
  o.max_games = 3;  // 4 games in flight: it stored 3 + the 3 others in flight
  o.poll_seconds = 0.1;
  run_selfplay_worker(cfg, "w", nullptr, o);
  CHECK(stored_data(dir).first == 3);
  // A killed predecessor's chunk temporary is its own to clear (`run` leaves it), another
  // worker's is not.
  const std::string own = dir + "/data/gen0000-w-000009.psd.tmp.4242";
  const std::string other = dir + "/data/gen0000-w2-000000.psd.tmp.4243";
  for (const std::string& f : {own, other}) write_file_atomic(f, "partial");
  run_selfplay_worker(cfg, "w", nullptr, o);  // again: its sequence goes on
  CHECK(stored_data(dir).first == 6);
  CHECK_FALSE(fs::exists(own));
  CHECK(fs::exists(other));
  CHECK_FALSE(fs::exists(dir + "/claims/worker-w.claim"));  // released at the end
  remove_tree(dir);
}

TEST_CASE("a worker without a trainer waits at max_ahead generations' worth of its own data") {
  const std::string dir = (fs::temp_directory_path() / ("ps_ahead_" + std::to_string(::getpid()))).string();
  remove_tree(dir);
  const RunConfig cfg = tiny_worker_run(dir);
  RoleOptions o;
  o.max_ahead = 1;  // waits from 1 x (0 trained + 1) generation's worth: 120 samples
  o.poll_seconds = 0.1;
  std::atomic<bool> cancel{false};
  std::thread worker([&] { run_selfplay_worker(cfg, "w", &cancel, o); });
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::seconds(120);
  while (stored_data(dir).second < 120 && clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // its games in flight end
  const auto [games1, samples1] = stored_data(dir);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const int64_t games2 = stored_data(dir).first;
  CHECK(samples1 >= 120);
  CHECK(games2 == games1);  // waiting: no new game
  // The trainer trains generation 1: the worker may store up to 1 x (1 + 1) generations' worth.
  fs::copy_file(dir + "/checkpoints/gen-0000.ckpt", dir + "/checkpoints/gen-0001.ckpt");
  while (stored_data(dir).first == games2 && clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(stored_data(dir).first > games2);
  cancel = true;
  worker.join();
  remove_tree(dir);
}

// Regression (tests/scaling/roles_processes.sh): the trainer killed after writing
// generation 2's checkpoint and before exporting its model; restarted, it counted generation 2
// as trained from the checkpoint alone, and models/gen-0002.model never appeared (only its
// temporary). A restarted trainer exports a model missing beside its checkpoint.
TEST_CASE("a restarted trainer exports the model of a checkpoint it was stopped before exporting") {
  const std::string dir = (fs::temp_directory_path() / ("ps_export_" + std::to_string(::getpid()))).string();
  remove_tree(dir);
  RunConfig cfg = tiny_worker_run(dir);
  cfg.generations = 1;
  RoleOptions o;
  o.max_games = 1;
  o.poll_seconds = 0.1;
  run_selfplay_worker(cfg, "w", nullptr, o);  // makes the run directory and generation 0
  fs::copy_file(dir + "/checkpoints/gen-0000.ckpt", dir + "/checkpoints/gen-0001.ckpt");
  write_file_atomic(dir + "/models/gen-0001.model.tmp.12694", "partial");  // the killed export's
  REQUIRE_FALSE(fs::exists(dir + "/models/gen-0001.model"));
  run_trainer(cfg, nullptr, o);
  CHECK(fs::exists(dir + "/models/gen-0001.model"));
  CHECK(fs::file_size(dir + "/models/gen-0001.model") > 1000);
  remove_tree(dir);
}
