// The training loop and its parts as commands:
//   run [CONFIG]        the self-play -> train -> evaluate loop (built-in quickstart without CONFIG)
//   selfplay CONFIG     self-play games only (selfplay: and service: maps; --net CHECKPOINT)
//   selfplay --follow RUNDIR [CONFIG] [--worker ID]
//                       the self-play worker role over a shared run directory (loop/roles.h)
//   train CONFIG        training only (train: map; --data DIR --from CKPT --out CKPT)
//   train --follow RUNDIR [CONFIG]   the trainer role
//   gatekeeper RUNDIR [--config CONFIG]   the gatekeeper role
//   export CKPT OUT     a self-contained model file for `bot` (--single-file OUT.cpp: one C++ source,
//                       apps/cmd_export_single_file.cpp; of a .vnet: the alpha-beta bot)
//   init-net OUT        a freshly initialised network checkpoint (generation 0: random weights)
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "apps/commands.h"
#include "core/fileutil.h"
#include "core/progress.h"
#include "loop/phases.h"
#include "loop/players.h"
#include "loop/role_claim.h"
#include "loop/roles.h"
#include "loop/run.h"
#include "loop/run_dir.h"
#include "loop/value_net_run.h"
#include "nn/checkpoint.h"

namespace ps::cmd {

namespace {

std::atomic<bool> g_cancel{false};
std::atomic<int> g_signal{SIGINT};  // the first stop signal: the exit status is 128 + it

void on_signal(int sig) {
  if (g_cancel.exchange(true)) std::_Exit(128 + sig);  // second Ctrl-C: leave at once
  g_signal = sig;
  const char msg[] = "\nstopping after the current turn, game or step; Ctrl-C again to quit now\n";
  ssize_t ignored = ::write(2, msg, sizeof msg - 1);
  (void)ignored;
}

void install_signal_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

// The top level of a `selfplay` or `train` config: the sections of a run config that the
// command does not use are allowed (a run config serves as is), any other key is an error
// (a misspelt `selfpaly:` was ignored, and the defaults played).
void finish_top_level(ConfigReader& top) {
  for (const char* section : {"run", "service", "selfplay", "train", "evaluate"}) (void)top.child(section);
  top.finish();
}

// After a command that stops on request: the exit status says so (130 after SIGINT, 143 after
// SIGTERM).
void exit_if_stopped() {
  if (!g_cancel) return;
  std::cerr << "stopped; run the same command again to resume\n";
  throw StoppedOnRequest{128 + g_signal.load()};
}

// Options every role of a shared run directory takes.
struct FollowOptions {
  std::string run_dir;
  int generations = 0;
  RoleOptions role;
};

void add_follow_options(CLI::App* cmd, FollowOptions& f) {
  cmd->add_option("--generations", f.generations,
                  "number of generations of the run (overrides run.generations; >= 1): the role ends "
                  "when they are done")
      ->check(integer_at_least(1));
  cmd->add_option("--poll", f.role.poll_seconds, "seconds between looks at the run directory while waiting")
      ->capture_default_str()
      ->check(in_range(0.1, 3600.0));
  cmd->add_option("--heartbeat", f.role.claim.heartbeat_s,
                  "seconds between heartbeats of the role's claim in RUNDIR/claims/ (another "
                  "machine takes the claim of a dead process over after 3 unchanged ones)")
      ->capture_default_str()
      ->check(in_range(kMinHeartbeatS, kMaxHeartbeatS));
}

// The role's config (RUNDIR/config.yaml, started from `config` when given; waits for it
// otherwise); after a stop request while waiting, exits as stopped.
RunConfig follow_config(const FollowOptions& f, const std::string& config) {
  install_signal_handlers();
  std::optional<RunConfig> cfg =
      load_shared_run_config(f.run_dir, config, f.generations, f.role.poll_seconds, &g_cancel);
  exit_if_stopped();
  return *cfg;
}

// The options of `run`.
struct RunArgs {
  std::string config, dir;
  int generations = 0;
};

// The main job over the run directory (the built-in quickstart config without a.config).
void run_main_job(const RunArgs& a) {
  if (!a.config.empty()) {
    std::string text;
    try {
      text = read_file(a.config, 1 << 20);
    } catch (const std::exception&) {
      throw ConfigError(a.config + ": cannot open config file");
    }
    if (is_value_net_run_config(text)) {  // run.learner: value-net (loop/value_net_run.h)
      VnetRunConfig vc = parse_vnet_run_config(text, a.config);
      if (!a.dir.empty()) vc.dir = a.dir;
      if (a.generations > 0) vc.generations = a.generations;
      install_signal_handlers();
      run_value_net_loop(vc, &g_cancel);
      exit_if_stopped();
      return;
    }
  }
  RunConfig cfg = a.config.empty() ? parse_run_config(quickstart_config_text(), "<built-in quickstart>")
                                   : load_run_config(a.config);
  if (!a.dir.empty()) cfg.dir = a.dir;
  if (a.generations > 0) cfg.generations = a.generations;
  install_signal_handlers();
  run_training_loop(cfg, &g_cancel);
  exit_if_stopped();
}

void register_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* run = app.add_subcommand(
      "run",
      "The learning loop, resumable: run.learner resnet (self-play -> train -> evaluate, AlphaZero) or value-net "
      "(teacher games -> train -> gate -> promote, the alpha-beta bot's net); without CONFIG the built-in quickstart");
  run->add_option("config", a->config, "YAML config (see configs/quickstart.yaml)");
  run->add_option("--dir", a->dir, "run directory (overrides run.dir)");
  run->add_option("--generations", a->generations, "number of generations (overrides run.generations; >= 1)")
      ->check(integer_at_least(1));
  run->callback([a] { run_main_job(*a); });
}

// The options of `selfplay`.
struct SelfplayArgs {
  std::string config, net, out = "selfplay-data", prefix = "selfplay", worker;
  FollowOptions follow;
};

// The text of the run config a role follows when it can be read now: CONFIG when given, else
// RUNDIR/config.yaml when present; "" otherwise.
std::string follow_config_text(const FollowOptions& f, const std::string& config) {
  const std::string shared = f.run_dir + "/config.yaml";
  if (config.empty() && !std::filesystem::exists(shared)) return "";
  const std::string& path = config.empty() ? shared : config;
  try {
    return read_file(path, 1 << 20);
  } catch (const std::exception&) {
    throw ConfigError(path + ": cannot open config file");
  }
}

// The trainer and gatekeeper roles are the resnet learner's: a value-net run is refused by name.
void refuse_value_net_run(const FollowOptions& f, const std::string& config, const std::string& role) {
  if (!is_value_net_run_config(follow_config_text(f, config))) return;
  throw ConfigError((config.empty() ? f.run_dir + "/config.yaml" : config) +
                    ": a value-net run (run.learner: value-net) has no " + role +
                    " role: `run CONFIG --dir " + f.run_dir +
                    "` trains and gates it, and `selfplay --follow " + f.run_dir +
                    "` workers add its teacher games (docs/SCALING.md)");
}

// `selfplay --follow` of a value-net run: its teacher worker (loop/value_net_run.h). False for
// a resnet run. A value-net CONFIG starts RUNDIR/config.yaml when it is missing and must match
// its keys otherwise, as the resnet roles' does; without CONFIG the worker waits for the file.
bool follow_value_net_run(const SelfplayArgs& a, const std::string& id) {
  const std::string shared = a.follow.run_dir + "/config.yaml";
  install_signal_handlers();
  if (a.config.empty() && !std::filesystem::exists(shared)) {
    if (std::filesystem::exists(a.follow.run_dir) && !std::filesystem::is_directory(a.follow.run_dir))
      throw ConfigError(a.follow.run_dir + ": not a directory (a run directory holds config.yaml)");
    std::printf(
        "waiting for %s (the run's first process brings it: `run CONFIG --dir %s`, or a role "
        "given CONFIG)\n",
        shared.c_str(), a.follow.run_dir.c_str());
    std::fflush(stdout);
    if (!wait_until_ready([&] { return std::filesystem::exists(shared); }, a.follow.role.poll_seconds,
                          &g_cancel))
      exit_if_stopped();
  }
  const std::string text = follow_config_text(a.follow, a.config);
  if (!is_value_net_run_config(text)) return false;
  if (!a.config.empty()) {
    (void)parse_vnet_run_config(text, a.config);  // its errors name CONFIG, before anything is written
    ensure_directory(a.follow.run_dir, "the run directory");
    if (!create_file_exclusive(shared, text)) {
      const std::string old = read_file(shared, 1 << 20);
      const std::vector<ConfigChange> changes =
          old == text ? std::vector<ConfigChange>{} : changed_config_keys(old, text);
      if (!changes.empty())
        throw ConfigError(a.config + " differs from " + shared + " at " + changes.front().key + " (" +
                          changes.front().old_value + " there, " + changes.front().new_value +
                          " here): start the worker without CONFIG to use the run directory's, or put "
                          "one of the two right");
    }
  }
  VnetRunConfig vc = parse_vnet_run_config(read_file(shared, 1 << 20), shared);
  vc.dir = a.follow.run_dir;
  if (a.follow.generations > 0) vc.generations = a.follow.generations;
  run_value_net_teacher_worker(vc, id, &g_cancel, a.follow.role);
  exit_if_stopped();
  return true;
}

// `selfplay CONFIG --net CKPT`: games into a folder; `selfplay --follow RUNDIR`: the worker role.
void run_selfplay_command(const SelfplayArgs& a) {
  if (!a.follow.run_dir.empty()) {
    const std::string id = a.worker.empty() ? default_worker_id() : a.worker;
    check_worker_id(id);
    if (follow_value_net_run(a, id)) return;
    const RunConfig cfg = follow_config(a.follow, a.config);
    run_selfplay_worker(cfg, id, &g_cancel, a.follow.role);
    exit_if_stopped();
    return;
  }
  if (a.config.empty() || a.net.empty())
    throw UsageError("selfplay: CONFIG and --net CHECKPOINT are required (or --follow RUNDIR)");
  ConfigReader top = ConfigReader::from_file(a.config);
  ConfigReader s = top.child("service");
  nn::ServiceOptions so = nn::parse_service_options(s);
  s.finish();
  ConfigReader r = top.child("selfplay");
  SelfplayConfig cfg = parse_selfplay_config(r);
  finish_top_level(top);
  install_signal_handlers();
  // The network first: one that does not load leaves no folder behind.
  auto eval = nn::make_net_evaluator(a.net, so);
  const auto claim = claim_chunk_folder(a.out, a.prefix);  // one writer per --out and --prefix
  ProgressLine line;
  SelfplayStats st = run_selfplay(
      cfg, *eval, a.net, a.out, a.prefix,
      [&](const SelfplayStats& s, int64_t target) {
        line.update(std::to_string(s.games) + "/" + std::to_string(target) + " games: " + s.summary());
      },
      &g_cancel);
  line.finish();
  std::printf("%s\n", st.summary().c_str());
}

void register_selfplay(CLI::App& app) {
  auto a = std::make_shared<SelfplayArgs>();
  auto* sp = app.add_subcommand(
      "selfplay", "Play self-play games with a network, write training data; with --follow RUNDIR, "
                  "a self-play worker of a shared run directory (docs/SCALING.md)");
  sp->add_option(
      "config", a->config,
      "YAML with selfplay: and service: maps; with --follow, a run config that starts "
      "RUNDIR/config.yaml when it is missing (and must match its keys otherwise; comments do not count)");
  auto* net = sp->add_option("--net", a->net, "network checkpoint (not with --follow)");
  auto* out = sp->add_option("--out", a->out, "output directory (not with --follow)")->capture_default_str();
  auto* prefix =
      sp->add_option("--prefix", a->prefix, "chunk file prefix (not with --follow)")->capture_default_str();
  auto* f = sp->add_option("--follow", a->follow.run_dir,
                           "run directory to work for: plays with its best network until the run is "
                           "finished, picking up each new one between games (a value-net run: the "
                           "best bot's teacher games of each generation)");
  f->excludes(net)->excludes(out)->excludes(prefix);
  sp->add_option("--worker", a->worker,
                 std::string("with --follow: this worker's id in chunk names (") + kWorkerIdRule +
                     "); the same id after a restart continues its chunk sequence [default: HOST_PID]")
      ->needs(f)
      ->check([](const std::string& id) {  // also "" (it fell back to the default id)
        try {
          check_worker_id(id);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      });
  sp->add_option("--max-games", a->follow.role.max_games,
                 "with --follow: store exactly this many games, then end (0: no cap)")
      ->needs(f)
      ->check(integer_at_least(0));
  sp->add_option("--max-ahead", a->follow.role.max_ahead,
                 "with --follow: wait while this worker's own stored self-play would let the trainer "
                 "train this many times its trained generations + 1 (a worker without a trainer "
                 "stops filling data/; 0: never wait)")
      ->needs(f)
      ->capture_default_str()
      ->check(integer_at_least(0));
  add_follow_options(sp, a->follow);
  sp->callback([a] { run_selfplay_command(*a); });
}

// Refuses an output file path that cannot be written, before any work: a directory (named as
// "<option> PATH is a directory: give <noun>'s file name"), or a parent directory that cannot
// be made (ensure_directory names the part and why). `noun` is what the command writes.
void check_output_file(const std::string& path, const std::string& option, const std::string& noun) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec) || (!path.empty() && path.back() == '/'))
    throw std::invalid_argument(option + " " + path + " is a directory: give " + noun + "'s file name");
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) ensure_directory(parent.string(), "the directory of " + noun + " " + path + ",");
}

