// The main job: shipped configs parse, and a tiny loop runs end to end and resumes.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/fileutil.h"
#include "core/progress.h"
#include "core/stats.h"
#include "loop/players.h"
#include "loop/roles.h"
#include "loop/run.h"
#include "nn/checkpoint.h"
#include "nn/net.h"
#include "report/report.h"
#include "report/run_data.h"
#include "search/baselines.h"
#include "search/mcts_player.h"
#include "tests/common/temp_dir.h"
#include "tests/search/helpers.h"
#include "tournament/registry.h"
#include "valuenet/value_net.h"
#include "valuenet/value_net_file.h"

using namespace ps;
namespace fs = std::filesystem;

TEST_CASE("every shipped run config parses, the built-in quickstart is configs/quickstart.yaml") {
  for (const char* name :
       {"quickstart.yaml", "quickstart-long.yaml", "long-teacher-8x10.yaml", "standard-8x10.yaml",
        "long-8x12.yaml", "single-bounce-8x10.yaml", "ship-8x10.yaml"}) {
    INFO(name);
    RunConfig c = load_run_config(std::string(PS_CONFIGS_DIR) + "/" + name);
    CHECK(c.generations >= 1);
    CHECK(!c.selfplay.pitches.empty());
  }
  CHECK(quickstart_config_text() == read_file(std::string(PS_CONFIGS_DIR) + "/quickstart.yaml"));
  RunConfig q = parse_run_config(quickstart_config_text(), "quickstart");
  CHECK(q.dir == "runs/quickstart");
  CHECK(q.selfplay.pitches[0].length == 10);
  RunConfig t = load_run_config(std::string(PS_CONFIGS_DIR) + "/long-teacher-8x10.yaml");
  CHECK(t.train.teacher.data == "runs/teacher-games-8x10");
  CHECK(t.train.teacher.batch_share(t.train.batch_size) == 32);
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
  // Regression: unbounded, 4294967297 searched one turn for minutes into gigabytes.
  CHECK_THROWS_WITH(parse_run_config("evaluate: {visits: 4294967297}\n", "r.yaml"),
                    "r.yaml: evaluate.visits (line 1): must be in [1, 100000]");
  CHECK_THROWS_WITH(parse_run_config("trainn: {}\n", "r.yaml"),
                    Catch::Contains("trainn") && Catch::Contains("unknown key"));
  CHECK_THROWS_WITH(load_run_config("/nonexistent/x.yaml"), Catch::Contains("cannot open"));
  // Regressions: these were accepted and failed (or did nothing) only after the run directory
  // and its state were written.
  // Regression: 0 games was refused without its line, and -5 with the selfplay command's bound.
  for (const char* games : {"0", "-5"})
    CHECK_THROWS_WITH(parse_run_config(std::string("selfplay: {games: ") + games + "}\n", "r.yaml"),
                      Catch::Contains("r.yaml: selfplay.games (line 1): must be >= 1 in a run"));
  CHECK_THROWS_WITH(parse_run_config("train: {steps: 0}\n", "r.yaml"),
                    Catch::Contains("r.yaml: train.steps (line 1): must be >= 1 in a run"));
  // Regression: these were named without their line.
  CHECK_THROWS_WITH(parse_run_config("service: {device: tpu}\n", "r.yaml"),
                    Catch::Contains("r.yaml: service.device (line 1): 'tpu' is not a device"));
  CHECK_THROWS_WITH(parse_run_config("train: {device: 'cuda:x'}\n", "r.yaml"),
                    Catch::Contains("r.yaml: train.device (line 1): 'cuda:x' is not a device"));
  CHECK_THROWS_WITH(parse_run_config("run: {name: x}\nservice:\n  max_batch: 0\n", "r.yaml"),
                    Catch::Contains("r.yaml: service.max_batch (line 3): must be in 1..65536, not 0"));
  CHECK_THROWS_WITH(parse_run_config("run:\n  name: a/b\n", "r.yaml"),
                    Catch::Contains("r.yaml: run.name (line 2): must be a non-empty name without '/'"));
  // Regression: name .. wrote the run's files into the working directory, . into runs/, and a
  // blank name made a directory "runs/ ".
  for (const char* name : {"'..'", "'.'", "' '"})
    CHECK_THROWS_WITH(
        parse_run_config(std::string("run:\n  name: ") + name + "\n", "r.yaml"),
        Catch::Contains("r.yaml: run.name (line 2): must be a non-empty name without '/', not '.'"));
  // Regression: the momentum was not checked (1.5 diverges, -1 is no momentum at all).
  for (const char* m : {"1.5", "-1", "1"})
    CHECK_THROWS_WITH(parse_run_config(std::string("train:\n  optimizer: {momentum: ") + m + "}\n", "r.yaml"),
                      Catch::Contains("r.yaml: train.optimizer.momentum (line 2): must be in [0, 1)"));
  CHECK(parse_run_config("service: {device: 'cuda:1'}\n", "r.yaml").service.device == "cuda:1");
  // Regression: a repeated key was silently ignored (yaml-cpp keeps both, lookups see the first).
  CHECK_THROWS_WITH(parse_run_config("run: {generations: 1}\nrun: {generations: 2}\n", "r.yaml"),
                    Catch::Contains("r.yaml: run (line 2): duplicate key"));
  CHECK_THROWS_WITH(parse_run_config("train: {steps: 5, steps: 6}\n", "r.yaml"),
                    Catch::Contains("train.steps") && Catch::Contains("duplicate key"));
  // Regression: range errors named the key but not its line.
  CHECK_THROWS_WITH(parse_run_config("run: {name: x}\nevaluate:\n  games: 4\n  final_games: 3\n", "r.yaml"),
                    "r.yaml: evaluate.final_games (line 4): must be even and >= 2");
  CHECK_THROWS_WITH(parse_run_config("run:\n  name: x\n  variant: triple\n", "r.yaml"),
                    Catch::StartsWith("r.yaml: run.variant (line 3): ") && Catch::Contains("triple"));
  CHECK_THROWS_WITH(parse_run_config("evaluate:\n  gating: {threshold: 2}\n", "r.yaml"),
                    "r.yaml: evaluate.gating.threshold (line 2): must be in (0, 1)");
  // Regression: this exact input said "expected an integer".
  CHECK_THROWS_WITH(parse_run_config("selfplay: {games_per_chunk: 4294967296}\n", "r.yaml"),
                    "r.yaml: selfplay.games_per_chunk (line 1): out of range: '4294967296' is not in "
                    "[-2147483648, 2147483647]");
  // Regression: a proof_fraction for self-play or evaluation (visit budgets) was silently unused.
  CHECK_THROWS_WITH(parse_run_config("selfplay:\n  search: {proof_fraction: 0.5}\n", "r.yaml"),
                    Catch::StartsWith("r.yaml: selfplay.search.proof_fraction (line 2): must be 0: "));
  CHECK_THROWS_WITH(
      parse_run_config("evaluate:\n  visits: 16\n  search:\n    proof_fraction: 0.3\n", "r.yaml"),
      "r.yaml: evaluate.search.proof_fraction (line 4): must be 0: the proof step runs on timed "
      "turns only, and evaluation turns have a visit budget (evaluate.visits), so it would never run");
}

