#pragma once

#include <string_view>

#include "debugger/cli/Commands.hpp"

namespace mpidbg::cli {

/// The job as a whole: let ranks go, what they are doing, wait for a stop,
/// the ranks' registrations, kill and quit. Each fills a CommandResult.

/// `run [RANKS]` (aliases continue, c, r, unfreeze): continues the ranks
/// (the focus, or every rank, by default); the ranks that were not
/// continued are named with why, and the command fails when none was.
CommandResult doContinue(Context& ctx, const CommandArgs& args);
/// `status [RANKS]`: each rank's state grouped by identical text, with the
/// call site of each rank that waits; a rank held by gdb is read through
/// the message-queue DLL.
CommandResult doStatus(Context& ctx, const CommandArgs& args);
/// `wait [SECONDS]`: until a rank stops, every rank is blocked, frozen, held
/// or has exited, the job ends, SECONDS pass (parseWaitTimeout) or Ctrl-C.
CommandResult doWait(Context& ctx, const CommandArgs& args);
/// `ranks [RANKS]`: one line per rank (host, pid, CCS endpoint, node and
/// PMIx name where the launcher names them, life).
CommandResult doRanks(Context& ctx, const CommandArgs& args);
/// `kill`: ends the job (no arguments; fails without a job).
CommandResult doKill(Context& ctx, const CommandArgs& args);
/// `quit`: ends the session (CommandResult::quit).
CommandResult doQuit(Context& ctx, const CommandArgs& args);

}  // namespace mpidbg::cli