// The options of `train`.
struct TrainArgs {
  std::string config, data, from, out, log;
  FollowOptions follow;
};

// `train CONFIG --data DIR --out CKPT`: one training call; `train --follow RUNDIR`: the trainer role.
void run_train_command(const TrainArgs& a) {
  if (!a.follow.run_dir.empty()) {
    refuse_value_net_run(a.follow, a.config, "trainer");
    const RunConfig cfg = follow_config(a.follow, a.config);
    run_trainer(cfg, &g_cancel, a.follow.role);
    exit_if_stopped();
    return;
  }
  if (a.config.empty() || a.data.empty() || a.out.empty())
    throw UsageError("train: CONFIG, --data DIR and --out CHECKPOINT are required (or --follow RUNDIR)");
  ConfigReader top = ConfigReader::from_file(a.config);
  ConfigReader r = top.child("train");
  TrainConfig cfg = parse_train_config(r);
  finish_top_level(top);
  // Refuse an --out that cannot be written before any training, not after it.
  check_output_file(a.out, "train: --out", "the checkpoint");
  install_signal_handlers();
  ProgressLine line;
  TrainResult res = train_network(
      cfg, a.data, a.from, a.out, a.log, "",
      [&](const TrainMetrics& m, int64_t target) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "step %lld/%lld policy %.3f value %.3f %s %.0f samples/s",
                      (long long)m.step, (long long)target, m.policy_loss, m.value_loss,
                      policy_accuracy_text(m).c_str(), m.samples_per_s);
        line.update(buf);
      },
      &g_cancel);
  line.finish();
  std::printf("trained steps %lld -> %lld (%.0f samples/s, window %lld of %lld samples%s)%s\n",
              (long long)res.start_step, (long long)res.end_step, res.samples_per_s,
              (long long)res.window_samples, (long long)res.total_samples,
              teacher_share_text(cfg, res).c_str(),
              res.end_step < res.start_step + cfg.steps ? "; interrupted, run again to resume" : "");
}

