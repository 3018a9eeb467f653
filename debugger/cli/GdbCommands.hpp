#pragma once

#include <string_view>

#include "debugger/cli/Commands.hpp"

namespace mpidbg::cli {

/// gdb on ranks (Session::gdb, core/GdbPool.hpp): console commands and raw
/// MI commands, their outputs grouped across ranks with value ranges.

/// `gdb [--keep] RANKS COMMAND`, `gdb attach [RANKS]`, `gdb detach [RANKS]`:
/// COMMAND on each rank's gdb (attaching on first use); a command that only
/// looks (isLookCommand) lets the ranks it attached for go again unless
/// --keep. Per-rank errors under "errors:"; fails when no rank succeeded.
CommandResult doGdb(Context& ctx, const CommandArgs& args);
/// `-mi [--keep] RANKS MI-COMMAND`: one raw MI command; each rank's result
/// record as gdb wrote it, grouped; queries (isLookMiCommand) release as
/// `gdb` does.
CommandResult doMi(Context& ctx, const CommandArgs& args);

}  // namespace mpidbg::cli
