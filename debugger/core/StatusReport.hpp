#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ccs/RankProtocol.hpp"
#include "debugger/core/Job.hpp"

namespace mpidbg::core {

/// Everything known about one rank at one moment: the job model's record
/// and, for reachable ranks, the runtime's status reply or why it failed.
struct RankView {
  RankInfo info;
  std::optional<ccs::proto::RankStatus> status;
  std::string queryError;  ///< set when a reachable rank did not answer
};

/// `MPI_Recv(source=0, tag=99, comm=MPI_COMM_WORLD)` for point-to-point
/// calls; `MPI_Allreduce (call 1 on MPI_COMM_WORLD)` or
/// `MPI_Bcast(root=0) (call 3 on MPI_COMM_WORLD)` for collectives.
std::string describeCall(const ccs::proto::MpiCall& call);

/// One phrase for a rank's state: "blocked in <call>" (inside an MPI call for
/// at least `blockedAfter`), "in <call>", "running", "frozen",
/// "finalized", "stopped by gdb", "exited with code 0", "exited with signal
/// 11 (Segmentation fault)", "not responding (<why>)".
std::string describeRankState(const RankView& view, std::chrono::milliseconds blockedAfter);

/// True when the rank will not make progress by itself: blocked in MPI (per
/// `blockedAfter`), frozen, held by gdb, or ended.
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

/// The per-rank status, grouped by identical state: `[0-1,3] blocked in ...`.
std::string renderStatus(const std::vector<RankView>& views, std::chrono::milliseconds blockedAfter);

}  // namespace mpidbg::core