TEST_CASE("gating plays and compares with the best network, not the previous one") {
  // Regression: generation 3 with gen-0001 the best (gen-0002 not promoted) was gated on its
  // score against gen-0002, and with vs_previous: false gating was silently ignored.
  RunConfig c = parse_run_config(
      "evaluate: {vs_previous: false, vs_generation0: false, gating: {enabled: true}}\n", "r.yaml");
  CHECK(evaluation_opponents(c.evaluate, 3, "gen-0001") ==
        std::vector<std::string>{"gen-0001", "random", "greedy"});
  c.evaluate.vs_previous = true;
  CHECK(evaluation_opponents(c.evaluate, 3, "gen-0001") ==
        std::vector<std::string>{"gen-0002", "gen-0001", "random", "greedy"});
  CHECK(evaluation_opponents(c.evaluate, 3, "gen-0002") ==
        std::vector<std::string>{"gen-0002", "random", "greedy"});
  c.evaluate.vs_generation0 = true;  // the best is generation 0: listed once
  CHECK(evaluation_opponents(c.evaluate, 3, "gen-0000") ==
        std::vector<std::string>{"gen-0002", "gen-0000", "random", "greedy"});
  c.evaluate.gating = false;  // without gating the best is not added
  c.evaluate.vs_previous = false;
  CHECK(evaluation_opponents(c.evaluate, 3, "gen-0001") ==
        std::vector<std::string>{"gen-0000", "random", "greedy"});
  // Regression: generation 1 with only vs_generation0 on had no opponent ("every opponent is
  // switched off"): generation 0 was left out as if vs_previous had listed it.
  c.evaluate.vs_random = c.evaluate.vs_greedy = false;
  CHECK(evaluation_opponents(c.evaluate, 1, "gen-0000") == std::vector<std::string>{"gen-0000"});
}

TEST_CASE("evaluation openings: one per pair of games, enough of them checked when the config is read") {
  // 56 distinct openings of 2 turns exist on 8x10: 120 games need 60.
  CHECK_THROWS_WITH(
      parse_run_config("evaluate: {final_games: 120, opening_turns: 2}\n", "r.yaml"),
      Catch::Contains("r.yaml: evaluate: 120 games against an opponent need 60 distinct openings") &&
          Catch::Contains("raise evaluate.opening_turns"));
  CHECK_NOTHROW(parse_run_config("evaluate: {final_games: 120, opening_turns: 3}\n", "r.yaml"));
  CHECK_THROWS_WITH(
      parse_run_config("evaluate: {openings: 10}\n", "r.yaml"),
      Catch::Contains("r.yaml: evaluate.openings (line 1): is no longer read: each pair of games"));
}

// A freshly initialised tiny net (generation 0) in dir.
static std::string tiny_checkpoint(const ps::test::TempDir& dir, const std::string& note) {
  TrainConfig tc;
  tc.net = nn::NetConfig::tiny();
  const std::string ck = (dir.path / "net.ckpt").string();
  write_initial_checkpoint(tc, ck, note);
  return ck;
}

TEST_CASE("players share a network service only when every service option agrees") {
  // Regression: the cache key left out workers and torch_threads, so the first player to make
  // the service set them for every later one.
  ps::test::TempDir dir("svc");
  const std::string ck = tiny_checkpoint(dir, "svc");
  nn::ServiceOptions a;
  a.workers = 1;
  nn::ServiceOptions b = a;
  b.workers = 2;
  nn::ServiceOptions c = a;
  c.torch_threads = 1;
  auto ea = shared_net_evaluator(ck, a);
  CHECK(shared_net_evaluator(ck, a) == ea);
  CHECK(shared_net_evaluator(ck, b) != ea);
  CHECK(shared_net_evaluator(ck, c) != ea);
  clear_net_evaluators();
}

// The context the registry gives an `mcts` player on the standard pitch (players registered).
static tour::PlayerContext mcts_context(const std::string& name = "") {
  register_builtin_players();
  tour::PlayerContext ctx;
  ctx.pitch = &Pitch::standard();
  ctx.seed = 3;
  ctx.name = name;
  return ctx;
}