void register_train(CLI::App& app) {
  auto a = std::make_shared<TrainArgs>();
  auto* tr = app.add_subcommand(
      "train", "Train a network on self-play data; with --follow RUNDIR, the trainer of a shared "
               "run directory (docs/SCALING.md)");
  tr->add_option("config", a->config,
                 "YAML with a train: map; with --follow, a run config that starts RUNDIR/config.yaml "
                 "when it is missing (and must match its keys otherwise; comments do not count)");
  auto* data = tr->add_option("--data", a->data, "training data directory (*.psd chunks; not with --follow)");
  auto* from = tr->add_option("--from", a->from, "checkpoint to start from (default: a new net)");
  auto* out = tr->add_option("--out", a->out, "checkpoint to write (not with --follow)");
  auto* log = tr->add_option("--log", a->log, "metrics log (JSON lines)");
  tr->add_option("--follow", a->follow.run_dir,
                 "run directory to train for: each generation's candidate as soon as the data holds "
                 "enough new self-play (train.rows_per_sample), until run.generations")
      ->excludes(data)
      ->excludes(from)
      ->excludes(out)
      ->excludes(log);
  add_follow_options(tr, a->follow);
  tr->callback([a] { run_train_command(*a); });
}

// The options of `gatekeeper`.
struct GatekeeperArgs {
  std::string config;
  FollowOptions follow;
};

