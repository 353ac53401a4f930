// The trainer role (loop/roles.h).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/plural.h"
#include "loop/export_model.h"
#include "loop/phases.h"
#include "loop/roles.h"
#include "train/window.h"

namespace ps {

namespace fs = std::filesystem;

bool trainer_ready(const RunConfig& cfg, int g, int64_t games, int64_t samples) {
  const TrainConfig& t = cfg.train;
  if (t.rows_per_sample > 0)
    return t.rows_per_sample * double(samples) >= double(g) * double(t.steps) * double(t.batch_size);
  return games >= int64_t(g) * cfg.selfplay.games;
}

namespace {

// Games and samples stored in a data directory. A chunk is read again only when its size
// changed (the open chunk of a worker grows by rewrites; the others never change), so polling a
// directory of many chunks reads only what is new.
class DataTally {
 public:
  std::pair<int64_t, int64_t> count(const std::string& dir) {
    std::map<std::string, Entry> now;
    int64_t games = 0, samples = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (e.path().extension() != ".psd") continue;
      const std::string name = e.path().filename().string();
      const uintmax_t size = e.file_size(ec);
      if (ec) continue;  // renamed away meanwhile
      auto it = seen_.find(name);
      Entry entry = it != seen_.end() && it->second.size == size ? it->second : read(e.path().string(), size);
      games += entry.games;
      samples += entry.samples;
      now[name] = entry;
    }
    seen_.swap(now);
    return {games, samples};
  }

 private:
  struct Entry {
    uintmax_t size = 0;
    int64_t games = 0, samples = 0;
  };
  static Entry read(const std::string& path, uintmax_t size) {
    Entry e;
    e.size = size;
    std::vector<std::string> warnings;  // the trainer reports bad games when it reads them
    try {
      for (const GameData& g : read_chunk(path, &warnings)) {
        e.games += 1;
        e.samples += int64_t(g.samples.size());
      }
    } catch (const std::exception& err) {
      std::fprintf(stderr, "warning: skipping unreadable chunk: %s\n", err.what());
    }
    return e;
  }
  std::map<std::string, Entry> seen_;
};

}  // namespace

void run_trainer(const RunConfig& cfg, const std::atomic<bool>* cancel, const RoleOptions& opt) {
  // Refused at the start, not when the first generation's self-play has arrived (hours later
  // on a cluster): a teacher folder missing from this job's working directory.
  if (!cfg.train.teacher.data.empty()) (void)load_teacher_games(cfg.train.teacher);
  RoleClaims claims;
  if (!claims.add(cfg.dir, "trainer", opt.claim, cancel)) return;
  open_run_directory(cfg, /*single_process=*/false, 0);
  RunContext ctx(cfg, cancel, /*writes_state=*/false);
  ctx.claims = &claims;
  int g = 1;
  // Resume after the last generation trained. A trainer stopped between a generation's
  // checkpoint and its exported model left the model missing (the gatekeeper waits for it, and
  // the scaling test found models/gen-0002.model absent beside its temporary): exported now.
  for (; g <= cfg.generations && fs::exists(ctx.paths.checkpoint(g)); ++g) {
    const std::string model = ctx.paths.model(g);
    if (!fs::exists(model)) {
      export_run_model(ctx.paths.checkpoint(g), model, cfg, NAN, NAN);
      std::printf("trainer: exported %s, missing beside its checkpoint\n", model.c_str());
    }
  }
  std::printf("trainer in %s: generations %d..%d, %s x %d each\n", cfg.dir.c_str(), g, cfg.generations,
              counted(cfg.train.steps, "step").c_str(), cfg.train.batch_size);
  std::fflush(stdout);
  DataTally tally;
  for (; g <= cfg.generations && !ctx.stopped(); ++g) {
    int64_t games = 0, samples = 0;
    bool said = false;
    auto ready = [&] {
      std::tie(games, samples) = tally.count(ctx.paths.data);
      const bool ok = trainer_ready(cfg, g, games, samples);
      if (!ok && !said)
        std::printf("trainer: gen %d waits for self-play (%s, %s stored)\n", g,
                    counted(games, "game").c_str(), counted(samples, "sample").c_str());
      said = said || !ok;
      std::fflush(stdout);
      return ok;
    };
    if (!wait_until_ready(ready, opt.poll_seconds, cancel)) break;
    std::printf("trainer: gen %d on %s, %s\n", g, counted(games, "game").c_str(),
                counted(samples, "sample").c_str());
    if (!train_generation(ctx, g, cfg.train.steps)) break;
    ctx.verify_claims();
    export_run_model(ctx.paths.checkpoint(g), ctx.paths.model(g), cfg, NAN, NAN);
  }
  std::printf("trainer: %s\n", g > cfg.generations ? "every generation trained" : "stopped");
}

}  // namespace ps