TEST_CASE("the mcts player's uniform_priors and zero_value replace both heads of its net") {
  ps::test::TempDir dir("ablate");
  const std::string ck = tiny_checkpoint(dir, "ablate");
  const tour::PlayerContext ctx = mcts_context();
  auto ablated = tour::create_player(
      "mcts", YAML::Load("{checkpoint: " + ck + ", uniform_priors: true, zero_value: true}"), ctx);
  UniformEvaluator uniform;
  MctsPlayer reference(uniform, SearchParams{}, ctx.seed);
  // With both heads replaced the net's search is the uniform search, turn for turn.
  Game g(Pitch::standard(), Variant::kStandard);
  for (int t = 0; t < 6 && !g.position().game_over(); ++t) {
    const std::string a = ablated->choose_turn(g, {-1, 150});
    CHECK(a == reference.choose_turn(g, {-1, 150}));
    g.play_turn(a);
  }
  CHECK_THROWS_WITH(
      tour::create_player("mcts", YAML::Load("{checkpoint: " + ck + ", zero_value: maybe}"), ctx, "t.yaml"),
      Catch::Equals(
          "t.yaml: player.zero_value (line 1): wrong type: cannot read 'maybe': expected a boolean (true/false, also yes/no or on/off)"));
  clear_net_evaluators();
}

TEST_CASE("the mcts player's search_stats writes the game's searches per turn on stderr") {
  ps::test::TempDir dir("stats");
  const std::string ck = tiny_checkpoint(dir, "stats");
  const tour::PlayerContext ctx = mcts_context("probe");
  std::ostringstream err;
  std::streambuf* old = std::cerr.rdbuf(err.rdbuf());
  {
    auto p = tour::create_player(
        "mcts", YAML::Load("{checkpoint: " + ck + ", search_stats: true, search: {policy_temperature: 2}}"),
        ctx);
    Game g(Pitch::standard(), Variant::kStandard);
    for (int t = 0; t < 2; ++t) g.play_turn(p->choose_turn(g, {-1, 20}));
  }
  std::cerr.rdbuf(old);
  CHECK_THAT(err.str(), Catch::StartsWith("search stats of probe: 2 searches, per search: 20 visits, "));
  CHECK_THROWS_WITH(
      tour::create_player("mcts", YAML::Load("{checkpoint: " + ck + ", search_stats: 1x}"), ctx, "t.yaml"),
      Catch::Contains("search_stats") && Catch::Contains("wrong type"));
  clear_net_evaluators();
}

TEST_CASE("the mcts player's listed keys are the keys its parser reads") {
  // Regression: `tournament --list-types` listed no keys for mcts. The list is taken from the
  // parser; each listed key, given, is read (not an unknown key), and a key not listed is refused.
  const std::vector<std::string> keys = mcts_player_keys();
  for (const char* k :
       {"checkpoint", "device", "workers", "torch_threads", "cache_entries", "uniform_priors", "zero_value",
        "search.visits", "search.c_puct_init", "search.num_threads", "search.solver"})
    CHECK(std::find(keys.begin(), keys.end(), k) != keys.end());
  for (const std::string& k : keys) {
    INFO(k);
    YAML::Node n = YAML::Load("{checkpoint: x.ckpt}");
    if (k.rfind("search.", 0) == 0)
      n["search"][k.substr(7)] = YAML::Node(YAML::NodeType::Null);  // null: the default value
    else if (k != "checkpoint") n[k] = YAML::Node(YAML::NodeType::Null);
    ConfigReader r(n, "k.yaml");
    CHECK_NOTHROW(read_mcts_player_options(r));
    CHECK_NOTHROW(r.finish());
  }
  for (const char* yaml : {"{checkpoint: x, bogus: 1}", "{checkpoint: x, search: {bogus: 1}}"}) {
    ConfigReader r(YAML::Load(yaml), "k.yaml");
    CHECK_THROWS_WITH((read_mcts_player_options(r), r.finish()),
                      Catch::Contains("bogus (line 1): unknown key"));
  }
  // The registry's description lists every one of them.
  register_builtin_players();
  std::string description;
  for (const auto& [type, desc] : tour::player_types())
    if (type == "mcts") description = desc;
  for (const std::string& k : keys) CHECK_THAT(description, Catch::Contains(k.substr(k.find('.') + 1)));
  // The other built-in types with keys list theirs too, each accepted by its factory.
  for (const auto& [type, desc] : tour::player_types()) {
    if (type == "uct")
      CHECK_THAT(desc, Catch::Contains("(keys: default_visits, exploration, max_children, max_nodes)"));
    if (type == "alphabeta")
      CHECK_THAT(desc,
                 Catch::Contains(
                     "(keys: default_time_ms, lmr, lmr_divisor, lmr_first, lmr_min_depth, max_depth, pvs, "
                     "soft_stop, tt_mb, eval, value_net, noise_range, eval_noise)"));
  }
  tour::PlayerContext ctx;
  ctx.pitch = &Pitch::standard();
  CHECK(tour::create_player(
      "uct", YAML::Load("{default_visits: 8, exploration: 1.0, max_children: 4, max_nodes: 1000}"), ctx));
  CHECK(tour::create_player("alphabeta",
                            YAML::Load("{default_time_ms: 5, max_depth: 2, tt_mb: 1, eval: hand}"), ctx));
  CHECK(tour::create_player("alphabeta", YAML::Load("{default_time_ms: 5, eval: noise, noise_range: 50}"),
                            ctx));
  CHECK(tour::create_player(
      "alphabeta", YAML::Load("{pvs: true, lmr: true, lmr_first: 2, lmr_divisor: 1.5, eval_noise: 9}"), ctx));
  CHECK_THROWS_WITH(tour::create_player("alphabeta", YAML::Load("{pvs: false, lmr: true}"), ctx),
                    Catch::Contains("pvs (line 1): lmr needs pvs"));
  // Regressions: the player's range checks name the key and its line, and a tiny
  // lmr_divisor (whose reduction overflowed an int and crashed the search) is refused or safe.
  CHECK_THROWS_WITH(
      tour::create_player("alphabeta", YAML::Load("{pvs: true, lmr: true, lmr_divisor: 0}"), ctx),
      Catch::Contains("lmr_divisor (line 1): lmr_divisor must be > 0 and finite"));
  CHECK_THROWS_WITH(
      tour::create_player("alphabeta", YAML::Load("{pvs: true, lmr: true, lmr_divisor: .inf}"), ctx),
      Catch::Contains("lmr_divisor (line 1)"));
  CHECK_THROWS_WITH(tour::create_player("alphabeta", YAML::Load("{soft_stop: 1.5}"), ctx),
                    Catch::Contains("soft_stop (line 1): soft_stop must be in (0, 0.9]"));
  CHECK(tour::create_player("alphabeta", YAML::Load("{soft_stop: 0.9}"), ctx));
  CHECK_THROWS_WITH(tour::create_player("alphabeta", YAML::Load("{tt_mb: 0}"), ctx),
                    Catch::Contains("tt_mb (line 1): tt_mb must be in [1, 4096]"));
  CHECK_THROWS_WITH(tour::create_player("alphabeta", YAML::Load("{eval: noise, eval_noise: 50}"), ctx),
                    Catch::Contains("eval_noise (line 1): is only added to eval: hand or nnue"));
  CHECK_THROWS_WITH(tour::create_player("alphabeta", YAML::Load("{eval: hand, noise_range: 50}"), ctx),
                    Catch::Contains("noise_range (line 1): is only read with eval: noise"));
  CHECK_THROWS_WITH(tour::create_player("alphabeta", YAML::Load("{eval: noise, noise_range: 0}"), ctx),
                    Catch::Contains("noise_range (line 1): noise evaluation: range 0 outside [1, 99999]"));
  // Regression: a value net for other rules played every game as a forfeit ("new_game
  // failed"); it is now a config error with the key and line when the player is made.
  const std::string vnet =
      (std::filesystem::temp_directory_path() / ("ps_rules_" + std::to_string(::getpid()) + ".vnet"))
          .string();
  save_value_net(random_value_net(Pitch::standard(), Variant::kSingleBounce, {8, 8}, 2), vnet);
  CHECK_THROWS_WITH(
      tour::create_player("alphabeta", YAML::Load("{eval: nnue,\n value_net: " + vnet + "}"), ctx, "t.yaml"),
      Catch::Contains("t.yaml: player.value_net (line 2): value net " + vnet +
                      ": trained for 8x10 single-bounce, the games are 8x10 standard"));
  ctx.variant = Variant::kSingleBounce;
  CHECK(tour::create_player("alphabeta", YAML::Load("{eval: nnue, value_net: " + vnet + "}"), ctx));
  std::remove(vnet.c_str());
}

