#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "debugger/core/EventHub.hpp"
#include "debugger/core/GdbPool.hpp"
#include "debugger/core/Job.hpp"
#include "debugger/core/Launcher.hpp"
#include "debugger/core/ProcessDiscovery.hpp"
#include "debugger/core/RankBackend.hpp"
#include "debugger/core/RankChannels.hpp"
#include "debugger/core/RankRouter.hpp"
#include "debugger/core/SessionDir.hpp"

namespace mpidbg::core {

/// How to start a job under the debugger.
struct LaunchOptions {
  /// The launcher command line, e.g. {"mpiexec", "-n", "4", "./app"}.
  std::vector<std::string> argv;
  /// Path of libmpidbg-rt.so, preloaded into every rank.
  std::string runtimePath;
  /// Ranks wait at the end of MPI_Init until `continue` (CharmDebug's model).
  bool stopAtInit = true;
  /// Unauthenticated plain CCS between front end and ranks instead of TLS
  /// with the session key (for debugging the debugger; never the default).
  bool plainCcs = false;
  /// How long to wait for every rank to register.
  std::chrono::milliseconds registerTimeout{60000};
  /// Record every rank's matching decisions into this directory
  /// (DIR/rank-R.rec; runtime/Record.hpp); "" for none. Absolute.
  std::string recordDir;
  /// Replay the matching decisions recorded in this directory; "" for none.
  /// Absolute; may be combined with recordDir (a different directory).
  std::string replayDir;
  /// Where the front end listens for the ranks (mpidbg --listen;
  /// resolveHubAddress): "" is loopback, for ranks on this host only.
  std::string listen;
  /// Where the launcher's stdout and stderr go (Launcher::start): -1 for the
  /// debugger's own (OutputRelay's pipes when stdout is a terminal).
  int outputFd = -1;
  int errorFd = -1;
};

/// How to attach to a job started with the runtime preloaded and
/// MPIDBG_LISTEN=1 (issue 9; ccs/proto/AttachProtocol.hpp).
struct AttachOptions {
  /// The attach file rank 0 wrote (it names every rank's server and holds
  /// the job's session key).
  std::string file;
  /// How long to wait for every rank to register.
  std::chrono::milliseconds registerTimeout{60000};
  /// Where the front end listens for the ranks (as LaunchOptions::listen).
  std::string listen;
};

/// Called while waiting: registered ranks so far and the expected count (0
/// while unknown).
using Progress = std::function<void(int registered, int expected)>;
/// Polled while waiting; true aborts the wait (Ctrl-C).
using Cancelled = std::function<bool()>;

/// One job's life in the front end (issue 25 item 1): the private session
/// directory and key, the rendezvous/event hub, the launcher or the attached
/// ranks, the job model, the ranks' CCS connections, the gdb sessions, and
/// the router every request to the ranks goes through. launch, attach and
/// attachProcesses start a job; detach and kill end it. The queries and the
/// execution control sit on top (Debugger.hpp); the Charm++ front end uses
/// it for the PE processes (charm/CharmJob.hpp). It never prints: notices
/// go to the notifier.
class Session {
 public:
  /// `notify` receives asynchronous notices (a rank exited, a rejected
  /// connection), possibly from a background thread. `routing` says how
  /// requests reach the ranks for the whole session (routing()).
  Session(std::function<void(const std::string&)> notify, RouteSettings routing);
  /// Detaches from an attached job, ends a launched one (kill).
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Starts the launcher with the runtime preloaded and waits until every rank
  /// has registered. Errors: launcher not runnable; the job ended before every
  /// rank registered (with the launcher's status); timeout; cancelled.
  Expected<void> launch(const LaunchOptions& options, const Progress& progress, const Cancelled& cancelled);

  /// Attaches to a listening job: reads the attach file (refused when others
  /// may read it: its key would be known), starts the event hub with the
  /// job's key and asks every rank named there to register (mpidbg/attach,
  /// direct connections); waits until they all have. Ranks that cannot be
  /// reached or refuse are named in the error when none registered, else in
  /// a notice. Errors: a job is already being debugged; the file is missing,
  /// malformed or not private; no rank answered (the job ended?); a rank
  /// already has a debugger; timeout; cancelled.
  Expected<void> attach(const AttachOptions& options, const Progress& progress, const Cancelled& cancelled);