void register_gatekeeper(CLI::App& app) {
  auto a = std::make_shared<GatekeeperArgs>();
  auto* gk = app.add_subcommand(
      "gatekeeper", "Evaluate each candidate of a shared run directory against the best network and "
                    "the baselines, keep the ratings, promote by the gating rule, export best.model "
                    "(docs/SCALING.md)");
  gk->add_option("rundir", a->follow.run_dir, "run directory")->required();
  gk->add_option(
      "--config", a->config,
      "run config that starts RUNDIR/config.yaml when it is missing (and must match its keys otherwise; comments do not count)");
  add_follow_options(gk, a->follow);
  gk->callback([a] {
    refuse_value_net_run(a->follow, a->config, "gatekeeper");
    // The reference games of a config it brings are checked before RUNDIR/config.yaml is
    // written from it: a refused path leaves nothing to differ from the corrected config.
    if (!a->config.empty()) (void)read_reference_set(load_run_config(a->config));
    const RunConfig cfg = follow_config(a->follow, a->config);
    run_gatekeeper(cfg, &g_cancel, a->follow.role);
    exit_if_stopped();
  });
}

// The options of `export`.
struct ExportArgs {
  std::string in, out, pitch, variant, single_file, bits = "auto";
  int64_t max_chars = 100000;
};