TEST_CASE("a missing mcts checkpoint names the player, the key, the line and that it is missing") {
  register_builtin_players();
  tour::PlayerContext ctx;
  ctx.pitch = &Pitch::standard();
  ctx.name = "best";
  CHECK_THROWS_WITH(tour::create_player("mcts", YAML::Load("{type: mcts,\n checkpoint: no-such.model}"), ctx,
                                        "t.yaml", "players[1]"),
                    "t.yaml: players[1].checkpoint (line 2): player 'best': the checkpoint file "
                    "no-such.model does not exist");
}

TEST_CASE("the bot player type makes the shipped bot, with or without a network") {
  // The type `play`'s mcts opponent, the ladder's model and tournaments create the shipped bot
  // through (search/bot_player.h's make_bot_player).
  ps::test::TempDir dir("bot");
  const std::string ck = tiny_checkpoint(dir, "bot");
  const tour::PlayerContext ctx = mcts_context("b");
  // Without a checkpoint: alpha-beta alone, a visit budget read as nodes.
  auto alone = tour::create_player("bot", YAML::Load("{value_net: hand}"), ctx);
  CHECK(alone->name() == "b");
  Game g(Pitch::standard(), Variant::kStandard);
  alone->new_game(Pitch::standard(), Variant::kStandard);
  CHECK_NOTHROW(g.play_turn(alone->choose_turn(g, {-1, 200})));
  CHECK(tour::create_player("bot", YAML::Node(), ctx));  // the default evaluation
  // With one: the network's PUCT on turns given visits; its search map read over the bot's.
  auto net = tour::create_player(
      "bot", YAML::Load("{checkpoint: " + ck + ", value_net: none, search: {num_threads: 1}}"), ctx);
  net->new_game(Pitch::standard(), Variant::kStandard);
  CHECK_NOTHROW(g.play_turn(net->choose_turn(g, {-1, 16})));
  // The network's keys without a network, a value net it cannot read, an empty name, a
  // missing checkpoint and a search map's missing net are named with their key and line.
  CHECK_THROWS_WITH(tour::create_player("bot", YAML::Load("{search: {visits: 8}}"), ctx, "t.yaml"),
                    Catch::Contains("t.yaml: player.search (line 1): is read with checkpoint"));
  CHECK_THROWS_WITH(tour::create_player("bot", YAML::Load("{workers: 2}"), ctx, "t.yaml"),
                    Catch::Contains("t.yaml: player.workers (line 1): is read with checkpoint"));
  CHECK_THROWS_WITH(tour::create_player("bot", YAML::Load("{value_net: no-such.vnet}"), ctx, "t.yaml"),
                    Catch::Contains("t.yaml: player.value_net (line 1): value net no-such.vnet: "));
  CHECK_THROWS_WITH(tour::create_player("bot", YAML::Load("{value_net: ''}"), ctx, "t.yaml"),
                    Catch::Contains("player.value_net (line 1): an empty name"));
  CHECK_THROWS_WITH(tour::create_player("bot", YAML::Load("{checkpoint: no-such.model}"), ctx, "t.yaml"),
                    Catch::Contains("player 'b': the checkpoint file no-such.model does not exist"));
  CHECK_THROWS_WITH(
      tour::create_player("bot",
                          YAML::Load("{checkpoint: " + ck + ",\n search: {endgame_value_net: no-such.vnet}}"),
                          ctx, "t.yaml"),
      Catch::Contains("t.yaml: player.search.endgame_value_net (line 2): value net no-such.vnet: "));
  // Its description names its keys.
  for (const auto& [type, desc] : tour::player_types())
    if (type == "bot") CHECK_THAT(desc, Catch::Contains("value_net") && Catch::Contains("checkpoint"));
  clear_net_evaluators();
}

