// One process per role identity of a shared run directory: a claim (a lease) per identity,
// `worker-<ID>`, `trainer`, `gatekeeper` (and `selfplay`, `run`'s own self-play), in
// RUNDIR/claims/<identity>.claim. The standalone `selfplay --out DIR` and `teacher --out DIR`
// claim `chunks-<prefix>` in DIR/claims/ the same way (claim_chunk_folder). Two processes of
// one identity would write the same files (two workers with one id lost 129 of 262 games); the
// claim makes the second one stop at the start. A holder whose pid is gone, reused, or a zombie
// (exited, not yet reaped) is dead.
//
// Protocol (files only, as everything between roles: loop/roles.h):
//   acquire  write a unique temporary file (host, pid, the process's start time and boot id, a
//            random token, heartbeat counter 0, heartbeat interval) and link() it to the claim's
//            name: link is an atomic exclusive create, also on NFS, where open(O_EXCL) is not
//            (Linux open(2) on O_EXCL says the same: over NFS, make a unique file and link(2)
//            it; when link's reply is lost, the unique file's link count of 2 tells that it
//            succeeded). EEXIST: the identity is claimed.
//   judge    a claim of this host whose process no longer exists (pid gone, or reused: another
//            start time; or another boot) is dead: taken over at once (the SIGKILL-then-restart
//            case). A claim of another host is watched: when its heartbeat counter (or token)
//            does not change for stale_beats of its owner's heartbeat intervals, measured with
//            this process's own steady clock (never file times, never another machine's clock),
//            its owner is dead and the claim is taken over (Slurm's requeue on another node);
//            when it changes, the owner lives. A live owner: ClaimTaken, naming it.
//   take over  rename a new claim file over the dead one, then read it back: the token is ours,
//            or another process won the race and we judge again.
//   hold     a thread rewrites the claim (temp + rename) with the counter + 1 every heartbeat_s,
//            after checking that it still holds our token; the role also calls verify() before
//            every file it writes. A claim with another token means it was taken over: the role
//            stops with ClaimLost (or, where a library loop writes the files, on_lost ends the
//            process at once, as a SIGKILL would: its files are all written atomically).
//   release  on a clean end, and on SIGTERM's graceful path: the claim file is removed when it
//            still holds our token.
// What it relies on from NFS: link() is atomic and fails with EEXIST on an existing name (with
// the link-count check for a lost reply); rename() replaces a file atomically; a file read
// after another client's rename sees the old or the new file whole (close-to-open consistency:
// a reader may see the old one for up to the attribute cache time, a few seconds, which the
// stale period of 3 x 30 s covers).
// Limits: no lock, so takeover is "race-safe enough", not exact: two processes that judge the
// same dead claim both rename; the later rename wins and the other finds another token at its
// next verify() (before its next write) and stops, so both write for at most the moments
// between a verify and its write. A process that hangs (SIGSTOP, a frozen NFS mount) longer
// than the stale period loses its claim to a process on another host; it finds out at its next
// verify and stops. "This host" is the host name: two containers with one host name but
// separate pid namespaces must not share a run directory's identities. A claim file left by a
// dead owner stays until the identity is started again (it is small; delete it by hand to
// retire an identity).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ps {

/// The identity is held by a live process: the message names it (host, pid, since when) and
/// what to do.
struct ClaimTaken : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// This process's claim was taken over by another process: it must stop writing.
struct ClaimLost : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The heartbeat intervals a claim may state (s); another host's stated interval is clamped to
/// them before its stale period is computed.
constexpr double kMinHeartbeatS = 0.1, kMaxHeartbeatS = 3600;

struct ClaimOptions {
  double heartbeat_s = 30;  ///< seconds between the owner's heartbeats (recorded in the claim)
  int stale_beats = 3;      ///< another host's claim is dead after this many of its heartbeat
                            ///< intervals without a change
  double poll_s = 1;        ///< seconds between reads of a watched claim
  /// Called by the heartbeat thread when the claim was taken over (message as ClaimLost's).
  /// Default: the message to stderr and std::_Exit(1), as a SIGKILL would end the role.
  std::function<void(const std::string& message)> on_lost;
};

