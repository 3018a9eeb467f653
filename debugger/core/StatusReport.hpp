#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ccs/proto/RankProtocol.hpp"
#include "debugger/core/Job.hpp"

namespace mpidbg::core {

/// Everything known about one rank at one moment: the job model's record
/// and, for reachable ranks, the runtime's status reply or why it failed.
struct RankView {
  RankInfo info;
  std::optional<ccs::proto::RankStatus> status;
  std::string queryError;  ///< set when a reachable rank did not answer
  /// For a rank held by gdb (its runtime cannot answer): the MPI call it
  /// was stopped in, read from its memory through the message-queue DLL
  /// (Debugger::queueStates), when the caller read it.
  std::optional<ccs::proto::MpiCall> heldCall;
};

/// The collective whose calls `function` is counted with when that is not
/// itself ("MPI_Scan" for MPI_Exscan and MPI_Iexscan: collective classes,
/// ccs/condition/Condition.hpp FunctionInfo::collClass), else "". Call numbers of a
/// class count both.
std::string countedWith(const std::string& function);

/// `MPI_Recv(source=0, tag=99, comm=MPI_COMM_WORLD)` for point-to-point
/// calls; `MPI_Allreduce (call 1 on MPI_COMM_WORLD)` or
/// `MPI_Bcast(root=0) (call 3 on MPI_COMM_WORLD)` for collectives,
/// `MPI_Exscan (call 2 on MPI_COMM_WORLD, counted with MPI_Scan)` for one
/// counted with another (countedWith).
std::string describeCall(const ccs::proto::MpiCall& call);

/// True when `call` has lasted `blockedAfter` or longer: one call that long,
/// or a polling streak (MpiCall::polling) that long whose last test is less
/// than `blockedAfter` ago. A short streak, or one the rank has left to do
/// something else for `blockedAfter`, is not waiting.
bool waitsLong(const ccs::proto::MpiCall& call, std::chrono::milliseconds blockedAfter);

/// "polls MPI_Test for 4.0 s", "polls MPI_Iprobe(source=1, tag=5,
/// comm=MPI_COMM_WORLD) for 4.0 s": a polling call's phrase
/// (MpiCall::polling), with `what` (" on MPI_Irecv(source=1, tag=5,
/// count=1)") after the call when given.
std::string pollPhrase(const ccs::proto::MpiCall& call, const std::string& what = {});

/// One phrase for a rank's state: "blocked in <call>" (inside an MPI call for
/// at least `blockedAfter`), "polls <call> for N s" (polling that long:
/// waitsLong), "in <call>", "running", "frozen",
/// "finalized", "stopped by gdb" ("stopped by gdb in <call>" when
/// RankView::heldCall is known), "exited with code 0", "exited with signal
/// 11 (Segmentation fault)", "not responding (<why>)".
std::string describeRankState(const RankView& view, std::chrono::milliseconds blockedAfter);

/// True when the rank will not make progress by itself: blocked in MPI or
/// polling (waitsLong), frozen, held by gdb, or ended.
bool isSettled(const RankView& view, std::chrono::milliseconds blockedAfter);

/// The least time after `views` were read before every rank could be
/// settled (isSettled) with nothing else happening; zero when they are. A
/// rank inside an MPI call for e needs blockedAfter - e more, should it stay
/// in that call; any other live rank a whole blockedAfter (it must enter a
/// call and stay there); a rank with no status yet zero (unknown). `wait`
/// looks again after this long rather than at a fixed rate: every look is a
/// status request that wakes each rank's helper thread, which on a machine
/// whose cores the ranks fill takes a core from the application
/// (docs/performance.md, session 10). Stops and exits end the pause
/// earlier: they are job changes (Job::changeCount).
std::chrono::milliseconds untilSettled(const std::vector<RankView>& views, std::chrono::milliseconds blockedAfter);

/// One rank's status line: describeRankState, then " at SITE" when
/// `callSites` has the rank (where it made the call it waits in,
/// mpiCallSites).
std::string statusLine(const RankView& view, std::chrono::milliseconds blockedAfter,
                       const std::map<int, std::string>& callSites);

/// The per-rank status, grouped by identical line (statusLine): `[0-1,3]
/// blocked in ... at solver.c:88 in exchange`.
std::string renderStatus(const std::vector<RankView>& views, std::chrono::milliseconds blockedAfter,
                         const std::map<int, std::string>& callSites = {});

}  // namespace mpidbg::core
