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
#include "debugger/core/GdbPool.hpp"
#include "debugger/core/HangReport.hpp"
#include "debugger/core/Job.hpp"
#include "debugger/core/RankExpr.hpp"
#include "debugger/core/RankRouter.hpp"
#include "debugger/core/RankSet.hpp"
#include "debugger/core/Session.hpp"
#include "debugger/core/StackQuery.hpp"
#include "debugger/core/StatusReport.hpp"

namespace mpidbg::core {

/// The front end's debugger: a Session (the job from launch or attach to
/// detach or kill, and the router to its ranks) with the queries commands ask
/// on top (status views, rank sets, message queues, stacks, collectives) and
/// the execution control (controls()). Commands call into it; it never
/// prints (notices go to the notifier).
class Debugger {
 public:
  /// `notify` receives asynchronous notices (a rank exited, a rejected
  /// connection), possibly from a background thread. `routing` says how
  /// requests reach the ranks for the whole session (Session::routing()).
  explicit Debugger(std::function<void(const std::string&)> notify, RouteSettings routing = defaultRouting());

  /// The routing of a session without options: through the forwarding tree
  /// of fan-out ccs::kDefaultFanOut, 3 s per CCS request.
  static RouteSettings defaultRouting() { return {true, ccs::kDefaultFanOut, std::chrono::milliseconds(3000)}; }
  Debugger(const Debugger&) = delete;
  Debugger& operator=(const Debugger&) = delete;

  /// The job: launch, attach, detach, kill, the job model, gdb, the router.
  Session& session() { return session_; }
  const Session& session() const { return session_; }

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
  /// Session::kill(); detach() forgets them.
  ControlService& controls() { return *controls_; }

  /// Session::detach, and the breakpoints are forgotten (controls()): the
  /// ranks dropped theirs.
  void detach();

  /// Stop events (breakpoint hits, freeze/step stops) received so far.
  std::uint64_t stopEvents() const { return session_.job().eventCount(); }

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

 private:
  /// The top `depth` frames of `rank` from its gdb session (empty when gdb
  /// gives none).
  std::vector<std::string> heldFrames(int rank, int depth);
  /// The queue state of a rank held by gdb, read from its memory through the mqs DLL.
  Expected<ccs::proto::RankQueues> readHeldRank(const RankInfo& info);
  /// The queue state of a rank attached by pid: the MPI's message-queue DLL
  /// when it has one (collectives from the frames when the DLL keeps none),
  /// else the call it is in from a one-shot gdb backtrace.
  Expected<ccs::proto::RankQueues> readProcessRank(const RankInfo& info);

  /// The job; declared first, so that it is destroyed last (its destructor
  /// detaches from or kills the job).
  Session session_;
  /// The breakpoint table and the control requests, over control() and collect().
  std::unique_ptr<ControlService> controls_;
  /// When each rank was last let go (continue, step): a rank released inside
  /// an MPI call restamps the call's entry only once its thread runs, so a
  /// status read in between would show it waiting since before its stop.
  /// views() counts a call's time from here at the earliest.
  std::mutex resumedMutex_;
  std::map<int, std::chrono::steady_clock::time_point> resumedAt_;
  void noteResumed(const std::vector<RankInfo>& ranks, const std::map<int, std::string>& missing);
  /// setMqsDll's path ("": each rank's MPIR_dll_name).
  std::string mqsDll_;
};

}  // namespace mpidbg::core
