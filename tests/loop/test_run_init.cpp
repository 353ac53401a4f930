// run.init: a new run's generation 0 from a model file (loop/run_init.h), in `run` and in the
// roles, checked before anything is written, and fixed for the rest of the run.
#include <catch2/catch.hpp>

#include <filesystem>

#include "core/fileutil.h"
#include "loop/role_claim.h"
#include "loop/run.h"
#include "loop/run_dir.h"
#include "nn/checkpoint.h"
#include "tests/common/temp_dir.h"
#include "train/trainer.h"

using namespace ps;
namespace fs = std::filesystem;

namespace {

// A model file as `export` writes one: a tiny net of seed 7 (the run's own generation 0 would be
// seed 1), trained to step 40 (as its metadata says), for 6x8 standard, rated.
std::string tiny_model(const fs::path& dir, const std::vector<std::string>& pitches = {"6x8"}) {
  TrainConfig tc;
  tc.seed = 7;
  const std::string ck = (dir / "seed7.ckpt").string(), model = (dir / "seed7.model").string();
  write_initial_checkpoint(tc, ck, "seed 7");
  nn::LoadedCheckpoint loaded = nn::load_checkpoint(ck);
  nn::CheckpointMeta meta = loaded.meta;
  meta.training_step = 40;
  meta.pitches = pitches;
  meta.variants = {"standard"};
  meta.rating_elo = 250;
  meta.rating_ci95 = 30;
  nn::save_checkpoint(model, loaded.net, meta);
  return model;
}

std::string run_yaml(const fs::path& run_dir, const std::string& init_line,
                     const std::string& net = "{preset: tiny}") {
  const std::string train =
      "train: {net: " + net +
      ", threads: 1, batch_size: 8, steps: 3, checkpoint_interval: 5, log_interval: 5}\n";
  return "run:\n  name: init\n  pitch: 6x8\n  generations: 1\n  dir: " + run_dir.string() + "\n" + init_line +
         "service: {max_batch: 8, batch_timeout_us: 200}\n"
         "selfplay: {games: 2, concurrent_games: 2, visits: 4, cheap_visits: 2, games_per_chunk: 2}\n" +
         train +
         "evaluate: {games: 2, final_games: 2, visits: 2, opening_turns: 1, concurrency: 2, "
         "vs_generation0: false, vs_random: false, vs_greedy: false}\n";
}

// Every parameter and buffer (batch-norm statistics) of the two files' nets is equal.
bool same_weights(const std::string& a, const std::string& b) {
  nn::LoadedCheckpoint x = nn::load_checkpoint(a), y = nn::load_checkpoint(b);
  auto px = x.net->named_parameters(), py = y.net->named_parameters();
  auto bx = x.net->named_buffers(), by = y.net->named_buffers();
  if (px.size() != py.size() || bx.size() != by.size()) return false;
  for (const auto& p : px)
    if (!torch::equal(p.value(), py[p.key()])) return false;
  for (const auto& p : bx)
    if (!torch::equal(p.value(), by[p.key()])) return false;
  return true;
}

}  // namespace

