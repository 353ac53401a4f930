// The roles of a shared run directory (loop/roles.h): the trainer's data rule, worker ids, the
// shared config. The roles as processes: tests/scaling/roles_processes.sh.
#include <catch2/catch.hpp>

#include <filesystem>
#include <unistd.h>

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
  CHECK_THROWS(check_worker_id(std::string(65, 'a')));
  CHECK_NOTHROW(check_worker_id(default_worker_id()));
}

TEST_CASE("roles share the run directory's config; a different one is refused") {
  const fs::path dir = fs::temp_directory_path() / ("ps_roles_" + std::to_string(::getpid()));
  remove_tree(dir.string());
  const std::string a = (dir.string() + ".a.yaml"), b = (dir.string() + ".b.yaml");
  write_file_atomic(a, "run: {name: r, generations: 3, pitch: 6x8}\n");
  write_file_atomic(b, "run: {name: r, generations: 4, pitch: 6x8}\n");
  CHECK_THROWS_WITH(load_shared_run_config(dir.string(), "", 0), Catch::Contains("needs --config"));
  RunConfig c = load_shared_run_config(dir.string(), a, 0);
  CHECK(c.dir == dir.string());
  CHECK(c.generations == 3);
  CHECK(read_file((dir / "config.yaml").string()) == read_file(a));
  CHECK(load_shared_run_config(dir.string(), "", 5).generations == 5);  // --generations
  CHECK(load_shared_run_config(dir.string(), a, 0).generations == 3);   // the same file again
  CHECK_THROWS_WITH(load_shared_run_config(dir.string(), b, 0),
                    Catch::Contains(b) && Catch::Contains("config.yaml"));
  remove_tree(dir.string());
  fs::remove(a);
  fs::remove(b);
}

TEST_CASE("state.json: absent reads as generation 0 with best gen-0000; written atomically") {
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
