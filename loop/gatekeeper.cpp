// The gatekeeper role (loop/roles.h).
#include <cstdio>
#include <filesystem>

#include "loop/phases.h"
#include "loop/players.h"
#include "loop/roles.h"

namespace ps {

void run_gatekeeper(const RunConfig& cfg, const std::atomic<bool>* cancel, const RoleOptions& opt) {
  register_builtin_players();
  ReferenceSet reference = read_reference_set(cfg);  // refused before anything is written
  RoleClaims claims;
  if (!claims.add(cfg.dir, "gatekeeper", opt.claim, cancel)) return;
  open_run_directory(cfg, /*single_process=*/false, 0);
  RunContext ctx(cfg, cancel, /*writes_state=*/true);
  ctx.claims = &claims;
  ctx.reference_games = std::move(reference.games);
  ctx.reference_checksum = std::move(reference.checksum);
  std::printf("gatekeeper in %s: generations %d..%d, best %s\n", cfg.dir.c_str(),
              ctx.state.generation + 1, cfg.generations, ctx.state.best.c_str());
  std::fflush(stdout);
  for (int g = ctx.state.generation + 1; g <= cfg.generations && !ctx.stopped(); ++g) {
    ctx.save_state("waiting for " + gen_name(g));
    const std::string candidate = ctx.paths.checkpoint(g);
    if (!wait_until_ready([&] { return std::filesystem::exists(candidate); }, opt.poll_seconds, cancel))
      break;
    if (!evaluate_generation(ctx, g)) break;
    clear_net_evaluators();
    promote_and_export(ctx, g);
  }
  if (!finish_run(ctx)) return;
  (void)write_report_or_warn(cfg.dir);  // with the verdict
  std::printf("gatekeeper: finished; best model %s\n", ctx.paths.best_model.c_str());
}

}  // namespace ps
