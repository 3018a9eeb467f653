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

/// The per-rank status, grouped by identical state: `[0-1,3] blocked in ...`.
std::string renderStatus(const std::vector<RankView>& views, std::chrono::milliseconds blockedAfter);

}  // namespace mpidbg::core
