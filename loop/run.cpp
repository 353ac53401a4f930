#include "loop/run.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/config.h"
#include "core/plural.h"
#include "loop/phases.h"
#include "loop/players.h"
#include "loop/run_init.h"
#include "nn/checkpoint.h"
#include "nn/net.h"
#include "train/window.h"

namespace ps {

namespace {

void print_run_header(const RunContext& ctx) {
  const RunConfig& cfg = ctx.cfg;
  const Pitch& pitch = Pitch::get(cfg.width, cfg.length, cfg.goal);
  std::printf("run '%s' in %s: %s, %s %s, net %s, self-play %s x %s, train %s x %d\n", cfg.name.c_str(),
              cfg.dir.c_str(), counted(cfg.generations, "generation").c_str(), pitch.name().c_str(),
              variant_name(cfg.variant), cfg.train.net.summary().c_str(),
              counted(cfg.selfplay.games, "game").c_str(), counted(cfg.selfplay.visits, "visit").c_str(),
              counted(cfg.train.steps, "step").c_str(), cfg.train.batch_size);
  if (ctx.state.generation > 0)
    std::printf("resuming after generation %d (best %s)\n", ctx.state.generation, ctx.state.best.c_str());
  std::fflush(stdout);
}

// A finished run's networks must load. The last generation's and the best network's
// checkpoints, where present, are loaded (a damaged one is an error naming it: the run is not
// reported finished over it); best.model deleted or cut short (it is a copy, for `bot`) is
// written again from the best network's checkpoint.
void ensure_best_model(RunContext& ctx) {
  std::vector<std::string> checkpoints{ctx.paths.checkpoint(ctx.state.generation)};
  if (ctx.paths.checkpoint_of(ctx.state.best) != checkpoints[0])  // once when the last is the best
    checkpoints.push_back(ctx.paths.checkpoint_of(ctx.state.best));
  for (const std::string& ckpt : checkpoints)
    if (std::filesystem::exists(ckpt)) (void)nn::load_checkpoint(ckpt);
  try {
    (void)nn::load_checkpoint(ctx.paths.best_model);
    return;
  } catch (const std::exception& e) {
    std::printf("best.model does not load (%s): writing it again from %s\n", e.what(),
                ctx.paths.checkpoint_of(ctx.state.best).c_str());
  }
  rewrite_best_model(ctx);
  (void)nn::load_checkpoint(ctx.paths.best_model);
}

}  // namespace

void run_training_loop(const RunConfig& cfg, const std::atomic<bool>* cancel) {
  register_builtin_players();
  // A device the machine lacks (train.device: cuda without CUDA) is refused here, before
  // anything is written, not when the first generation's training starts.
  for (const auto& [where, device] :
       {std::pair<std::string, std::string>{cfg.service_device_where, cfg.service.device},
        {cfg.train_device_where, cfg.train.device}}) {
    try {
      (void)nn::parse_device(device);
    } catch (const std::exception& e) {
      throw ConfigError(where + ": " + e.what());
    }
  }
  // Refused before anything is written, the claims included: the reference games, and a new
  // run's run.init (open_run_directory reads it again and makes generation 0 from it).
  ReferenceSet reference = read_reference_set(cfg);
  if (!cfg.train.teacher.data.empty()) (void)load_teacher_games(cfg.train.teacher);
  if (!std::filesystem::exists(RunPaths(cfg.dir).checkpoint(0))) (void)load_run_init(cfg);
  // One `run` per directory, and no trainer or gatekeeper role beside it (loop/role_claim.h);
  // claimed before anything is written (open_run_directory clears temporaries).
  RoleClaims claims;
  for (const char* identity : {"trainer", "gatekeeper", "selfplay"})
    if (!claims.add(cfg.dir, identity, {}, cancel)) return;
  RunContext ctx(cfg, cancel, /*writes_state=*/true);
  ctx.claims = &claims;
  open_run_directory(cfg, /*single_process=*/true, ctx.state.generation);
  ctx.reference_games = std::move(reference.games);
  ctx.reference_checksum = std::move(reference.checksum);
  print_run_header(ctx);
  for (int g = ctx.state.generation + 1; g <= cfg.generations && !ctx.stopped(); ++g) {
    if (!play_generation(ctx, g)) break;
    clear_net_evaluators();
    if (!std::filesystem::exists(ctx.paths.checkpoint(g))) {
      char prefix[32];
      std::snprintf(prefix, sizeof prefix, "gen%04d", g - 1);
      const int64_t new_samples = samples_with_prefix(ctx.paths.data, prefix);
      const int64_t steps = generation_steps(cfg.train, new_samples);
      if (steps < cfg.train.steps)
        std::printf("gen %d train: %s (%.1f rows per each of %s)\n", g, counted(steps, "step").c_str(),
                    cfg.train.rows_per_sample, counted(new_samples, "new sample").c_str());
      if (!train_generation(ctx, g, steps)) break;
    }
    if (!evaluate_generation(ctx, g)) break;
    clear_net_evaluators();
    promote_and_export(ctx, g);
  }
  if (!finish_run(ctx)) return;
  ensure_best_model(ctx);
  const std::string report = write_report_or_warn(cfg.dir);
  if (!report.empty())
    std::printf("report: %s\nbest model: %s\n", report.c_str(), ctx.paths.best_model.c_str());
}

}  // namespace ps