TEST_CASE("a resumed run's config: incoherent changes are refused, others listed") {
  const std::string base = "run: {pitch: 8x10}\nevaluate: {games: 4}\n";
  const auto changes = compare_run_configs(
      base, "run: {pitch: 8x10}\nevaluate: {games: 6, vs_greedy: false}\n", "runs/x/config.yaml");
  REQUIRE(changes.size() == 2);
  CHECK(changes[0].key == "evaluate.games");
  CHECK(changes[0].old_value == "4");
  CHECK(changes[0].new_value == "6");
  CHECK(changes[1].key == "evaluate.vs_greedy");
  CHECK(changes[1].old_value == "absent");
  CHECK(changes[1].new_value == "false");
  // The same pitch written differently is no change of the rules.
  CHECK(compare_run_configs(base, "run: {pitch: 8x10g2}\nevaluate: {games: 4}\n", "c").size() == 1);
  CHECK_THROWS_WITH(compare_run_configs(base, "run: {pitch: 8x12}\nevaluate: {games: 4}\n", "runs/x/config.yaml"),
                    Catch::Contains("runs/x/config.yaml: the run was started with another run.pitch (8x10 -> 8x12)"));
  CHECK_THROWS_WITH(compare_run_configs(base, base + "train: {net: {preset: medium, blocks: 3}}\n", "c"),
                    Catch::Contains("train.net"));
  CHECK_THROWS_WITH(compare_run_configs(base, base + "run2: {}\n", "c"), Catch::Contains("run2"));
}

TEST_CASE("Wilson interval") {
  auto [lo, hi] = wilson_interval(15, 20);
  CHECK(lo == Approx(0.531).epsilon(0.01));
  CHECK(hi == Approx(0.888).epsilon(0.01));
  auto [l0, h0] = wilson_interval(0, 10);
  CHECK(l0 == 0.0);
  CHECK(h0 < 0.31);
}

// A run of two self-play games per generation on 6x8, in `dir`; `evaluate_more` is appended to
// its evaluate: map (games 2, final_games 4).
static std::string two_game_run_yaml(const fs::path& dir, int generations, const std::string& evaluate_more) {
  return "run: {name: tiny, generations: " + std::to_string(generations) +
         ", pitch: 6x8, dir: " + dir.string() +
         "}\n"
         "service: {max_batch: 8, batch_timeout_us: 200}\n"
         "selfplay: {games: 2, concurrent_games: 2, visits: 4, cheap_visits: 2, games_per_chunk: 2}\n"
         "train: {net: {preset: tiny}, threads: 1, batch_size: 16, steps: 4, checkpoint_interval: 5, "
         "log_interval: 5}\n"
         "evaluate: {games: 2, final_games: 4, visits: 4, opening_turns: 1, concurrency: 2" +
         evaluate_more + "}\n";
}

TEST_CASE("a run stopped after its evaluation games keeps them and does not play them again") {
  // Regression: a Ctrl-C during an evaluation threw its finished games away (the tournament
  // was not resumed, and a stop after the last game still counted as unfinished): the next
  // start played all of them again, 212 games in the last generation of quickstart-long.
  ps::test::TempDir tmp("eval_resume");
  const fs::path dir = tmp.path / "run";
  const RunConfig cfg = parse_run_config(two_game_run_yaml(dir, 1, ""), "tiny.yaml");
  run_training_loop(cfg);
  const fs::path games = dir / "eval" / "gen-0001" / "games.tsv";
  const fs::path outcomes = dir / "eval" / "gen-0001" / "outcomes.json";
  const std::string played = read_file(games.string());
  const auto mtime = fs::last_write_time(games);
  const auto before = nlohmann::json::parse(read_file(outcomes.string()));
  // As a run stopped after the last evaluation game, before its outcomes were written.
  fs::remove(outcomes);
  write_file_atomic((dir / "state.json").string(), R"({"generation": 0, "best": "gen-0000"})");
  run_training_loop(cfg);
  CHECK(read_file(games.string()) == played);
  CHECK(fs::last_write_time(games) == mtime);  // not truncated and played again
  const auto after = nlohmann::json::parse(read_file(outcomes.string()));
  CHECK(after["games"] == before["games"]);
  CHECK(nlohmann::json::parse(read_file((dir / "state.json").string()))["generation"] == 1);
}

TEST_CASE("a run on a device the machine lacks is refused before anything is written") {
  // Regression: train.device: cuda on a machine without CUDA failed after generation 1's
  // self-play, naming no key; then named the key but not the file and line.
  bool has_cuda = true;
  try {
    (void)nn::parse_device("cuda");
  } catch (const std::exception&) {
    has_cuda = false;
  }
  if (has_cuda) return;  // nothing to refuse on this machine
  ps::test::TempDir tmp("no_cuda");
  const fs::path dir = tmp.path / "run";
  for (const char* key : {"train", "service"}) {
    const RunConfig cfg =
        parse_run_config("run: {name: tiny, generations: 1, pitch: 6x8, dir: " + dir.string() + "}\n" + key +
                             ": {device: cuda}\n",
                         "tiny.yaml");
    CHECK_THROWS_WITH(run_training_loop(cfg),
                      Catch::StartsWith("tiny.yaml: " + std::string(key) + ".device (line 2): ") &&
                          Catch::Contains("CUDA is not available"));
    CHECK_FALSE(fs::exists(dir));
  }
}

