#pragma once

// Internal to the commands of Commands.hpp, shared by their files and
// included by no other: JobCommands.cpp (run, status, wait, ranks, kill,
// quit) and GdbCommands.cpp (gdb, -mi). The public side is JobCommands.hpp
// and GdbCommands.hpp.

#include <string_view>

#include "debugger/cli/Commands.hpp"
#include "debugger/core/RankSet.hpp"

namespace mpidbg::cli::detail {

/// The rank set named by `text`, or the focus (every rank without one) when
/// `text` is empty; an empty set is an error (SetCommands.hpp).
Expected<core::RankSet> ranksOrAll(Context& ctx, std::string_view text);

}  // namespace mpidbg::cli::detail