// A model file for `bot` from a checkpoint, or with --single-file one C++ source.
void run_export(const ExportArgs& a) {
  // The input given again as the output would be written over (a checkpoint by a model without
  // its optimizer state, a model by a C++ source) before anything is read from it.
  auto refuse_input_as_output = [&](const std::string& out, const std::string& option) {
    std::error_code ec;
    if (std::filesystem::equivalent(a.in, out, ec))
      throw UsageError("export: " + option + " " + out + " is the input " + a.in +
                       ": give another file name (export never writes over what it reads)");
  };
  if (!a.single_file.empty()) {
    if (!a.out.empty()) throw UsageError("export: give either OUT or --single-file OUT.cpp, not both");
    check_output_file(a.single_file, "export: --single-file", "the source");
    refuse_input_as_output(a.single_file, "--single-file");
    export_single_file(a.in, a.single_file, a.pitch, a.variant, a.bits == "auto" ? 0 : std::stoi(a.bits),
                       a.max_chars);
    return;
  }
  if (a.out.empty())
    throw UsageError("export: OUT (the model file to write) is required, or --single-file OUT.cpp");
  check_output_file(a.out, "export: OUT", "the model");
  refuse_input_as_output(a.out, "OUT");
  if (is_value_net_file(a.in))
    throw std::invalid_argument(
        "export: " + a.in +
        " is a value net: it exports only as the alpha-beta single file (--single-file OUT.cpp)");
  nn::LoadedCheckpoint ck = nn::load_checkpoint(a.in, "cpu");
  nn::CheckpointMeta meta = ck.meta;
  if (!a.pitch.empty()) {
    const PitchChoice pc = parse_pitch_spec(a.pitch);
    meta.pitches = {Pitch::get(pc.width, pc.length, pc.goal).name()};
  }
  if (!a.variant.empty()) meta.variants = {variant_name(parse_variant(a.variant))};
  nn::save_checkpoint(a.out, ck.net, meta);
  auto list = [](const std::vector<std::string>& v) {
    if (v.empty()) return std::string("any");
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ",") + x;
    return out;
  };
  std::printf("wrote %s: net %s, step %lld, pitches %s, variants %s\n", a.out.c_str(),
              meta.net.summary().c_str(), (long long)meta.training_step, list(meta.pitches).c_str(),
              list(meta.variants).c_str());
}