// Regression (the trainer role): it waited for self-play and failed only when its first
// generation's games had arrived, hours later on a cluster.
TEST_CASE("a run or trainer role whose teacher games are missing is refused before anything is written") {
  ps::test::TempDir tmp("no_teacher");
  const fs::path dir = tmp.path / "run", missing = tmp.path / "teacher-games";
  const RunConfig cfg =
      parse_run_config("run: {name: tiny, generations: 1, pitch: 6x8, dir: " + dir.string() +
                           "}\ntrain: {teacher: {data: " + missing.string() + "}}\n",
                       "tiny.yaml");
  const std::string error =
      "train.teacher.data: " + missing.string() + ": training data directory does not exist";
  CHECK_THROWS_WITH(run_training_loop(cfg), error);
  CHECK_THROWS_WITH(run_trainer(cfg, nullptr), error);
  CHECK_FALSE(fs::exists(dir));
}

TEST_CASE("the verdict plays the best network against generation 0 and keeps the games of a stopped one") {
  // A gated run's best network may be earlier than its last generation: the verdict, and the
  // best.model it rates, are of the best (it was the last generation's score).
  ps::test::TempDir tmp("verdict");
  const fs::path dir = tmp.path / "run";
  const RunConfig cfg =
      parse_run_config(two_game_run_yaml(dir, 2, ", vs_random: false, vs_greedy: false"), "tiny.yaml");
  run_training_loop(cfg);
  const fs::path verdict = dir / "eval" / "verdict-gen-0002";
  const fs::path games = verdict / "games.tsv", outcomes = verdict / "outcomes.json";
  const std::string state_path = (dir / "state.json").string();
  const std::string log = (dir / "logs" / "verdict.jsonl").string();  // written last
  REQUIRE(fs::exists(outcomes));
  // As a run stopped after the verdict's last game, before its outcomes were written.
  const std::string played = read_file(games.string());
  const auto mtime = fs::last_write_time(games);
  const auto before = nlohmann::json::parse(read_file(outcomes.string()));
  fs::remove(outcomes);
  fs::remove(log);
  write_file_atomic(state_path, R"({"generation": 2, "best": "gen-0002"})");
  run_training_loop(cfg);
  CHECK(read_file(games.string()) == played);
  CHECK(fs::last_write_time(games) == mtime);  // not played again
  CHECK(nlohmann::json::parse(read_file(outcomes.string()))["games"] == before["games"]);
  CHECK(nlohmann::json::parse(read_file(state_path))["phase"] == "finished");
  // As a run stopped after outcomes.json, before the log line (the verdict's last step): the
  // steps after the games are done again (the line was never written, and the report had no
  // verdict). The gatekeeper role finishes a verdict as `run` does, and writes the report.
  fs::remove(log);
  fs::remove(dir / "report.html");
  run_gatekeeper(cfg, nullptr);
  CHECK(fs::last_write_time(games) == mtime);
  REQUIRE(fs::exists(log));
  CHECK(nlohmann::json::parse(read_file(log))["after_generation"] == 2);
  CHECK_THAT(read_file((dir / "report.html").string()), Catch::Contains("Verdict: gen-0002 vs gen-0000"));
  // A verdict of an earlier last generation (a run resumed with more generations, before its
  // new verdict) is not shown as the run's.
  const std::string logged = read_file(log);
  write_file_atomic(
      log, R"({"after_generation": 1, "network": "gen-0001", "opponent": "gen-0000", "wins": 3, "games": 4})"
           "\n");
  report::write_report(dir.string());
  CHECK_THAT(read_file((dir / "report.html").string()), !Catch::Contains("Verdict"));
  write_file_atomic(log, logged);
  // The verdict played again from scratch with `best` as the run's best network.
  auto verdict_with_best = [&](const std::string& best) {
    ps::remove_tree(verdict.string());
    fs::remove(log);
    write_file_atomic(state_path, R"({"generation": 2, "best": ")" + best + "\"}");
    run_training_loop(cfg);
    return nlohmann::json::parse(read_file(outcomes.string()));
  };
  // As a gated run that kept generation 1 over generation 2.
  const auto kept = verdict_with_best("gen-0001");
  CHECK(kept["network"] == "gen-0001");
  CHECK(kept["games"].size() == 4);
  for (const auto& game : kept["games"]) {
    const std::set<std::string> pair{game["winner"].get<std::string>(), game["loser"].get<std::string>()};
    CHECK(pair == std::set<std::string>{"gen-0000", "gen-0001"});
  }
  const nn::CheckpointMeta meta = nn::read_checkpoint_meta((dir / "best.model").string());
  const auto ratings = nlohmann::json::parse(read_file((dir / "ratings.json").string()));
  bool rated = false;
  for (const auto& p : ratings["players"])
    if (p["name"] == "gen-0001") {
      rated = true;
      CHECK(p["elo"].get<double>() == Approx(meta.rating_elo));  // best.model rated with its games
    }
  CHECK(rated);
  CHECK(report::load_run(dir.string()).verdict->network == "gen-0001");
  // No generation promoted: nothing to play, and the report says so.
  const auto none = verdict_with_best("gen-0000");
  CHECK(none["network"] == "gen-0000");
  CHECK(none["games"].empty());
  CHECK_FALSE(fs::exists(games));
  const report::RunData run = report::load_run(dir.string());
  REQUIRE(run.verdict);
  CHECK(run.verdict->games == 0);
  CHECK_THAT(read_file((dir / "report.html").string()), Catch::Contains("no generation promoted"));
}

