#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/transport/Endpoint.hpp"
#include "ccs/proto/RankProtocol.hpp"
#include "debugger/core/Launcher.hpp"
#include "debugger/core/RankSet.hpp"
#include "debugger/core/StaticFindings.hpp"

namespace mpidbg::core {

/// Where a rank's process is in its life, as the front end knows it from the
/// rank's registration and event channel.
enum class RankLife {
  Live,       ///< registered, channel open
  Finalized,  ///< MPI_Finalize returned, process still alive
  Exited,     ///< reported its exit code
  Signaled,   ///< reported a fatal signal
  Aborted,    ///< called MPI_Abort
  Lost,       ///< channel closed with no exit report (e.g. SIGKILL)
  Killed,     ///< ended by the debugger's kill
};

/// What the front end knows about one rank.
struct RankInfo {
  int rank = 0;
  std::string host;
  pid_t pid = 0;
  ccs::Endpoint endpoint;  ///< the rank's CCS server
  std::string mpiLibrary;
  int threadLevel = 0;
  /// Under a PMIx server (ccs::proto::Registration): the node as the
  /// launcher names it, the job's namespace and rank in it, and whether the
  /// rank published its endpoint there. Empty / -1 / false without PMIx.
  std::string node;
  std::string pmixNamespace;
  std::int64_t pmixRank = -1;
  bool pmixPublished = false;
  RankLife life = RankLife::Live;
  int exitCode = 0;     ///< Exited / Aborted
  int signal = 0;       ///< Signaled
  std::string abortText;
  bool heldByGdb = false;  ///< attached by a gdb session: its CCS thread is stopped
  /// Attached by pid (attach --pid / --slurm): no mpidbg runtime serves it,
  /// so it has no CCS endpoint; stacks come from gdb, queues from the MPI's
  /// message-queue DLL or its stack frames.
  bool noRuntime = false;
  /// Number of the last stop (breakpoint hit, freeze, step) the front end
  /// has seen, from its event or from a status reply that showed it (the
  /// status can come before the event); quoted in continues
  /// (ccs::proto::ContinueRequest).
  std::uint32_t lastStop = 0;
  /// The `seen` number the last continue quoted: the rank released every
  /// stop up to it, so a late event of such a stop is over and dropped.
  std::uint32_t releasedStop = 0;
  /// Number of the last stop whose event has arrived (0: none yet).
  std::uint32_t eventStop = 0;

  /// True while the process can still answer CCS requests.
  bool reachable() const {
    return (life == RankLife::Live || life == RankLife::Finalized) && !heldByGdb && !noRuntime;
  }
  /// True once the process has ended (or was lost).
  bool ended() const { return life != RankLife::Live && life != RankLife::Finalized; }
  /// "exited with code 0", "exited with signal 11 (Segmentation fault)",
  /// "called MPI_Abort(...)", "lost (channel closed without an exit report)";
  /// empty for live ranks.
  std::string describeEnd() const;
  /// describeEnd() after a verb, for "rank 3 ...": "has exited with code 1",
  /// "was lost (...)", "was killed by mpidbg".
  std::string endedPhrase() const;
};

/// True when `host` (a host name as a rank registers it, from gethostname)
/// names the machine the front end runs on: empty, "localhost", or the same
/// name up to the first dot ("node1" and "node1.cluster" match). What decides
/// whether gdb reaches a rank directly or through its gdbserver, and whether
/// a one-shot gdb can read it.
bool isThisHost(std::string_view host);

/// The job model: ranks as registered, updated by the event hub's thread and
/// read by commands. All methods are thread-safe.
class Job {
 public:
  /// Called for each event that commands should print ("[2] exited with
  /// signal 11 ..."); runs on the event hub's thread.
  using Notifier = std::function<void(const std::string&)>;
  void setNotifier(Notifier notifier);

