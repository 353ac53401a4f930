// The training loop and its parts as commands:
//   run [CONFIG]        the self-play -> train -> evaluate loop (built-in quickstart without CONFIG)
//   selfplay CONFIG     self-play games only (selfplay: and service: maps; --net CHECKPOINT)
//   train CONFIG        training only (train: map; --data DIR --from CKPT --out CKPT)
//   export CKPT OUT     a self-contained model file for `bot` (--single-file OUT.cpp: one C++ source,
//                       apps/cmd_export_single_file.cpp)
//   init-net OUT        a freshly initialised network checkpoint (generation 0: random weights)
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>

#include "apps/commands.h"
#include "core/fileutil.h"
#include "core/progress.h"
#include "loop/players.h"
#include "loop/run.h"
#include "nn/checkpoint.h"

namespace ps::cmd {

namespace {

std::atomic<bool> g_cancel{false};
std::atomic<int> g_signal{SIGINT};  // the first stop signal: the exit status is 128 + it

void on_signal(int sig) {
  if (g_cancel.exchange(true)) std::_Exit(128 + sig);  // second Ctrl-C: leave at once
  g_signal = sig;
  const char msg[] = "\nstopping after the current game or step; Ctrl-C again to quit now\n";
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

}  // namespace

void register_run_commands(CLI::App& app) {
  static std::string run_config;
  static std::string run_dir;
  static int generations = 0;
  auto* run = app.add_subcommand(
      "run", "Self-play -> train -> evaluate loop; resumable (without CONFIG: built-in quickstart)");
  run->add_option("config", run_config, "YAML config (see configs/quickstart.yaml)");
  run->add_option("--dir", run_dir, "run directory (overrides run.dir)");
  run->add_option("--generations", generations, "number of generations (overrides run.generations; >= 1)")
      ->check(integer_at_least(1));
  run->callback([] {
    RunConfig cfg = run_config.empty()
                        ? parse_run_config(quickstart_config_text(), "<built-in quickstart>")
                        : load_run_config(run_config);
    if (!run_dir.empty()) cfg.dir = run_dir;
    if (generations > 0) cfg.generations = generations;
    install_signal_handlers();
    run_training_loop(cfg, &g_cancel);
    if (g_cancel) {
      std::cerr << "stopped; run the same command again to resume\n";
      throw StoppedOnRequest{128 + g_signal.load()};  // 130 after SIGINT, 143 after SIGTERM
    }
  });

  static std::string sp_config, sp_net, sp_out = "selfplay-data", sp_prefix = "selfplay";
  auto* sp = app.add_subcommand("selfplay", "Play self-play games with a network, write training data");
  sp->add_option("config", sp_config, "YAML with selfplay: and service: maps")->required();
  sp->add_option("--net", sp_net, "network checkpoint")->required();
  sp->add_option("--out", sp_out, "output directory")->capture_default_str();
  sp->add_option("--prefix", sp_prefix, "chunk file prefix")->capture_default_str();
  sp->callback([] {
    ConfigReader top = ConfigReader::from_file(sp_config);
    ConfigReader s = top.child("service");
    nn::ServiceOptions so = nn::parse_service_options(s);
    s.finish();
    ConfigReader r = top.child("selfplay");
    SelfplayConfig cfg = parse_selfplay_config(r);
    finish_top_level(top);
    install_signal_handlers();
    auto eval = nn::make_net_evaluator(sp_net, so);
    ProgressLine line;
    SelfplayStats st = run_selfplay(cfg, *eval, sp_net, sp_out, sp_prefix,
                                    [&](const SelfplayStats& s, int64_t target) {
                                      line.update(std::to_string(s.games) + "/" + std::to_string(target) +
                                                  " games: " + s.summary());
                                    },
                                    &g_cancel);
    line.finish();
    std::printf("%s\n", st.summary().c_str());
  });

  static std::string tr_config, tr_data, tr_from, tr_out, tr_log;
  auto* tr = app.add_subcommand("train", "Train a network on self-play data");
  tr->add_option("config", tr_config, "YAML with a train: map")->required();
  tr->add_option("--data", tr_data, "training data directory (*.psd chunks)")->required();
  tr->add_option("--from", tr_from, "checkpoint to start from (default: a new net)");
  tr->add_option("--out", tr_out, "checkpoint to write")->required();
  tr->add_option("--log", tr_log, "metrics log (JSON lines)");
  tr->callback([] {
    ConfigReader top = ConfigReader::from_file(tr_config);
    ConfigReader r = top.child("train");
    TrainConfig cfg = parse_train_config(r);
    finish_top_level(top);
    install_signal_handlers();
    ProgressLine line;
    TrainResult res = train_network(cfg, tr_data, tr_from, tr_out, tr_log, "",
                                    [&](const TrainMetrics& m, int64_t target) {
                                      char buf[200];
                                      std::snprintf(buf, sizeof buf,
                                                    "step %lld/%lld policy %.3f value %.3f acc %.0f%% %.0f samples/s",
                                                    (long long)m.step, (long long)target, m.policy_loss,
                                                    m.value_loss, 100 * m.policy_accuracy, m.samples_per_s);
                                      line.update(buf);
                                    },
                                    &g_cancel);
    line.finish();
    std::printf("trained steps %lld -> %lld (%.0f samples/s, window %lld of %lld samples)%s\n",
                (long long)res.start_step, (long long)res.end_step, res.samples_per_s,
                (long long)res.window_samples, (long long)res.total_samples,
                res.end_step < res.start_step + cfg.steps ? "; interrupted, run again to resume" : "");
  });

  static std::string ex_in, ex_out, ex_pitch, ex_variant, ex_single, ex_bits = "auto";
  static int64_t ex_max_chars = 100000;
  auto* ex = app.add_subcommand(
      "export", "Write a self-contained model file for `bot`, or with --single-file one C++17 "
                "source (standard library only) for bot arenas such as CodinGame");
  ex->add_option("checkpoint", ex_in, "checkpoint (or model file with --single-file)")->required();
  ex->add_option("out", ex_out, "model file to write (not with --single-file)");
  ex->add_option("--pitch", ex_pitch, "pitch the model is for (e.g. 8x10), if not recorded");
  ex->add_option("--variant", ex_variant, "variant the model is for, if not recorded");
  ex->add_option("--single-file", ex_single,
                 "write one self-contained C++17 source here instead: rules, search, inference, "
                 "quantised weights, CodinGame protocol (g++ -O2 -std=c++17 OUT.cpp)");
  ex->add_option("--max-chars", ex_max_chars,
                 "with --single-file: the most characters the source may have (>= 1); a larger "
                 "one is an error and nothing is written")
      ->capture_default_str()
      ->check(integer_at_least(1));
  ex->add_option("--bits", ex_bits,
                 "with --single-file: weight width 8, 4, auto (8 when it fits, else 4), or 32 "
                 "(float weights, for tests: no quantisation error)")
      ->capture_default_str()
      ->check(CLI::IsMember({"8", "4", "auto", "32"}));
  ex->callback([] {
    if (!ex_single.empty()) {
      if (!ex_out.empty())
        throw std::invalid_argument("export: give either OUT or --single-file OUT.cpp, not both");
      export_single_file(ex_in, ex_single, ex_pitch, ex_variant,
                         ex_bits == "auto" ? 0 : std::stoi(ex_bits), ex_max_chars);
      return;
    }
    if (ex_out.empty())
      throw std::invalid_argument("export: OUT (the model file to write) is required, or "
                                  "--single-file OUT.cpp");
    nn::LoadedCheckpoint ck = nn::load_checkpoint(ex_in, "cpu");
    nn::CheckpointMeta meta = ck.meta;
    if (!ex_pitch.empty()) {
      const PitchChoice pc = parse_pitch_spec(ex_pitch);
      meta.pitches = {Pitch::get(pc.width, pc.length, pc.goal).name()};
    }
    if (!ex_variant.empty()) meta.variants = {variant_name(parse_variant(ex_variant))};
    nn::save_checkpoint(ex_out, ck.net, meta);
    auto list = [](const std::vector<std::string>& v) {
      if (v.empty()) return std::string("any");
      std::string out;
      for (const auto& x : v) out += (out.empty() ? "" : ",") + x;
      return out;
    };
    std::printf("wrote %s: net %s, step %lld, pitches %s, variants %s\n", ex_out.c_str(),
                meta.net.summary().c_str(), (long long)meta.training_step,
                list(meta.pitches).c_str(), list(meta.variants).c_str());
  });

  static std::string in_out, in_preset = "tiny", in_net, in_note;
  static uint64_t in_seed = 1;
  auto* in = app.add_subcommand(
      "init-net", "Write a freshly initialised network checkpoint (random weights, step 0), as "
                  "`run` starts generation 0");
  in->add_option("out", in_out, "checkpoint to write")->required();
  auto* preset = in->add_option("--preset", in_preset, "network preset: tiny | medium")
                     ->capture_default_str();
  in->add_option("--net", in_net, "YAML file of network keys (configs/net-*.yaml) instead of a preset")
      ->excludes(preset);
  in->add_option("--seed", in_seed, "seed of the initial weights (>= 0)")
      ->capture_default_str()
      ->check(integer_at_least(0));
  in->add_option("--note", in_note, "free text stored in the checkpoint");
  in->callback([] {
    TrainConfig cfg;
    if (!in_net.empty()) {
      ConfigReader r = ConfigReader::from_file(in_net);
      cfg.net = nn::parse_net_config(r);
    } else {
      try {
        cfg.net = nn::NetConfig::preset(in_preset);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("--preset: ") + e.what());
      }
    }
    cfg.seed = in_seed;
    write_initial_checkpoint(cfg, in_out, in_note);
    std::printf("wrote %s: net %s, step 0, seed %llu\n", in_out.c_str(), cfg.net.summary().c_str(),
                (unsigned long long)in_seed);
  });
}

}  // namespace ps::cmd
