#pragma once

#include <string_view>

#include "ccs/proto/ControlProtocol.hpp"
#include "debugger/cli/Commands.hpp"

namespace mpidbg::cli {

/// Execution control (the CharmDebug model for MPI): breakpoints on MPI calls
/// and entry points, freeze, step, detach. Each fills a CommandResult; the
/// rank-side contract is ccs/proto/ControlProtocol.hpp.

/// `break [RANKS] MPI_FUNCTION [if] [CONDITION] [#N]`, `break [RANKS] entry NAME [if CONDITION]`.
/// The arguments are checked (the rank set's syntax, parseBreakpoint) before
/// the job is needed.
CommandResult doBreak(Context& ctx, const CommandArgs& args);
/// The breakpoint that `break` arguments after the optional RANKS describe:
/// `MPI_FUNCTION [if] [CONDITION] [#N]`, `entry NAME [if CONDITION] [#N]` or
/// `violation [#N]`; kind, target, condition (validated for the function,
/// ccs/condition/Condition.hpp) and hit count (0: every match) are filled, id is 0.
/// Pure. Errors: blank (the usage), an unknown MPI function (with
/// suggestions), `entry` without NAME, a bad `#N`, a condition on
/// `violation`, the condition's syntax or a field the function lacks.
Expected<ccs::proto::Breakpoint> parseBreakpoint(std::string_view args);
/// `info break|entries|...`.
CommandResult doInfo(Context& ctx, const CommandArgs& args);
/// `delete N`, `disable N`, `enable N` (N may be `all` for delete).
CommandResult doDelete(Context& ctx, const CommandArgs& args);
CommandResult doDisable(Context& ctx, const CommandArgs& args);
CommandResult doEnable(Context& ctx, const CommandArgs& args);
/// `freeze [--now] [RANKS]`.
CommandResult doFreeze(Context& ctx, const CommandArgs& args);
/// `step [COUNT] [RANKS]` and `next [COUNT] [RANKS]`, one command under two
/// names: COUNT (default 1) safe points; a first word of digits is COUNT.
CommandResult doStep(Context& ctx, const CommandArgs& args);
CommandResult doNext(Context& ctx, const CommandArgs& args);
/// `detach`: leave the job running without the debugger.
CommandResult doDetach(Context& ctx, const CommandArgs& args);

}  // namespace mpidbg::cli
