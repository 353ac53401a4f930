// The self-play worker role (loop/roles.h).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <thread>

#include "core/fileutil.h"
#include "loop/phases.h"
#include "loop/players.h"
#include "loop/roles.h"

namespace ps {

void check_worker_id(const std::string& id) {
  bool ok = !id.empty() && id.size() <= 64;
  for (char c : id)
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.');
  if (!ok)
    throw std::invalid_argument("worker id '" + id + "': use 1-64 letters, digits, '_' or '.' (it names the "
                                "worker's data chunks)");
}

std::string default_worker_id() {
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  std::string id = std::string(host[0] ? host : "host") + "_" + std::to_string(::getpid());
  for (char& c : id)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.')) c = '_';
  return id.substr(0, 64);
}

namespace {

// One stretch of a worker's games with one network: until state.json moves on, the process has
// played max_games, or *cancel. Returns the games stored.
int64_t play_stretch(const RunConfig& cfg, const RunState& st, const std::string& worker,
                     int64_t games_left, const std::atomic<bool>* cancel, double poll_seconds,
                     int64_t games_before) {
  const RunPaths paths(cfg.dir);
  char prefix[96];
  std::snprintf(prefix, sizeof prefix, "gen%04d-%s", st.generation, worker.c_str());
  SelfplayConfig sc = cfg.selfplay;
  sc.games = std::numeric_limits<int64_t>::max() / 4;  // run_selfplay stops on `pause`
  auto eval = shared_net_evaluator(paths.checkpoint_of(st.best), cfg.service);
  std::atomic<bool> pause{false}, done{false};
  // Watches the stop request and state.json while the games run.
  std::thread watcher([&] {
    using clock = std::chrono::steady_clock;
    auto last_read = clock::now();
    while (!done.load() && !pause.load()) {
      if (cancel && cancel->load()) break;
      if (clock::now() - last_read >= std::chrono::duration<double>(poll_seconds)) {
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
  SelfplayStats st_run;
  try {
    st_run = run_selfplay(
        sc, *eval, st.best, paths.data, prefix,
        [&](const SelfplayStats& s, int64_t) {
          std::printf("worker %s: game %lld stored in %s (%s), %lld positions, %.1f positions/s\n",
                      worker.c_str(), (long long)(games_before + s.games), prefix, st.best.c_str(),
                      (long long)s.samples, s.samples_per_s());
          std::fflush(stdout);
          if (s.games % cfg.selfplay.games_per_chunk == 0)
            append_line(log, selfplay_log_line(st.generation + 1, st.best, session, false, s).dump());
          if (games_left > 0 && s.games >= games_left) pause = true;
        },
        &pause);
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

void run_selfplay_worker(const RunConfig& cfg, const std::string& worker, int64_t max_games,
                         const std::atomic<bool>* cancel, double poll_seconds) {
  check_worker_id(worker);
  register_builtin_players();
  open_run_directory(cfg, /*single_process=*/false, 0);
  const RunPaths paths(cfg.dir);
  std::printf("self-play worker %s in %s: %lld visits, %d games at once\n", worker.c_str(),
              cfg.dir.c_str(), (long long)cfg.selfplay.visits, cfg.selfplay.concurrent_games);
  std::fflush(stdout);
  int64_t played = 0;
  std::string network;
  while (!(cancel && cancel->load())) {
    const RunState st = read_run_state(paths.state);
    if (st.generation >= cfg.generations) {
      std::printf("worker %s: the run is finished (generation %d)\n", worker.c_str(), st.generation);
      break;
    }
    if (max_games > 0 && played >= max_games) break;
    if (!network.empty() && network != st.best) clear_net_evaluators();
    network = st.best;
    played += play_stretch(cfg, st, worker, max_games > 0 ? max_games - played : 0, cancel,
                           poll_seconds, played);
  }
  std::printf("worker %s: %lld games stored\n", worker.c_str(), (long long)played);
  std::fflush(stdout);
}

}  // namespace ps