TEST_CASE("a tiny loop runs end to end and a second call resumes without redoing work") {
  const fs::path dir = fs::temp_directory_path() / ("ps_loop_" + std::to_string(::getpid()));
  ps::remove_tree(fs::path(dir).string());
  const std::string yaml =
      "run: {name: tiny, generations: 2, pitch: 6x8, dir: " + dir.string() +
      "}\n"
      "service: {max_batch: 8, batch_timeout_us: 200}\n"
      "selfplay: {games: 4, concurrent_games: 4, visits: 8, cheap_visits: 4, games_per_chunk: 2}\n"
      "train: {net: {preset: tiny}, threads: 1, batch_size: 16, steps: 10, checkpoint_interval: 5, "
      "log_interval: 5}\n"
      "evaluate: {games: 2, final_games: 4, visits: 4, opening_turns: 1, "
      "concurrency: 2}\n";
  RunConfig cfg = parse_run_config(yaml, "tiny.yaml");
  // Stop after generation 1 (as an interrupted run would), then resume to the end.
  RunConfig first = cfg;
  first.generations = 1;
  run_training_loop(first);
  CHECK(fs::exists(dir / "checkpoints" / "gen-0001.ckpt"));
  CHECK_FALSE(fs::exists(dir / "checkpoints" / "gen-0002.ckpt"));
  const auto mtime = fs::last_write_time(dir / "checkpoints" / "gen-0001.ckpt");
  // Regression: a resume with a changed config went on silently. A changed pitch is refused
  // before anything is written; a changed evaluation key is applied and logged.
  std::string wide = yaml;
  wide.replace(wide.find("pitch: 6x8"), 10, "pitch: 8x10");
  CHECK_THROWS_WITH(run_training_loop(parse_run_config(wide, "wide.yaml")),
                    Catch::Contains("run.pitch (6x8 -> 8x10)") && Catch::Contains("selfplay.pitches"));
  CHECK_FALSE(fs::exists(dir / "logs" / "config.jsonl"));
  std::string more = yaml;
  more.replace(more.find("concurrency: 2"), 14, "concurrency: 1");
  // The run's own first games become its reference games (evaluate.reference): every
  // generation, 0 included, is scored on them once the run reaches its next generation.
  const std::string reference = (dir / "data" / "gen0000-000000.psd").string();
  more.replace(more.find("concurrency: 1"), 14, "concurrency: 1, reference: " + reference);
  cfg = parse_run_config(more, "tiny.yaml");
  CHECK(cfg.evaluate.reference == reference);
  run_training_loop(cfg);
  CHECK_THAT(read_file((dir / "logs" / "config.jsonl").string()),
             Catch::Contains("\"key\":\"evaluate.concurrency\"") && Catch::Contains("\"after_generation\":1"));
  {
    std::istringstream lines(read_file((dir / "logs" / "reference.jsonl").string()));
    int next = 0;
    for (std::string l; std::getline(lines, l); ++next) {
      const auto j = nlohmann::json::parse(l);
      CHECK(j["generation"] == next);
      CHECK(j["positions"].get<int>() > 0);
      CHECK(j["value_mse"].get<double>() >= 0);
      CHECK(j["policy_top1"].get<double>() <= 1);
      CHECK(j["games_checksum"].get<std::string>().size() == 16);
    }
    CHECK(next == 3);  // generations 0, 1, 2
    const report::RunData run = report::load_run(dir.string());
    REQUIRE(run.reference.size() == 3);
    CHECK(run.reference[2].generation == 2);
    CHECK(run.reference[2].value_mse >= 0);
    CHECK_THAT(read_file((dir / "report.html").string()), Catch::Contains("Reference games"));
  }
  CHECK(read_file((dir / "config.yaml").string()) == more);
  CHECK(fs::last_write_time(dir / "checkpoints" / "gen-0001.ckpt") == mtime);  // not redone
  CHECK(fs::exists(dir / "checkpoints" / "gen-0002.ckpt"));
  auto state = nlohmann::json::parse(read_file((dir / "state.json").string()));
  CHECK(state["generation"] == 2);
  CHECK(state["phase"] == "finished");
  // 4 opponents in generation 2, the last, as in every generation (previous, generation 0,
  // random, greedy: 2 games each).
  auto outcomes = nlohmann::json::parse(read_file((dir / "eval" / "gen-0002" / "outcomes.json").string()));
  CHECK(outcomes["games"].size() == 8);
  // The verdict: the best network (the last: the run is not gated) against generation 0,
  // final_games 4, each pair of games from its own opening (a visit-limited net repeats its
  // game from the same opening and colours: 2 of the 4 games would be repeats).
  const fs::path verdict = dir / "eval" / "verdict-gen-0002";
  auto v = nlohmann::json::parse(read_file((verdict / "outcomes.json").string()));
  CHECK(v["network"] == "gen-0002");
  CHECK(v["after_generation"] == 2);
  CHECK(v["games"].size() == 4);
  CHECK(v["scores"]["gen-0000"]["games"] == 4);
  std::map<std::string, int> openings_played;
  std::istringstream tsv(read_file((verdict / "games.tsv").string()));
  for (std::string line; std::getline(tsv, line);) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, '\t');) f.push_back(x);
    if (f.size() > 6 && f[6] != "opening") {  // not the header line
      CHECK(((f[1] == "gen-0000" && f[2] == "gen-0002") || (f[1] == "gen-0002" && f[2] == "gen-0000")));
      ++openings_played[f[6]];
    }
  }
  CHECK(openings_played == std::map<std::string, int>{{"0", 2}, {"1", 2}});
  {
    const report::RunData run = report::load_run(dir.string());
    REQUIRE(run.verdict);
    CHECK(run.verdict->network == "gen-0002");
    CHECK(run.verdict->games == 4);
    CHECK(run.verdict->wins == v["scores"]["gen-0000"]["wins"].get<int>());
    CHECK_THAT(read_file((dir / "report.html").string()), Catch::Contains("Verdict: gen-0002 vs gen-0000"));
  }
  auto ratings = nlohmann::json::parse(read_file((dir / "ratings.json").string()));
  CHECK(ratings["anchor"] == "random");
  CHECK(ratings["players"].size() == 5);  // random, greedy, gen-0000, gen-0001, gen-0002
  CHECK(fs::exists(dir / "report.html"));
  nn::CheckpointMeta meta = nn::read_checkpoint_meta((dir / "best.model").string());
  CHECK(meta.pitches == std::vector<std::string>{"6x8"});
  CHECK(std::isfinite(meta.rating_elo));
  CHECK(fs::exists(dir / "data" / "gen0001-000000.psd"));
  // A finished run whose best.model was deleted, or cut to 500 bytes, writes it again from the
  // best network's checkpoint when it is run again (it exited 0 naming a file that was gone).
  for (int cut : {0, 500}) {
    const std::string best = (dir / "best.model").string();
    if (cut == 0) fs::remove(best);
    else write_file_atomic(best, read_file(best).substr(0, size_t(cut)));
    run_training_loop(cfg);
    CHECK(nn::read_checkpoint_meta(best).pitches == std::vector<std::string>{"6x8"});
  }
  // The last generation's checkpoint cut in half: the finished run is not reported finished over
  // it (it exited 0 naming best.model), and the report names it (it said every file present was
  // read completely).
  {
    const std::string last = (dir / "checkpoints" / "gen-0002.ckpt").string();
    const std::string whole = read_file(last);
    write_file_atomic(last, whole.substr(0, whole.size() / 2));
    CHECK_THROWS_WITH(run_training_loop(cfg), Catch::Contains(last) && Catch::Contains("truncated"));
    const report::RunData run = report::load_run(dir.string());
    CHECK(std::count_if(run.notes.begin(), run.notes.end(), [](const std::string& n) {
            return n.rfind("checkpoints/gen-0002.ckpt: truncated or padded: ", 0) == 0;
          }) == 1);
    write_file_atomic(last, whole);
    write_file_atomic((dir / "best.model").string(), "cut");
    CHECK_THAT(
        report::load_run(dir.string()).notes,
        Catch::VectorContains(std::string(
            "best.model: not a papersoccer net checkpoint (bad magic or too short); it will not load")));
    run_training_loop(cfg);
    for (const std::string& note : report::load_run(dir.string()).notes)
      CHECK_FALSE((note.rfind("best.model", 0) == 0 || note.rfind("checkpoints/", 0) == 0));
  }
  // Regression: a line of logs/reference.jsonl cut by a kill had the next line appended to it,
  // and neither parsed. One more generation: the cut line is dropped and generation 2 scored again.
  {
    const std::string log = (dir / "logs" / "reference.jsonl").string();
    const std::string text = read_file(log);
    write_file_atomic(log, text.substr(0, text.size() - 20));
    RunConfig three = cfg;
    three.generations = 3;
    run_training_loop(three);
    std::istringstream lines(read_file(log));
    std::vector<int> gens;
    for (std::string l; std::getline(lines, l);)
      gens.push_back(nlohmann::json::parse(l)["generation"].get<int>());
    CHECK(gens == std::vector<int>{0, 1, 2, 3});
  }
  // A reference path that is missing, or holds no game of the run's rules, is refused when the
  // run starts, naming the config's line, before anything is written (parsing leaves it: the
  // roles that never score parse it too).
  {
    const fs::path other = dir.string() + "_ref";
    ps::remove_tree(other.string());
    for (const auto& [ref, why] :
         {std::pair<std::string, std::string>{"no/such.psd", "no such file or folder no/such.psd"},
          {PS_SOURCE_DIR "/models/reference-8x10-standard",
           "holds no game of the run's rules (6x8 standard)"}}) {
      std::string y = yaml;
      y.replace(y.find("dir: " + dir.string()), 5 + dir.string().size(), "dir: " + other.string());
      y.replace(y.find("concurrency: 2"), 14, "concurrency: 2, reference: " + ref);
      CHECK_THROWS_WITH(run_training_loop(parse_run_config(y, "ref.yaml")),
                        Catch::StartsWith("ref.yaml: evaluate.reference (line ") && Catch::Contains(why));
      CHECK_FALSE(fs::exists(other));
    }
    ps::remove_tree(other.string());
  }
  // A damaged state.json is refused, naming the file and the field.
  const std::string state_path = (dir / "state.json").string();
  for (const char* bad :
       {R"({"generation": 2, "best": "../../../etc/passwd"})", R"({"generation": -1})",
        R"({"generation": 1e20})", R"({"generation": "x"})", R"({"generation": 1, "best": "gen-0002"})"}) {
    INFO(bad);
    write_file_atomic(state_path, bad);
    CHECK_THROWS_WITH(run_training_loop(cfg), Catch::Contains(state_path));
  }
  // 1e20 is named as written (read as an int it was said to be -2147483648).
  write_file_atomic(state_path, R"({"generation": 1e20})");
  CHECK_THROWS_WITH(run_training_loop(cfg),
                    Catch::Contains(state_path + ": \"generation\" 1e+20 is not in [0, 100000]"));
  ps::remove_tree(fs::path(dir).string());
}

