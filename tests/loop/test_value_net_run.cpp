// The value-net learner of `run` (loop/value_net_run.h): its config, the SPRT of its gating, and
// tiny runs end to end: two generations, a stop and resume, and a candidate that must lose.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/fileutil.h"
#include "loop/value_net_run.h"
#include "report/value_net_report.h"
#include "selfplay/data.h"

using namespace ps;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string temp_dir(const std::string& name) {
  const std::string p =
      (fs::temp_directory_path() / ("ps_vnet_" + name + "_" + std::to_string(::getpid()))).string();
  remove_tree(p);
  return p;
}

// Two generations of seconds: a few cheap teacher games, a few training steps, a 4-game gating
// match and a 2-game ladder at a few ms per turn.
std::string tiny_config(const std::string& dir, const std::string& extra = "") {
  return "run:\n  learner: value-net\n  name: tiny\n  dir: " + dir +
         "\n  generations: 2\n"
         "selfplay:\n  first_games: 6\n  games: 4\n  concurrent_games: 2\n  games_per_chunk: 2\n  seed: 3\n"
         "  teacher: {nodes: 300, tt_mb: 1}\n"
         "train: {hidden: [8], steps: 20, batch: 64, log_interval: 10, threads: 1}\n"
         "train_first: {target: result, lr: 0.003}\n"
         "gating: {rule: score, games: 4, openings: 2, time_ms: 5, threshold: 0.25}\n"
         "ladder: {opponents: [greedy], games: 2, openings: 1, time_ms: 5}\n"
         "export: {single_file: true, compile_check: false}\n" +
         extra;
}

std::vector<json> generations(const std::string& dir) {
  std::vector<json> out;
  std::ifstream in(dir + "/logs/generations.jsonl");
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(json::parse(line));
  return out;
}

}  // namespace

TEST_CASE("the shipped recipe's config parses: configs/ship-8x10-value-net.yaml") {
  // Its paths (the ladder's value net) are relative to the repository root, where it is run.
  struct InRepositoryRoot {
    const fs::path before = fs::current_path();
    InRepositoryRoot() { fs::current_path(fs::path(PS_CONFIGS_DIR) / ".."); }
    ~InRepositoryRoot() { fs::current_path(before); }
  } in_root;
  const std::string path = "configs/ship-8x10-value-net.yaml";
  const VnetRunConfig c = parse_vnet_run_config(read_file(path), path);
  CHECK(c.generations >= 3);  // the shipped net is its generation 3
  CHECK(c.width == 8);
  CHECK(c.length == 10);
}

