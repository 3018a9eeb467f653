#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "debugger/cli/Commands.hpp"
#include "debugger/core/StatusReport.hpp"

namespace mpidbg::cli {

/// Message queues and the hang verdict (issue 5). The data comes from
/// Debugger::queueStates (CCS for live ranks, the mqs DLL for ranks held by
/// gdb); the reports from debugger/core/HangReport.hpp.

/// `queues [RANKS]`: pending sends, receives and nonblocking collectives per
/// communicator, grouped by identical text across ranks.
CommandResult doQueues(Context& ctx, const CommandArgs& args);
/// `hang [--json] [--no-frames]`: the verdict (states, collective sequences,
/// wait-for graph, cycles, ranks waited for outside MPI, ranks to look at).
CommandResult doHang(Context& ctx, const CommandArgs& args);
/// `collectives`: the per-communicator stuck-collective report.
CommandResult doCollectives(Context& ctx, const CommandArgs& args);

/// Where each rank of `views` that waits (blocked or polling, per
/// --blocked-after, and not stopped) or is held by gdb inside a call
/// (RankView::heldCall) made its call: mpiCallSites over their stacks as
/// `where` reads them. Ranks still moving are left out, as their
/// stacks may already be elsewhere.
std::map<int, std::string> waitingCallSites(Context& ctx, const std::vector<core::RankView>& views);

}  // namespace mpidbg::cli