  /// Attaches to the processes of a running job found by pid (attach --pid,
  /// --slurm; ProcessDiscovery.hpp), whose ranks have no mpidbg runtime: no
  /// CCS, no event channel. `where` and `gdb` work through gdb, `hang` and
  /// `queues` through the MPI's message-queue DLL (MPIR_dll_name or
  /// --mqs-dll) or else the ranks' stack frames; commands that need the
  /// runtime (breakpoints, freeze, step, objects) say so per rank. `size` is
  /// the job's size (ranks not found are listed as not registered). Errors:
  /// a job is already being debugged; no rank; a rank outside [0, size).
  Expected<void> attachProcesses(const std::vector<FoundRank>& ranks, int size);

  /// True between a successful launch or attach and kill() or detach().
  bool hasJob() const { return launcher_ != nullptr || attached_; }
  /// True when the job was attached to rather than launched: mpidbg owns no
  /// launcher, and leaving detaches instead of killing.
  bool attached() const { return attached_; }
  /// True while the launcher process is still running (attached: while any
  /// rank has not ended).
  bool jobAlive();
  /// Ranks attached by pid whose process is gone are marked lost (each
  /// query of the processes calls it first).
  void refreshProcesses();

  /// Leaves the job running without the debugger: every rank drops its
  /// breakpoints and resumes, gdb sessions detach, the event channels close,
  /// and the launcher is no longer killed when mpidbg exits. A listening job
  /// (attached) goes back to listening: it can be attached again.
  void detach();
  /// Ends the job: gdb sessions first (they detach), then the launcher's
  /// process group, then any rank process still alive. An attached job has
  /// no launcher of ours: its ranks on this host get SIGKILL (their launcher
  /// then ends the job) and ranks on other hosts are named in a notice.
  /// Idempotent.
  void kill();
  /// The launcher's end, once it has ended.
  std::optional<ExitStatus> launcherStatus() { return job_.launcherStatus(); }

  /// The job model: every rank's registration, life and stops.
  Job& job() { return job_; }
  const Job& job() const { return job_; }
  /// The gdb sessions of this job.
  GdbPool& gdb() { return *gdb_; }
  /// The persistent CCS connections to the ranks (null before a launch or attach).
  RankChannels* channels() { return channels_.get(); }
  /// The one way requests reach the ranks (sorting held / ended / without
  /// runtime / reachable, and the messages saying so), over this job's
  /// runtimes (RuntimeRanks with routing()).
  RankRouter& router() { return *router_; }
  /// How requests reach the ranks, as given at construction: through the
  /// ranks' forwarding tree (useTree: one request to the lowest reachable
  /// rank, ../shared/DESIGN.md data flow 3; direct connections remain the
  /// fallback when the gateway fails) or one connection per rank, the
  /// tree's fan-out, and the timeout of one CCS request to a rank.
  const RouteSettings& routing() const { return routing_; }
  /// Passes `text` to the notifier given at construction.
  void notify(const std::string& text) const { notify_(text); }

 private:
  std::function<void(const std::string&)> notify_;
  RouteSettings routing_;
  Job job_;
  std::unique_ptr<SessionDir> sessionDir_;
  std::unique_ptr<EventHub> hub_;
  std::unique_ptr<Launcher> launcher_;
  /// Whose launcher it is (launcherFamily of the launched command).
  LauncherFamily launcherFamily_ = LauncherFamily::Other;
  std::unique_ptr<GdbPool> gdb_;
  std::unique_ptr<RankChannels> channels_;
  /// The ranks' runtimes over channels_, and the router in front of them.
  std::unique_ptr<RuntimeRanks> backend_;
  std::unique_ptr<RankRouter> router_;
  /// attach() succeeded and neither detach() nor kill() came since.
  bool attached_ = false;
};

}  // namespace mpidbg::core
