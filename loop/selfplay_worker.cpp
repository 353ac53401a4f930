// The self-play worker role (loop/roles.h).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <thread>

#include "core/fileutil.h"
#include "core/plural.h"
#include "core/text.h"
#include "loop/phases.h"
#include "loop/players.h"
#include "loop/roles.h"

namespace ps {

void check_worker_id(const std::string& id) {
  bool ok = !id.empty() && id.size() <= 64 && id[0] != '.';  // not ".", "..", hidden names
  for (char c : id)
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.');
  if (!ok)
    throw std::invalid_argument("worker id '" + escape_bytes(id) + "': use " + kWorkerIdRule +
                                " (it names the worker's data chunks)");
}

std::string default_worker_id() {
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  const std::string pid = "_" + std::to_string(::getpid());
  std::string id = std::string(host[0] ? host : "host").substr(0, 64 - pid.size());  // keeps the pid
  for (char& c : id)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.')) c = '_';
  if (id[0] == '.') id[0] = '_';
  return id + pid;
}

namespace {

// What this worker has stored over the whole run (every generation's chunks of its id), for
// the max_ahead bound, and the newest generation the trainer has trained.
struct AheadCheck {
  const RunConfig& cfg;
  RunPaths paths;
  int max_ahead = 0;
  int64_t games = 0, samples = 0;  // this worker's, stored
  int trained = 0;                 // newest checkpoint

