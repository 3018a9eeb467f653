#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <vector>

#include "ccs/proto/ControlProtocol.hpp"
#include "ccs/proto/RankProtocol.hpp"
#include "debugger/core/ControlService.hpp"
#include "debugger/core/EventHub.hpp"
#include "debugger/core/GdbPool.hpp"
#include "debugger/core/HangReport.hpp"
#include "debugger/core/Job.hpp"
#include "debugger/core/Launcher.hpp"
#include "debugger/core/ProcessDiscovery.hpp"
#include "debugger/core/RankBackend.hpp"
#include "debugger/core/RankChannels.hpp"
#include "debugger/core/RankExpr.hpp"
#include "debugger/core/RankRouter.hpp"
#include "debugger/core/RankSet.hpp"
#include "debugger/core/SessionDir.hpp"
#include "debugger/core/StackQuery.hpp"
#include "debugger/core/StatusReport.hpp"

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

/// The front end's session: the private session directory and key, the
/// rendezvous/event hub, the launcher, the job model and the gdb sessions.
/// Commands call into it; it never prints (notices go to the notifier).
class Debugger {
 public:
  /// `notify` receives asynchronous notices (a rank exited, a rejected
  /// connection), possibly from a background thread. `routing` says how
  /// requests reach the ranks for the whole session (routing()).
  explicit Debugger(std::function<void(const std::string&)> notify, RouteSettings routing = defaultRouting());

  /// The routing of a session without options: through the forwarding tree
  /// of fan-out ccs::kDefaultFanOut, 3 s per CCS request.
  static RouteSettings defaultRouting() { return {true, ccs::kDefaultFanOut, std::chrono::milliseconds(3000)}; }
  ~Debugger();
  Debugger(const Debugger&) = delete;
  Debugger& operator=(const Debugger&) = delete;

  /// Starts the launcher with the runtime preloaded and waits until every rank
  /// has registered. Errors: launcher not runnable; the job ended before every
  /// rank registered (with the launcher's status); timeout; cancelled.
  Expected<void> launch(const LaunchOptions& options, const Progress& progress,
                        const Cancelled& cancelled);

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

  /// Why a rank attached by pid cannot do what the runtime does (RankRouter's).
  static constexpr std::string_view kNoRuntime = RankRouter::kNoRuntime;

  /// True between a successful launch or attach and kill() or detach().
  bool hasJob() const { return launcher_ != nullptr || attached_; }
  /// True when the job was attached to rather than launched: mpidbg owns no
  /// launcher, and leaving detaches instead of killing.
  bool attached() const { return attached_; }
  /// True while the launcher process is still running (attached: while any
  /// rank has not ended).
  bool jobAlive();
  Job& job() { return job_; }

  /// Evaluates the rank-set expression `text` (RankExpr.hpp grammar) against
  /// the job: literals, `all`, the session's names (`names`: `focus`, named
  /// sets, `$equiv[N]`; a null member is none defined) and live states, read
  /// with one views() call the first time an operand needs them (a rank is
  /// `blocked` after `blockedAfter` in one MPI call). `at entry NAME` is the
  /// ranks frozen by a breakpoint, freeze or step at entry point NAME;
  /// `where PATH OP VALUE` asks the ranks' objects (ranksWhere). An empty
  /// result is not an error. Errors: no job, the expression's syntax, an
  /// unknown name or MPI function.
  Expected<RankSet> ranks(std::string_view text, const RankNames& names = {},
                          std::chrono::milliseconds blockedAfter = std::chrono::milliseconds(1000));

  /// Current state of `ranks` (all when empty): queries reachable ranks'
  /// runtimes in parallel.
  std::vector<RankView> views(const RankSet& ranks = {});
  /// Collective counters of every reachable rank, by world rank.
  std::map<int, std::vector<ccs::proto::CommState>> collectiveStates();

  /// Unfreezes `ranks`: the reachable ones get `mpidbg/continue`. Returns the
  /// ranks that could not be continued with the reason, grouped by text
  /// (empty when all went well).
  std::map<int, std::string> continueRanks(const RankSet& ranks);

  /// What one rank answered to a control request (ControlService.hpp).
  using ControlOutcome = core::ControlOutcome;
  /// Sends control `handler` with `data` to `ranks` (through the tree) and
  /// returns each rank's outcome; ranks that cannot answer (held by gdb,
  /// ended, silent) get ok=false with the reason (RankRouter::refusal; a
  /// rank gdb holds: RankRouter::kHeldByGdb, skipped). Ranks that never
  /// registered get no outcome.
  ControlOutcomes control(const RankSet& ranks, std::string_view handler, const std::string& data);
  /// Sends `handler` with `data` to each rank of `ranks` directly (not
  /// through the tree: each reply stays its rank's) and returns the replies
  /// by rank. Ranks that cannot answer get an Error saying why (not
  /// registered, ended, held by gdb, no reply): RankRouter::askEach.
  std::map<int, Expected<std::vector<std::uint8_t>>> queryEach(const RankSet& ranks, std::string_view handler,
                                                               const std::vector<std::uint8_t>& data);
  /// The raw merged replies of `handler` (list handlers: bp/list, entries)
  /// from the reachable ranks of `ranks`, plus the ranks that did not answer.
  std::pair<std::string, std::map<int, std::string>> collect(const RankSet& ranks,
                                                             std::string_view handler);