TEST_CASE("value-net run config: keys read, errors named by key and line") {
  const VnetRunConfig c = parse_vnet_run_config(tiny_config("/tmp/x"), "t.yaml");
  CHECK(c.first_games == 6);
  CHECK(c.selfplay.games == 4);
  CHECK(c.train.steps == 20);
  CHECK(c.train_first.steps == 20);  // train_first starts from train's values
  CHECK(c.train_first.target == "result");
  CHECK(c.train.target == "result");  // the default
  CHECK(c.gating.rule == "score");
  CHECK(is_value_net_run_config(tiny_config("/tmp/x")));
  CHECK_FALSE(is_value_net_run_config("run: {name: x}\n"));
  CHECK_FALSE(is_value_net_run_config("run: [\n"));
  auto error = [](const std::string& text) {
    try {
      parse_vnet_run_config(text, "t.yaml");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error(tiny_config("/tmp/x", "relabel: {nodes: 0}\n")),
             Catch::Contains("t.yaml: relabel.nodes (line"));
  CHECK_THAT(error(tiny_config("/tmp/x") + "gating2: {}\n"), Catch::Contains("gating2"));
  CHECK_THAT(error("run: {learner: value-net}\nselfplay: {teacher: {eval: hand}}\n"),
             Catch::Contains("selfplay.teacher.eval (line 2): is the loop's"));
  CHECK_THAT(error("run: {learner: value-net}\nladder: {opponents: [alphabeta-nnue]}\n"),
             Catch::Contains("ladder.value_net"));
  CHECK_THAT(error("run: {learner: value-net}\ngating: {elo0: 10, elo1: 5}\n"),
             Catch::Contains("gating.elo1"));
  CHECK_THAT(error("run: {learner: value-net}\ntrain: {threads: 1000000}\n"),
             Catch::Contains("train.threads"));
  CHECK_THAT(error("run: {learner: value-net, name: \"a\\xff\"}\n"), Catch::Contains("run.name"));
  // Regression: name .. wrote the run into the working directory.
  CHECK_THAT(error("run: {learner: value-net, name: '..'}\n"),
             Catch::Contains("run.name (line 1): must be 1 to 200"));
}

TEST_CASE("SPRT: the log-likelihood ratio and its bounds") {
  // H0 elo 0 (p 0.5) against H1 elo 40 (p 0.5573): one win adds log(0.5573 / 0.5).
  CHECK(sprt_llr(1, 0, 0, 40) == Approx(std::log(0.557312 / 0.5)).epsilon(1e-4));
  CHECK(sprt_llr(0, 1, 0, 40) == Approx(std::log(0.442688 / 0.5)).epsilon(1e-4));
  CHECK(sprt_llr(50, 50, 0, 40) < 0);          // an even score favours H0 (elo 0)
  CHECK(sprt_decision(3.0, 0.05, 0.05) == 1);  // above log(19) = 2.94
  CHECK(sprt_decision(-3.0, 0.05, 0.05) == -1);
  CHECK(sprt_decision(0.5, 0.05, 0.05) == 0);
  // 30 wins of 30 accept H1; 0 of 30 accept H0.
  CHECK(sprt_decision(sprt_llr(30, 0, 0, 40), 0.05, 0.05) == 1);
  CHECK(sprt_decision(sprt_llr(0, 30, 0, 40), 0.05, 0.05) == -1);
}

TEST_CASE("value-net run: two generations end to end, stopped and resumed, every game id once") {
  const std::string dir = temp_dir("tiny");
  const VnetRunConfig c = parse_vnet_run_config(tiny_config(dir), "tiny.yaml");
  // Stop it while generation 1's teacher plays; then run it again to the end.
  std::atomic<bool> cancel{false};
  std::thread stopper([&] {
    for (int i = 0; i < 2000 && count_stored_games(dir + "/data/teacher-gen-0000", "g0001") < 2; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    cancel = true;
  });
  run_value_net_loop(c, &cancel);
  stopper.join();
  // Stopped before the end: usually in generation 1's teacher games; on a loaded machine the
  // stopper may wake later, in a later phase (a check on the phase failed under a full load).
  CHECK(json::parse(read_file(dir + "/state.json")).at("phase") != "finished");
  run_value_net_loop(c);
  const std::vector<json> gens = generations(dir);
  REQUIRE(gens.size() == 2);
  CHECK(gens[0].at("teacher") == "gen-0000");
  CHECK(gens[0].at("teacher_games") == 6);
  CHECK(gens[0].at("gating").at("games") == 4);
  CHECK(fs::exists(dir + "/nets/gen-0001.vnet"));
  CHECK(fs::exists(dir + "/nets/gen-0002.vnet"));
  CHECK(fs::exists(dir + "/best.vnet"));
  const json state = json::parse(read_file(dir + "/state.json"));
  CHECK(state.at("generation") == 2);
  CHECK(state.at("learner") == "value-net");
  CHECK(state.at("phase") == "finished");
  for (const json& g : gens)
    if (g.at("promoted").get<bool>()) {
      const int gen = g.at("generation").get<int>();
      char name[16];
      std::snprintf(name, sizeof name, "gen-%04d", gen);
      CHECK(fs::exists(dir + "/export/" + name + ".cpp"));
      CHECK(g.at("ladder").at("rows").size() == 1);
      CHECK(fs::exists(dir + "/ladder/" + name + "/ladder.json"));
      // Its manifest: the config, the commit, the games, the gating match.
      const json m = json::parse(read_file(dir + "/nets/" + name + ".json"));
      CHECK(m.at("config").get<std::string>() == tiny_config(dir));
      CHECK_FALSE(m.at("commit").get<std::string>().empty());
      CHECK(m.at("teacher_games").get<int>() >= 6);
      CHECK(m.at("gating").at("promoted").get<bool>());
    }
  // The teacher's games: every id of generation 1 stored once, though it was stopped.
  std::multiset<uint64_t> ids;
  for (auto& e : fs::directory_iterator(dir + "/data/teacher-gen-0000"))
    if (e.path().extension() == ".psd" && e.path().filename().string().rfind("g0001-", 0) == 0)
      for (const GameData& g : read_chunk(e.path().string())) ids.insert(g.game_id);
  CHECK(ids.size() == 6);
  for (uint64_t id = 0; id < 6; ++id) CHECK(ids.count(id) == 1);
  // The report names both generations.
  const std::string html = read_file(report::write_value_net_report(dir));
  CHECK_THAT(html, Catch::Contains("2 generations finished"));
  // A finished run, run again: nothing to do; a deleted best net is an error naming it.
  run_value_net_loop(c);
  CHECK(generations(dir).size() == 2);
  const std::string best = state.at("best").get<std::string>();
  if (best != "gen-0000") {
    fs::remove(dir + "/nets/" + best + ".vnet");
    CHECK_THROWS_WITH(run_value_net_loop(c), Catch::Contains(best + ".vnet"));
  }
  remove_tree(dir);
}

TEST_CASE("value-net run: a teacher worker's games count, `run` plays only the missing ones, none twice") {
  const std::string dir = temp_dir("worker");
  const VnetRunConfig c = parse_vnet_run_config(tiny_config(dir), "tiny.yaml");
  RoleOptions opt;
  opt.poll_seconds = 0.05;
  // Before `run` starts: the worker plays generation 1's teacher (the random evaluation), exactly
  // --max-games of the 6.
  opt.max_games = 4;
  run_value_net_teacher_worker(c, "t1", nullptr, opt);
  const std::string data = dir + "/data/teacher-gen-0000";
  CHECK(count_stored_games(data, "w-t1-g0001") == 4);
  // `run` plays the 2 missing games of generation 1, then the rest of the run.
  run_value_net_loop(c);
  CHECK(count_stored_games(data, "g0001") == 2);
  const std::vector<json> gens = generations(dir);
  REQUIRE(gens.size() == 2);
  CHECK(gens[0].at("teacher_games") == 6);
  // Every game is another game: the prefixes seed them apart.
  std::set<std::string> records;
  int64_t games = 0;
  for (auto& e : fs::directory_iterator(data))
    if (e.path().extension() == ".psd" && e.path().filename().string().find("g0001-") != std::string::npos)
      for (const GameData& g : read_chunk(e.path().string())) {
        records.insert(g.record);
        ++games;
      }
  CHECK(games == 6);
  CHECK(records.size() == 6);
  // A finished run: the worker ends at once.
  opt.max_games = 0;
  run_value_net_teacher_worker(c, "t1", nullptr, opt);
  CHECK(count_stored_games(data, "w-t1-g0001") == 4);
  CHECK_THROWS_WITH(run_value_net_teacher_worker(c, "bad-id", nullptr, opt), Catch::Contains("worker id"));
  remove_tree(dir);
}

TEST_CASE("value-net run: a teacher worker beside `run` to the end of the run") {
  const std::string dir = temp_dir("worker2");
  const VnetRunConfig c = parse_vnet_run_config(tiny_config(dir), "tiny.yaml");
  RoleOptions opt;
  opt.poll_seconds = 0.05;
  std::thread worker([&] { run_value_net_teacher_worker(c, "t2", nullptr, opt); });  // ends with the run
  run_value_net_loop(c);
  worker.join();
  const std::vector<json> gens = generations(dir);
  REQUIRE(gens.size() == 2);
  // Each generation holds at least its games (more by the games in flight when it was complete).
  CHECK(gens[0].at("teacher_games").get<int>() >= 6);
  CHECK(gens[1].at("teacher_games").get<int>() >= 4);
  CHECK(json::parse(read_file(dir + "/state.json")).at("phase") == "finished");
  remove_tree(dir);
}

TEST_CASE("value-net run: stopped during its gating match, it goes on with the games played") {
  const std::string dir = temp_dir("gating");
  std::string text = tiny_config(dir);
  text.replace(text.find("generations: 2"), 14, "generations: 1");
  const VnetRunConfig c = parse_vnet_run_config(text, "tiny.yaml");
  const std::string tsv = dir + "/gating/gen-0001/games.tsv";
  auto stored = [&] {
    if (!fs::exists(tsv)) return 0L;
    const std::string t = read_file(tsv);
    return long(std::count(t.begin(), t.end(), '\n')) - 1;  // less the header
  };
  std::atomic<bool> cancel{false};
  std::thread stopper([&] {
    for (int i = 0; i < 20000 && stored() < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    cancel = true;
  });
  run_value_net_loop(c, &cancel);
  stopper.join();
  const long before = stored();
  REQUIRE(before >= 1);
  if (fs::exists(dir + "/gating/gen-0001/decision.json")) {  // every game ended before the stop was seen
    remove_tree(dir);
    return;
  }
  run_value_net_loop(c);
  const json d = json::parse(read_file(dir + "/gating/gen-0001/decision.json"));
  CHECK(d.at("games") == 4);  // the stored games count, none is played twice
  CHECK(stored() == 4);
  std::set<std::string> ids;
  std::istringstream in(read_file(tsv));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) ids.insert(line.substr(0, line.find('\t')));
  CHECK(ids.size() == 4);
  remove_tree(dir);
}

TEST_CASE("value-net run: a candidate that must lose is not promoted") {
  // Generation 0 is the shipped net; the candidate is it after 30 steps at a learning rate of 5,
  // which wrecks it. It plays the shipped net at equal time and is not promoted.
  const std::string dir = temp_dir("lose");
  const std::string shipped = std::string(PS_CONFIGS_DIR) + "/../models/8x10-standard.vnet";
  std::string text = tiny_config(dir);
  auto swap = [&](const std::string& from, const std::string& to) {
    REQUIRE(text.find(from) != std::string::npos);
    text.replace(text.find(from), from.size(), to);
  };
  swap("  generations: 2\n", "  generations: 1\n  init: " + shipped + "\n");
  swap("train: {hidden: [8], steps: 20,", "train: {steps: 30, lr: 5.0, holdout: 0,");
  swap("gating: {rule: score, games: 4, openings: 2, time_ms: 5, threshold: 0.25}",
       "gating: {rule: sprt, elo0: 0, elo1: 100, games: 12, openings: 6, time_ms: 20, threshold: 0.5}");
  const VnetRunConfig c = parse_vnet_run_config(text, "lose.yaml");
  run_value_net_loop(c);
  const std::vector<json> gens = generations(dir);
  REQUIRE(gens.size() == 1);
  INFO(gens[0].dump());
  CHECK_FALSE(gens[0].at("promoted").get<bool>());
  CHECK(gens[0].at("best") == "gen-0000");
  CHECK_FALSE(fs::exists(dir + "/best.vnet"));
  remove_tree(dir);
}

TEST_CASE(
    "value-net run: stopped during a promoted net's ladder, it resumes, and a bad state or shape is refused") {
  const std::string dir = temp_dir("ladder");
  std::string text = tiny_config(dir);
  auto swap = [&](const std::string& from, const std::string& to) {
    REQUIRE(text.find(from) != std::string::npos);
    text.replace(text.find(from), from.size(), to);
  };
  swap("  generations: 2\n", "  generations: 1\n");
  swap("gating: {rule: score, games: 4, openings: 2, time_ms: 5, threshold: 0.25}",
       "gating: {rule: score, games: 4, openings: 2, time_ms: 5, threshold: 0.1}");
  swap("ladder: {opponents: [greedy], games: 2, openings: 1, time_ms: 5}",
       "ladder: {opponents: [greedy, random], games: 8, openings: 4, time_ms: 20}");
  const VnetRunConfig c = parse_vnet_run_config(text, "ladder.yaml");
  // Stop it while the promoted net plays its ladder (state.json says so): state.json's best was
  // the new net there while its generation was not finished, and no resume could read it.
  std::atomic<bool> cancel{false};
  bool stopped_in_ladder = false;
  std::thread stopper([&] {
    for (int i = 0; i < 6000 && !cancel; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      try {
        if (json::parse(read_file(dir + "/state.json")).value("phase", "").rfind("ladder", 0) == 0) {
          stopped_in_ladder = true;
          cancel = true;
        }
      } catch (const std::exception&) {}
    }
  });
  run_value_net_loop(c, &cancel);
  cancel = true;
  stopper.join();
  if (stopped_in_ladder) {
    const json s = json::parse(read_file(dir + "/state.json"));
    CHECK(s.at("generation") == 0);
    CHECK(s.at("best") == "gen-0000");
  }
  run_value_net_loop(c);
  const json s = json::parse(read_file(dir + "/state.json"));
  CHECK(s.at("generation") == 1);
  CHECK(s.at("phase") == "finished");
  // Another net shape on resume is refused before anything is written.
  const std::string config_before = read_file(dir + "/config.yaml");
  std::string wider = text;
  wider.replace(wider.find("hidden: [8]"), 11, "hidden: [16]");
  wider.replace(wider.find("generations: 1"), 14, "generations: 2");
  CHECK_THROWS_WITH(run_value_net_loop(parse_vnet_run_config(wider, "wider.yaml")),
                    Catch::Contains("train.hidden (8 -> 16)"));
  CHECK(read_file(dir + "/config.yaml") == config_before);
  // A damaged state.json is named by its field.
  const std::string state = read_file(dir + "/state.json");
  for (auto [field, bad, why] :
       {std::tuple<const char*, const char*, const char*>{"generation", "\"x\"", "must be an integer"},
        {"generation", "99", "decision.json is missing"},
        {"best", "\"../../etc/passwd\"", "is not a generation of this run"},
        {"elo", "\"x\"", "must be an object"}}) {
    json j = json::parse(state);
    j[field] = json::parse(bad);
    write_file_atomic(dir + "/state.json", j.dump());
    INFO(field << " " << bad);
    CHECK_THROWS_WITH(run_value_net_loop(c), Catch::Contains(dir + "/state.json") && Catch::Contains(why));
  }
  remove_tree(dir);
  // The same yardstick twice is a config error, not a failure after the run's first generation.
  CHECK_THROWS_WITH(
      parse_vnet_run_config("run: {learner: value-net}\nladder: {opponents: [greedy, greedy]}\n", "t.yaml"),
      Catch::Contains("ladder.opponents (line 2): 'greedy' is listed twice"));
}

TEST_CASE(
    "value-net run: `run` leaves a worker's chunk and claim temporaries alone, and the worker clears its own chunks") {
  // A restarted worker was writing w-B-g0001-000004.psd when `run` started and cleared every
  // temporary of the run; the worker's rename then failed ("rename failed: No such file").
  const std::string dir = temp_dir("temps");
  const VnetRunConfig c = parse_vnet_run_config(tiny_config(dir), "tiny.yaml");
  const std::string data = dir + "/data/teacher-gen-0000";
  fs::create_directories(data);
  const std::string workers = data + "/w-B-g0001-000004.psd.tmp.4242";
  const std::string others = data + "/w-C-g0001-000001.psd.tmp.4243";
  const std::string runs = data + "/g0001-000001.psd.tmp.4244";
  // Regression: a restarted worker B taking over its dead predecessor's claim failed with
  // "claims/worker-B.claim.f951e5ad60a524d87aca4254a86ceb4b.takeover: rename failed: No such
  // file or directory" when `run` started meanwhile and cleared the claims' temporaries too.
  const std::string takeover =
      dir + "/claims/worker-B.claim.f951e5ad60a524d87aca4254a86ceb4b.takeover.tmp.4245";
  const std::string heartbeat = dir + "/claims/worker-C.claim.tmp.4246";
  for (const std::string& f : {workers, others, runs, takeover, heartbeat}) write_file_atomic(f, "partial");
  run_value_net_loop(c);
  CHECK(fs::exists(workers));
  CHECK(fs::exists(others));
  CHECK_FALSE(fs::exists(runs));
  CHECK(fs::exists(takeover));
  CHECK(fs::exists(heartbeat));
  RoleOptions opt;
  opt.poll_seconds = 0.05;
  run_value_net_teacher_worker(c, "B", nullptr, opt);  // the run is finished: it clears and ends
  CHECK_FALSE(fs::exists(workers));
  CHECK(fs::exists(others));
  remove_tree(dir);
}
