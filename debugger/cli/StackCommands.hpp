#pragma once

#include <string_view>

#include "debugger/cli/Commands.hpp"

namespace mpidbg::cli {

/// Merged stack trees (issue 6): the ranks capture their own stacks
/// (Debugger::stacks), the front end symbolizes and merges them
/// (debugger/core/stacks).

/// `where [--full] [--tree] [--all-frames] [--all-threads] [--json] [--dot FILE] [RANKS]`:
/// every rank's threads merged into one call-prefix tree; by default one line
/// per leaf (`main > solve > MPI_Allreduce  [0-62]`), the machinery's own
/// threads left out and counted in a note (core::ThreadChoice). Remembers the
/// equivalence classes for `$equiv[N]`.
CommandResult doWhere(Context& ctx, const CommandArgs& args);
/// `equiv [--full] [--all-frames] [--all-threads] [RANKS]`: the equivalence classes (ranks
/// with identical stacks), numbered for `$equiv[N]`.
CommandResult doEquiv(Context& ctx, const CommandArgs& args);

}  // namespace mpidbg::cli