  /// The message-queue state of `ranks` (all when empty), for `queues` and
  /// `hang`: reachable ranks answer mpidbg/queues through the tree; ranks
  /// held by gdb (their CCS thread is stopped) are read from memory through
  /// the mqs DLL (setMqsDll, else the one the rank names in MPIR_dll_name);
  /// ended ranks are listed with how they ended, silent ones as unreadable.
  HangInput queueStates(const RankSet& ranks = {});
  /// Like queueStates, but every live rank is read from memory through the
  /// mqs DLL: ranks not held by gdb are stopped with SIGSTOP for the read
  /// (a consistent snapshot that costs the ranks no CPU while it is taken)
  /// and continued with SIGCONT before returning, also on errors. Ranks that
  /// cannot be read (another host, no permission) are listed as unreadable.
  HangInput queueStatesFromMemory(const RankSet& ranks = {});
  /// Adds top stack frames (at most `depth`) to the ranks of `input` that
  /// are not in MPI and that other ranks wait for (the verdict's culprits),
  /// at most `limit` of them: from the rank's gdb session when gdb holds
  /// it, else from a one-shot gdb that stops the rank for a moment.
  void addCulpritFrames(HangInput& input, int depth = 6, std::size_t limit = 4);
  /// The stacks of every application thread of `ranks` (all when empty), for
  /// `where`: reachable ranks capture their own (mpidbg/stacks through the
  /// tree, no gdb involved); ranks held by gdb are read with their gdb
  /// session; ranks whose runtime does not answer get a one-shot gdb (two at
  /// a time; on this host only); ended ranks are listed with how they ended.
  StackInput stacks(const RankSet& ranks = {});
  /// `--mqs-dll PATH`: the message-queue DLL queueStates and
  /// queueStatesFromMemory load to read ranks from memory, instead of the
  /// one a rank names in MPIR_dll_name ("" for that one, the default).
  void setMqsDll(std::string path) { mqsDll_ = std::move(path); }
  /// The DLL set with setMqsDll ("" when none).
  const std::string& mqsDll() const { return mqsDll_; }

  /// Execution control for the commands (ControlService.hpp): the session's
  /// breakpoints and their numbers, set / delete / enable / list, freeze,
  /// step and entries, over control() and collect(). Its breakpoints outlive
  /// kill(); detach() forgets them.
  ControlService& controls() { return *controls_; }

  /// Leaves the job running without the debugger: every rank drops its
  /// breakpoints and resumes, gdb sessions detach, the event channels close,
  /// and the launcher is no longer killed when mpidbg exits. A listening job
  /// (attached) goes back to listening: it can be attached again.
  void detach();

  /// Stop events (breakpoint hits, freeze/step stops) received so far.
  std::uint64_t stopEvents() const { return job_.eventCount(); }

  /// Blocks until every rank is settled (blocked in MPI for `blockedAfter`,
  /// frozen, held by gdb or ended) or the job ended, `timeout` passed or the
  /// wait was cancelled. Returns true when settled or ended. Looks at the
  /// ranks (a status request to each) when they could first be settled
  /// (untilSettled, StatusReport.hpp) or on a job change, at least 50 ms and
  /// at most 1 s apart.
  bool waitSettled(std::chrono::milliseconds timeout, std::chrono::milliseconds blockedAfter,
                   const Cancelled& cancelled);
  /// Like waitSettled, but also returns (true) as soon as a new stop event
  /// arrives (a breakpoint hit or a freeze/step stop): "wait for the next
  /// event or a stop condition".
  bool waitForEvent(std::chrono::milliseconds timeout, std::chrono::milliseconds blockedAfter,
                    const Cancelled& cancelled);

  /// The gdb sessions of this job.
  GdbPool& gdb() { return *gdb_; }

  /// Ends the job: gdb sessions first (they detach), then the launcher's
  /// process group, then any rank process still alive. An attached job has
  /// no launcher of ours: its ranks on this host get SIGKILL (their launcher
  /// then ends the job) and ranks on other hosts are named in a notice.
  /// Idempotent.
  void kill();

  /// The launcher's end, once it has ended.
  std::optional<ExitStatus> launcherStatus() { return job_.launcherStatus(); }

  /// The persistent CCS connections to the ranks (after a launch).
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

 private:
  /// The top `depth` frames of `rank` from its gdb session (empty when gdb
  /// gives none).
  std::vector<std::string> heldFrames(int rank, int depth);
  /// The queue state of a rank held by gdb, read from its memory through the mqs DLL.
  Expected<ccs::proto::RankQueues> readHeldRank(const RankInfo& info);
  /// Ranks attached by pid whose process is gone are marked lost.
  void refreshProcesses();
  /// The queue state of a rank attached by pid: the MPI's message-queue DLL
  /// when it has one (collectives from the frames when the DLL keeps none),
  /// else the call it is in from a one-shot gdb backtrace.
  Expected<ccs::proto::RankQueues> readProcessRank(const RankInfo& info);

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
  /// The breakpoint table and the control requests, over control() and collect().
  std::unique_ptr<ControlService> controls_;
  /// When each rank was last let go (continue, step): a rank released inside
  /// an MPI call restamps the call's entry only once its thread runs, so a
  /// status read in between would show it waiting since before its stop.
  /// views() counts a call's time from here at the earliest.
  std::mutex resumedMutex_;
  std::map<int, std::chrono::steady_clock::time_point> resumedAt_;
  void noteResumed(const std::vector<RankInfo>& ranks, const std::map<int, std::string>& missing);
  /// attach() succeeded and neither detach() nor kill() came since.
  bool attached_ = false;
  /// setMqsDll's path ("": each rank's MPIR_dll_name).
  std::string mqsDll_;
};

}  // namespace mpidbg::core