  AheadCheck(const RunConfig& c, const std::string& worker, int factor)
      : cfg(c), paths(c.dir), max_ahead(factor) {
    if (max_ahead <= 0) return;
    const std::string infix = "-" + worker + "-";
    std::vector<std::string> warnings;  // bad games are reported when the trainer reads them
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(paths.data, ec)) {
      const std::string name = e.path().filename().string();
      // genNNNN-ID-SSSSSS.psd
      if (e.path().extension() != ".psd" || name.size() < 8 || name.compare(7, infix.size(), infix) != 0)
        continue;
      try {
        for (const GameData& g : read_chunk(e.path().string(), &warnings)) {
          games += 1;
          samples += int64_t(g.samples.size());
        }
      } catch (const std::exception& err) {
        std::fprintf(stderr, "warning: skipping unreadable chunk: %s\n", err.what());
      }
    }
  }
  // Whether this worker's own data would let the trainer train max_ahead x (G + 1) generations.
  bool ahead() {
    if (max_ahead <= 0) return false;
    while (trained < cfg.generations && std::filesystem::exists(paths.checkpoint(trained + 1))) ++trained;
    return trainer_ready(cfg, max_ahead * (trained + 1), games, samples);
  }
};

// One stretch of a worker's games with one network: until state.json moves on, the process has
// stored games_left games (0: no cap), its data is max_ahead ahead of the trainer, or *cancel.
// Returns the games stored.
int64_t play_stretch(const RunConfig& cfg, const RunState& st, const std::string& worker, int64_t games_left,
                     const std::atomic<bool>* cancel, const RoleOptions& opt, int64_t games_before,
                     AheadCheck& ahead, const RoleClaims& claims) {
  const RunPaths paths(cfg.dir);
  char prefix[96];
  std::snprintf(prefix, sizeof prefix, "gen%04d-%s", st.generation, worker.c_str());
  SelfplayConfig sc = cfg.selfplay;
  // run_selfplay plays sc.games minus those stored under the prefix and starts no game beyond
  // them, so with a cap exactly games_left are stored; without one it stops on `pause`.
  sc.games = games_left > 0 ? count_stored_games(paths.data, prefix) + games_left
                            : std::numeric_limits<int64_t>::max() / 4;
  auto eval = shared_net_evaluator(paths.checkpoint_of(st.best), cfg.service);
  std::atomic<bool> pause{false}, done{false};
  // Watches the stop request and state.json while the games run.
  std::thread watcher([&] {
    using clock = std::chrono::steady_clock;
    auto last_read = clock::now();
    while (!done.load() && !pause.load()) {
      if (cancel && cancel->load()) break;
      if (clock::now() - last_read >= std::chrono::duration<double>(opt.poll_seconds)) {
        last_read = clock::now();
        try {
          if (read_run_state(paths.state).generation != st.generation) break;
        } catch (const std::exception& e) {  // written atomically: only a foreign file gets here
          std::fprintf(stderr, "warning: %s\n", e.what());
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    pause = true;
  });
  const std::string session = now_iso() + "/" + std::to_string(::getpid());
  const std::string log = paths.logs + "/selfplay-" + worker + ".jsonl";
  SelfplayStats st_run, last;
  claims.verify();
  try {
    st_run = run_selfplay(
        sc, *eval, st.best, paths.data, prefix,
        [&](const SelfplayStats& s, int64_t) {
          // Under the chunk writer's lock, between this game's chunk write and the next one's.
          claims.verify_or_exit();
          std::printf("worker %s: game %lld stored in %s (%s), %s, %.1f positions/s\n", worker.c_str(),
                      (long long)(games_before + s.games), prefix, st.best.c_str(),
                      counted(s.samples, "position").c_str(), s.samples_per_s());
          std::fflush(stdout);
          ahead.games += s.games - last.games;
          ahead.samples += s.samples - last.samples;
          last = s;
          if (s.games % cfg.selfplay.games_per_chunk == 0)
            append_line(log, selfplay_log_line(st.generation + 1, st.best, session, false, s).dump());
          if (ahead.ahead()) pause = true;
        },
        &pause, /*cancel_ends_games=*/false);  // a pause lets the games in flight end and stores them
  } catch (...) {
    done = true;
    watcher.join();
    throw;
  }
  done = true;
  watcher.join();
  if (st_run.games > 0)
    append_line(log, selfplay_log_line(st.generation + 1, st.best, session, true, st_run).dump());
  return st_run.games;
}

}  // namespace

void run_selfplay_worker(const RunConfig& cfg, const std::string& worker, const std::atomic<bool>* cancel,
                         const RoleOptions& opt) {
  check_worker_id(worker);
  register_builtin_players();
  RoleClaims claims;
  if (!claims.add(cfg.dir, "worker-" + worker, opt.claim, cancel)) return;
  open_run_directory(cfg, /*single_process=*/false, 0);
  const RunPaths paths(cfg.dir);
  // The claim makes this the only process with this id: its killed predecessor's chunk
  // temporaries are stale (`run` leaves them to it).
  const std::string own = "-" + worker + "-";  // genNNNN-<worker>-SSSSSS; ids hold no '-'
  (void)remove_stale_temp_files(paths.data, [&](const std::string& name) {
    return is_worker_chunk_name(name) && name.compare(7, own.size(), own) == 0;
  });
  std::printf("self-play worker %s in %s: %s, %s at once\n", worker.c_str(), cfg.dir.c_str(),
              counted(cfg.selfplay.visits, "visit").c_str(),
              counted(cfg.selfplay.concurrent_games, "game").c_str());
  std::fflush(stdout);
  AheadCheck ahead(cfg, worker, opt.max_ahead);
  int64_t played = 0;
  std::string network;
  auto finished = [&] { return read_run_state(paths.state).generation >= cfg.generations; };
  while (!(cancel && cancel->load())) {
    const RunState st = read_run_state(paths.state);
    if (st.generation >= cfg.generations) {
      std::printf("worker %s: the run is finished (generation %d)\n", worker.c_str(), st.generation);
      break;
    }
    if (opt.max_games > 0 && played >= opt.max_games) break;
    if (ahead.ahead()) {
      std::printf(
          "worker %s: waits for the trainer: its %s stored (%s) would already train %s, %d x "
          "(%d trained + 1) (--max-ahead %d)\n",
          worker.c_str(), counted(ahead.games, "game").c_str(), counted(ahead.samples, "sample").c_str(),
          counted(opt.max_ahead * (ahead.trained + 1), "generation").c_str(), opt.max_ahead, ahead.trained,
          opt.max_ahead);
      std::fflush(stdout);
      if (!wait_until_ready([&] { return !ahead.ahead() || finished(); }, opt.poll_seconds, cancel)) break;
      continue;
    }
    if (!network.empty() && network != st.best) clear_net_evaluators();
    network = st.best;
    played += play_stretch(cfg, st, worker, opt.max_games > 0 ? opt.max_games - played : 0, cancel, opt,
                           played, ahead, claims);
  }
  std::printf("worker %s: %s stored\n", worker.c_str(), counted(played, "game").c_str());
  std::fflush(stdout);
}

}  // namespace ps