void register_export(CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  auto* ex = app.add_subcommand(
      "export", "Write a self-contained model file for `bot`, or with --single-file one C++17 "
                "source (standard library only) for bot arenas such as CodinGame");
  // Named for what they are: the input is a checkpoint or a model file either way; OUT is a
  // model file, and --single-file writes a C++ source instead.
  ex->add_option("CKPT_OR_MODEL", a->in,
                 "the checkpoint or model file to export (with --single-file also a value net .vnet: "
                 "the file then plays alpha-beta with it)")
      ->required();
  ex->add_option("OUT", a->out, "the model file to write (not with --single-file)");
  ex->add_option("--pitch", a->pitch, "pitch the model is for (e.g. 8x10), if not recorded")
      ->check(pitch_check());
  ex->add_option("--variant", a->variant, "variant the model is for, if not recorded")
      ->check(variant_check());
  ex->add_option("--single-file", a->single_file,
                 "write one self-contained C++17 source here instead: rules, search, inference, "
                 "quantised weights, CodinGame protocol (g++ -O2 -std=c++17 OUT.cpp)");
  ex->add_option("--max-chars", a->max_chars,
                 "with --single-file: the most characters the source may have (>= 1); a larger "
                 "one is an error and nothing is written")
      ->capture_default_str()
      ->check(integer_at_least(1));
  ex->add_option("--bits", a->bits,
                 "with --single-file: weight width 8, 4, auto (8 when it fits, else 4), or 32 "
                 "(float weights, for tests: no quantisation error)")
      ->capture_default_str()
      ->check(CLI::IsMember({"8", "4", "auto", "32"}));
  ex->callback([a] { run_export(*a); });
}

// The options of `init-net`.
struct InitNetArgs {
  std::string out, preset = "tiny", net, note;
  uint64_t seed = 1;
};

// A freshly initialised checkpoint of the preset's (or the YAML file's) network.
void run_init_net(const InitNetArgs& a) {
  TrainConfig cfg;
  if (!a.net.empty()) {
    ConfigReader r = ConfigReader::from_file(a.net);
    cfg.net = nn::parse_net_config(r);
  } else {
    try {
      cfg.net = nn::NetConfig::preset(a.preset);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--preset: ") + e.what());
    }
  }
  cfg.seed = a.seed;
  write_initial_checkpoint(cfg, a.out, a.note);
  std::printf("wrote %s: net %s, step 0, seed %llu\n", a.out.c_str(), cfg.net.summary().c_str(),
              (unsigned long long)a.seed);
}

void register_init_net(CLI::App& app) {
  auto a = std::make_shared<InitNetArgs>();
  auto* in = app.add_subcommand(
      "init-net", "Write a freshly initialised network checkpoint (random weights, step 0), as "
                  "`run` starts generation 0");
  in->add_option("out", a->out, "checkpoint to write")->required();
  auto* preset = in->add_option("--preset", a->preset, "network preset: tiny | medium")
                     ->capture_default_str()
                     ->check(checked_by([](const std::string& s) { (void)nn::NetConfig::preset(s); }));
  in->add_option("--net", a->net, "YAML file of network keys (configs/net-*.yaml) instead of a preset")
      ->excludes(preset);
  in->add_option("--seed", a->seed, "seed of the initial weights (>= 0)")
      ->capture_default_str()
      ->check(integer_at_least(0));
  in->add_option("--note", a->note, "free text stored in the checkpoint");
  in->callback([a] { run_init_net(*a); });
}

}  // namespace

void register_run_commands(CLI::App& app) {
  register_run(app);
  register_selfplay(app);
  register_train(app);
  register_gatekeeper(app);
  register_export(app);
  register_init_net(app);
}

}  // namespace ps::cmd