/// Creates `path` holding `content` only if no file has that name: a unique temporary file
/// link()ed to path (atomic on NFS too, see above). True when created, false when the name
/// exists; std::runtime_error naming the path on other errors.
bool create_file_exclusive(const std::string& path, const std::string& content);

/// A held claim of one identity over one run directory. Thread-safe: verify() may be called
/// from any thread while the heartbeat thread runs.
class RoleClaim {
 public:
  /// Claims `identity` (letters, digits, '_', '.', '-') in run_dir/claims/ by the protocol
  /// above. Throws ClaimTaken when a live process holds it; returns nullptr when *cancel
  /// becomes true while another host's claim is watched; std::runtime_error on I/O errors or a
  /// foreign file in the claim's place. Prints a line to stdout when it watches or takes over.
  static std::unique_ptr<RoleClaim> acquire(const std::string& run_dir, const std::string& identity,
                                            const ClaimOptions& options = {},
                                            const std::atomic<bool>* cancel = nullptr);
  ~RoleClaim();  ///< stops the heartbeat and releases the claim
  RoleClaim(const RoleClaim&) = delete;
  RoleClaim& operator=(const RoleClaim&) = delete;

  /// Throws ClaimLost when the claim file holds another token (a vanished file is created
  /// again; read errors are retried for a second, then std::runtime_error).
  void verify() const;
  /// verify(); on ClaimLost, the message to stderr and std::_Exit(1). For callbacks inside
  /// library loops whose other threads would go on writing after an exception.
  void verify_or_exit() const;
  /// Stops the heartbeat and removes the claim file if it still holds our token (idempotent).
  void release();
  const std::string& identity() const { return identity_; }
  const std::string& path() const { return path_; }
  int64_t heartbeats() const { return beat_.load(); }

 private:
  RoleClaim(std::string identity, std::string path, std::string token, std::string since,
            ClaimOptions options);
  void heartbeat_loop();
  std::string content(int64_t beat) const;

  std::string identity_, path_, token_, since_;
  ClaimOptions options_;
  std::atomic<int64_t> beat_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false, released_ = false, held_ = false;
  std::thread heart_;
};

/// One writer per chunk folder and chunk prefix: two `selfplay --out` or `teacher --out`
/// processes with one folder and prefix would write the same chunk names. Claims
/// `chunks-<prefix>` in out_dir/claims/ (readers of the folder ignore that subfolder). Throws
/// ClaimTaken naming the holder; std::invalid_argument when the prefix is empty or has
/// characters other than ASCII letters, digits, '_', '.' (a '-' would make another prefix's
/// chunks look like this one's).
std::unique_ptr<RoleClaim> claim_chunk_folder(const std::string& out_dir, const std::string& prefix);

/// Whether a file name (a temporary's, before ".tmp.PID") is a claim's ("<identity>.claim") or
/// a claim takeover's ("<identity>.claim.<token>.takeover"). A run's sweep of stale temporaries
/// leaves them alone: their writers are the live processes beside it (heartbeats, takeovers).
bool is_claim_file_name(const std::string& name);

/// The claims of one process (`run` holds three), released together, newest first.
class RoleClaims {
 public:
  /// Acquires `identity` too (RoleClaim::acquire). False when *cancel stopped the wait.
  bool add(const std::string& run_dir, const std::string& identity, const ClaimOptions& options = {},
           const std::atomic<bool>* cancel = nullptr);
  void verify() const;          ///< every claim's verify()
  void verify_or_exit() const;  ///< every claim's verify_or_exit()
  void release();
  ~RoleClaims() { release(); }

 private:
  std::vector<std::unique_ptr<RoleClaim>> held_;
};

}  // namespace ps