TEST_CASE("run.init: a new run's generation 0 is the model's net, and the run trains on from it") {
  ps::test::TempDir tmp("init");
  const std::string model = tiny_model(tmp.path);
  const fs::path run_dir = tmp.path / "run";
  const RunConfig cfg = parse_run_config(run_yaml(run_dir, "  init: " + model + "\n"), "r.yaml");
  CHECK(cfg.init == model);
  CHECK(cfg.init_where == "r.yaml: run.init (line 6)");
  run_training_loop(cfg);
  const RunPaths paths(run_dir.string());
  REQUIRE(fs::exists(paths.checkpoint(1)));
  CHECK(same_weights(paths.checkpoint(0), model));
  const nn::CheckpointMeta g0 = nn::read_checkpoint_meta(paths.checkpoint(0));
  CHECK(g0.training_step == 40);  // the model's step: a step-based schedule goes on
  CHECK(g0.pitches == std::vector<std::string>{"6x8"});
  CHECK(std::isnan(g0.rating_elo));  // rated anew in this run
  CHECK_THAT(g0.note, Catch::StartsWith("init gen-0000 from " + model));
  CHECK(nn::read_checkpoint_meta(paths.checkpoint(1)).training_step == 43);  // 3 steps on from it
  // Without run.init, generation 0 is the seeded random net (seed 1), not the model's.
  const fs::path plain_dir = tmp.path / "plain";
  open_run_directory(parse_run_config(run_yaml(plain_dir, ""), "p.yaml"), true, 0);
  CHECK_FALSE(same_weights(RunPaths(plain_dir.string()).checkpoint(0), model));
  CHECK(nn::read_checkpoint_meta(RunPaths(plain_dir.string()).checkpoint(0)).training_step == 0);

  // The roles: generation 0 from the same file, through open_run_directory.
  const fs::path roles_dir = tmp.path / "roles";
  const std::string yaml_path = (tmp.path / "roles.yaml").string();
  write_file_atomic(yaml_path, run_yaml(roles_dir, "  init: " + model + "\n"));
  const RunConfig rc = *load_shared_run_config(roles_dir.string(), yaml_path, 0);
  open_run_directory(rc, /*single_process=*/false, 0);
  CHECK(same_weights(RunPaths(roles_dir.string()).checkpoint(0), model));
  // A run's config.yaml with another run.init is refused to the next role that brings one.
  const std::string other_yaml = (tmp.path / "other.yaml").string();
  write_file_atomic(other_yaml, run_yaml(roles_dir, ""));
  CHECK_THROWS_WITH(load_shared_run_config(roles_dir.string(), other_yaml, 0), Catch::Contains("run.init"));
  // Resume: a changed or removed run.init is refused, the same one needs no file.
  fs::create_directories(tmp.path / "copy");
  const std::string other = tiny_model(tmp.path / "copy");  // the same net at another path
  CHECK_THROWS_WITH(
      open_run_directory(parse_run_config(run_yaml(run_dir, "  init: " + other + "\n"), "r2.yaml"), true, 1),
      Catch::Contains(paths.config + ": the run was started with another run.init (" + model + " -> " +
                      other + ")"));
  CHECK_THROWS_WITH(open_run_directory(parse_run_config(run_yaml(run_dir, ""), "r3.yaml"), true, 1),
                    Catch::Contains("run.init (" + model + " -> absent: random weights)"));
  // Carried to another machine without the model file: generation 0 is there, nothing reads it.
  fs::remove(model);
  CHECK_NOTHROW(open_run_directory(cfg, true, 1));
  CHECK(fs::exists(paths.checkpoint(0)));
}

