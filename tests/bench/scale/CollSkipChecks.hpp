#pragma once

// What the commands must report for examples/hangs/coll_skip (every rank but
// the last in call 1 to MPI_Allreduce on MPI_COMM_WORLD, the last in
// MPI_Recv from rank 0 with tag 42), so scale_bench fails on wrong results
// and never on slow ones. Each check returns "" when the result is right,
// else one line saying what was wrong.
#include <map>
#include <string>
#include <vector>

#include "ccs/proto/RankProtocol.hpp"
#include "debugger/core/HangReport.hpp"
#include "debugger/core/StatusReport.hpp"

namespace mpidbg::bench {

/// `views` has `n` ranks, each answering and frozen (the job just launched
/// with stopAtInit).
std::string checkFrozen(const std::vector<core::RankView>& views, long n);

/// `views` has `n` ranks, each answering from inside MPI: ranks 0..n-2 in
/// MPI_Allreduce, rank n-1 in MPI_Recv.
std::string checkBlocked(const std::vector<core::RankView>& views, long n);

/// `input` (queueStates) read every one of `n` ranks, and `states` (built
/// from it as `collectives` does) shows ranks 0..n-2 active in MPI_Allreduce
/// on the world communicator and rank n-1 with no MPI_Allreduce call.
std::string checkCollectives(const core::HangInput& input,
                             const std::map<int, std::vector<ccs::proto::CommState>>& states,
                             long n);

/// `leaves` (stacks::renderLeaves: "main > ... > LEAF  [RANKS]" lines) ends
/// in MPI_Allreduce for [0-(n-2)] and in MPI_Recv for [n-1], with no rank
/// read through gdb (`viaGdb`) or missing (`failed`).
std::string checkWhere(const std::string& leaves, long n, std::size_t viaGdb, std::size_t failed);

}  // namespace mpidbg::bench
