// The run directory that `run` and the roles of loop/roles.h share: its layout, the state file,
// and opening it. Only files written whole and renamed into place (core/fileutil.h) pass between
// processes: no locks, no file times, so the directory may live on NFS.
//
//   config.yaml                  the run's config (loop/run_config.h)
//   state.json                   the last finished generation, the best network, the phase;
//                                written by `run` or the gatekeeper role, read by everyone else
//   data/genNNNN-SSSSSS.psd/.tsv  self-play chunks and their records (selfplay/data.h); NNNN is
//                                the number of finished generations when the games were played.
//                                Self-play workers (roles) write genNNNN-<worker>-SSSSSS: one
//                                writer per name, the open chunk rewritten after every game
//   checkpoints/gen-NNNN.ckpt    networks; gen-0000 the initial weights, random or run.init's
//                                model (loop/run_init.h; the same file from whichever process
//                                writes it first: seeded); `.partial` while training
//   models/gen-NNNN.model        candidates as exported by the trainer role
//   eval/gen-NNNN/outcomes.json  a candidate's evaluation games, scores and promotion
//   eval/verdict-gen-NNNN/       the run's verdict after generation NNNN, then its last (a run
//                                resumed with more generations has one more): the best
//                                network against generation 0 (games, outcomes.json)
//   ratings.json, best.model, report.html, logs/*.jsonl (one writer per file)
//   claims/<identity>.claim      which process is each role (loop/role_claim.h)
#pragma once

#include <atomic>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "loop/run_config.h"

namespace ps {

/// "gen-0007" for 7.
std::string gen_name(int generation);
/// Whether run.name (of either learner) can be the default run directory's last part,
/// runs/<name>: not empty, no '/', not "." or ".." (runs/ itself or the working directory),
/// not blank.
bool is_run_directory_name(const std::string& name);
/// UTC time "2026-12-01T10:43:13Z".
std::string now_iso();
/// The parsed JSON of a file; std::runtime_error naming the file when it is not JSON.
nlohmann::json read_json_file(const std::string& path);

struct RunPaths {
  std::string root, data, checkpoints, models, eval, logs, state, config, ratings, best_model;
  explicit RunPaths(const std::string& dir);
  std::string checkpoint(int generation) const;               ///< checkpoints/gen-NNNN.ckpt
  std::string checkpoint_of(const std::string& network) const;  ///< checkpoints/NAME.ckpt
  std::string outcomes(int generation) const;                 ///< eval/gen-NNNN/outcomes.json
  std::string model(int generation) const;                    ///< models/gen-NNNN.model
  std::string verdict(int last_generation) const;             ///< eval/verdict-gen-NNNN
};

/// The most generations a run directory may hold (run.generations is bounded by it too).
constexpr int kMaxGenerations = 100000;

/// N for a network name gen_name(N), N in [0, kMaxGenerations]; -1 for any other text. The
/// state files name files inside the run directory by such names, and nothing else.
int generation_of(const std::string& name);

/// state.json. An absent file reads as generation 0 with best gen-0000. read_run_state throws
/// std::runtime_error naming the file for a field of the wrong type, a generation outside
/// [0, kMaxGenerations], or a best that is not gen-NNNN of a generation already reached.
struct RunState {
  int generation = 0;             ///< last finished generation (evaluated, promoted or not)
  std::string best = "gen-0000";  ///< the network self-play uses
  std::string started;            ///< UTC time the run started
  double seconds = 0;             ///< wall time spent in earlier calls (`run`) or by the gatekeeper
  std::string phase;
};
RunState read_run_state(const std::string& path);
/// Writes state.json atomically with `phase` and the time now.
void write_run_state(const RunState& s, const std::string& path, const std::string& phase);

/// Creates the folders of cfg.dir and generation 0's checkpoint when missing (from run.init when
/// given, checked first: load_run_init's ConfigError, with nothing written). With
/// `single_process` (`run`) the directory belongs to this process: temporaries left by a killed
/// run are removed (not the claims' or self-play workers' chunks': their writers may run beside
/// it), and config.yaml is compared with cfg (compare_run_configs: incoherent
/// changes refused, the others logged to logs/config.jsonl and applied). Roles share the
/// directory: nothing else is touched (their config comes from load_shared_run_config).
void open_run_directory(const RunConfig& cfg, bool single_process, int resumed_generation);

/// Whether a file name (a temporary's, before ".tmp.PID") is a self-play worker's chunk or
/// record (data/genNNNN-<worker>-SSSSSS.psd or .tsv): `run` leaves their temporaries to their
/// worker, which may be writing one beside it.
bool is_worker_chunk_name(const std::string& name);

/// The config of a shared run directory for a role: RUNDIR/config.yaml. With `config_path`
/// (the first role started brings the config) a missing RUNDIR/config.yaml is created from it
/// (exclusively: of two roles starting at once, one writes it and the other compares), and one
/// whose parsed configuration differs is refused (ConfigError naming both files and the first
/// differing key; comments and layout do not count: compare_run_configs). Without it, waits for
/// RUNDIR/config.yaml to appear, saying so on stdout and looking every poll_seconds, until it
/// does or *cancel (then nullopt); with poll_seconds <= 0 a missing file is a ConfigError. Both
/// messages say how to give the config. cfg.dir is set to run_dir; generations > 0 overrides
/// run.generations.
std::optional<RunConfig> load_shared_run_config(const std::string& run_dir, const std::string& config_path,
                                                int generations, double poll_seconds = 0,
                                                const std::atomic<bool>* cancel = nullptr);

}  // namespace ps