TEST_CASE("run.init errors name the config, the key, the file and what does not fit, nothing is written") {
  ps::test::TempDir tmp("init_err");
  const std::string model = tiny_model(tmp.path);
  const fs::path run_dir = tmp.path / "run";
  auto open_new = [&](const std::string& init_line, const std::string& net = "{preset: tiny}") {
    open_run_directory(parse_run_config(run_yaml(run_dir, init_line, net), "r.yaml"), true, 0);
  };
  // Another net shape: both shapes, the file, run.init and train.net named.
  nn::NetConfig narrow = nn::NetConfig::tiny();
  narrow.channels = 8;
  CHECK_THROWS_WITH(open_new("  init: " + model + "\n", "{preset: tiny, channels: 8}"),
                    "r.yaml: run.init (line 6): " + model + " holds a net of shape " +
                        nn::NetConfig::tiny().summary() + ", but train.net is " + narrow.summary() +
                        ": set train.net to the model's shape, or start from a model of this one");
  CHECK_FALSE(fs::exists(run_dir));  // no config.yaml that a corrected config would differ from
  // A missing file.
  const std::string missing = (tmp.path / "no-such.model").string();
  CHECK_THROWS_WITH(open_new("  init: " + missing + "\n"),
                    Catch::StartsWith("r.yaml: run.init (line 6): cannot start generation 0 from it: ") &&
                        Catch::Contains(missing));
  // A damaged file: the model cut in half.
  const std::string cut = (tmp.path / "cut.model").string();
  const std::string bytes = read_file(model);
  write_file_atomic(cut, bytes.substr(0, bytes.size() / 2));
  CHECK_THROWS_WITH(open_new("  init: " + cut + "\n"),
                    Catch::StartsWith("r.yaml: run.init (line 6): cannot start generation 0 from it: ") &&
                        Catch::Contains(cut));
  // A model for another pitch (8x10) than the run's (6x8).
  ps::test::TempDir other("init_err_pitch");
  const std::string wide = tiny_model(other.path, {"8x10"});
  CHECK_THROWS_WITH(open_new("  init: " + wide + "\n"),
                    "r.yaml: run.init (line 6): " + wide +
                        " is a net for pitch 8x10 and variant standard, but the "
                        "run plays pitch 6x8 (run.pitch, run.variant, selfplay.pitches, selfplay.variants)");
  CHECK_FALSE(fs::exists(run_dir));
  // `run` itself: refused before it claims its roles (no claims/ folder either).
  CHECK_THROWS_WITH(
      run_training_loop(parse_run_config(run_yaml(run_dir, "  init: " + wide + "\n"), "r.yaml")),
      Catch::StartsWith("r.yaml: run.init (line 6): "));
  CHECK_FALSE(fs::exists(run_dir));
  // The roles: refused before the run directory's config.yaml is written.
  const std::string yaml_path = (tmp.path / "roles.yaml").string();
  write_file_atomic(yaml_path, run_yaml(run_dir, "  init: " + wide + "\n"));
  CHECK_THROWS_WITH(load_shared_run_config(run_dir.string(), yaml_path, 0),
                    Catch::Contains(yaml_path + ": run.init (line 6): ") && Catch::Contains("pitch 6x8"));
  CHECK_FALSE(fs::exists(run_dir));
  // An empty value.
  CHECK_THROWS_WITH(parse_run_config("run: {init: ''}\n", "r.yaml"),
                    "r.yaml: run.init (line 1): must be a file name (or leave the key out)");
}

TEST_CASE(
    "`run` opening its directory clears a killed run's temporaries but not the claims or workers ones") {
  // The claims' temporaries (a heartbeat's, a takeover's) belong to live processes beside `run`;
  // clearing one made that process's rename fail ("rename failed: No such file or directory").
  ps::test::TempDir tmp("temps");
  const fs::path run_dir = tmp.path / "run";
  const std::string stale = (run_dir / "data" / "gen0000-000000.psd.tmp.4242").string();
  // A self-play worker beside `run` (docs/SCALING.md) writes its chunks the same way.
  const std::string workers = (run_dir / "data" / "gen0000-w1-000000.psd.tmp.4245").string();
  const std::string heartbeat = (run_dir / "claims" / "worker-B.claim.tmp.4243").string();
  const std::string takeover =
      (run_dir / "claims" / "worker-C.claim.f951e5ad60a524d87aca4254a86ceb4b.takeover.tmp.4244").string();
  for (const std::string& f : {stale, workers, heartbeat, takeover}) write_file_atomic(f, "partial");
  open_run_directory(parse_run_config(run_yaml(run_dir, ""), "r.yaml"), /*single_process=*/true, 0);
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(heartbeat));
  CHECK(fs::exists(takeover));
  CHECK(fs::exists(workers));
  CHECK(is_worker_chunk_name("gen0000-w1-000000.psd"));
  CHECK_FALSE(is_worker_chunk_name("gen0000-000000.psd"));
  CHECK(is_claim_file_name("worker-B.claim"));
  CHECK(is_claim_file_name("worker-C.claim.f951e5ad60a524d87aca4254a86ceb4b.takeover"));
  CHECK_FALSE(is_claim_file_name("gen0000-000000.psd"));
  CHECK_FALSE(is_claim_file_name("x.takeover"));
}