TEST_CASE("run config bounds: threads, batch size and the run name are refused when read") {
  // Regression: an empty config file ran every default (a 10-generation run) without a word.
  const std::string empty =
      (fs::temp_directory_path() / ("ps_empty_" + std::to_string(::getpid()) + ".yaml")).string();
  write_file_atomic(empty, "# nothing\n");
  CHECK_THROWS_WITH(load_run_config(empty), Catch::Contains(empty + ": the config is empty"));
  fs::remove(empty);
  CHECK_THROWS_WITH(parse_run_config("train: {threads: 1000000}\n", "r.yaml"),
                    Catch::Contains("r.yaml: train.threads (line 1): must be in [0, 256]"));
  CHECK_THROWS_WITH(parse_run_config("train: {batch_size: 2000000000}\n", "r.yaml"),
                    Catch::Contains("r.yaml: train.batch_size (line 1): must be in [1, 65536]"));
  CHECK_THROWS_WITH(parse_run_config(std::string("run: {name: a") + char(0xff) + "}\n", "r.yaml"),
                    Catch::Contains("r.yaml: run.name (line 1): must be UTF-8 text"));
  CHECK_THROWS_WITH(parse_run_config("run: {generations: 1000000000}\n", "r.yaml"),
                    Catch::Contains("run.generations"));
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