  /// Records a registration. Returns an Error for a duplicate rank or a size
  /// that disagrees with earlier registrations.
  Expected<void> addRank(const ccs::proto::Registration& r);
  /// Records a rank found by pid, without a runtime (RankInfo::noRuntime),
  /// on host `host` (this one: its pid is a local process), on the node its
  /// launcher calls `node` (RankInfo::node; empty when not told). Same errors
  /// as addRank.
  Expected<void> addProcess(int rank, int size, pid_t pid, const std::string& host, const std::string& node = {});
  /// Applies an event from `rank`'s channel. A breakpoint or stop event
  /// whose stop a continue has released already (numbered at most
  /// RankInfo::releasedStop) is dropped: neither shown nor counted.
  void applyEvent(int rank, const ccs::proto::Event& event);
  /// A status reply showed `rank` in stop number `stop` (0: none): the stop
  /// counts as seen (RankInfo::lastStop) even before its event arrives.
  void sawStop(int rank, std::uint32_t stop);
  /// A continue quoted `seen` for `rank` (RankInfo::releasedStop).
  void continued(int rank, std::uint32_t seen);
  /// True when, for every rank of `stops` (rank -> stop number a status
  /// showed), that stop's event has arrived (RankInfo::eventStop) or a
  /// continue has released it, or the rank has ended.
  bool stopEventsArrived(const std::map<int, std::uint32_t>& stops) const;
  /// The rank's channel closed.
  void channelClosed(int rank);
  /// Marks whether gdb holds `rank`.
  void setHeldByGdb(int rank, bool held);
  /// The debugger is ending the job: channels that close from now on are
  /// recorded as killed, without a notice.
  void setKilling();
  /// The launcher ended with `status`.
  void launcherEnded(const ExitStatus& status);

  /// Stop events (breakpoint hits, freeze/step stops) applied so far: a
  /// counter `wait` uses to notice a new one.
  std::uint64_t eventCount() const;
  /// Changes of any kind applied so far (registrations, events, ended
  /// channels, gdb holds, the launcher's end): what waitUntil wakes on.
  std::uint64_t changeCount() const;
  /// Number of ranks in the job (from registrations); 0 before the first.
  int size() const;
  /// Number of registered ranks.
  int registered() const;
  /// Copy of every registered rank, by rank.
  std::vector<RankInfo> snapshot() const;
  std::optional<RankInfo> rank(int r) const;
  std::optional<ExitStatus> launcherStatus() const;

  /// Blocks until `done()` (evaluated without the lock, after each change) is
  /// true, `timeout` passes, or `cancelled()` returns true (checked every
  /// 100 ms). Returns whether `done()` became true.
  bool waitUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout,
                 const std::function<bool()>& cancelled);

  /// Joins the run to `mpidbg check`'s findings (`mpidbg --check FILE`): a
  /// violation event whose thread made its MPI call at a site a thread-level
  /// or concurrent-collective finding flags says so under its stacks
  /// ("    predicted by mpidbg check at x.c:15 [mpidbg-thread-level]") and
  /// counts in predictedViolations. Null: no findings.
  void setStaticFindings(std::shared_ptr<const StaticFindings> findings);
  std::shared_ptr<const StaticFindings> staticFindings() const;
  /// Per finding (its index in staticFindings), the ranks whose violation
  /// events were at its site, either thread of the report; findings never
  /// matched are absent.
  std::map<std::size_t, RankSet> predictedViolations() const;

 private:
  /// Counts a change (changeCount) and wakes waitUntil; with mutex_ held.
  void markChanged();
  void notify(const std::string& line);
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<int, RankInfo> ranks_;
  int size_ = 0;
  std::optional<ExitStatus> launcherStatus_;
  bool killing_ = false;
  std::uint64_t events_ = 0;
  std::uint64_t changes_ = 0;
  Notifier notifier_;
  std::shared_ptr<const StaticFindings> findings_;
  std::map<std::size_t, RankSet> predicted_;
};

}  // namespace mpidbg::core
