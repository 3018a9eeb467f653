#pragma once

// The commands of a session on a Charm++ program (issue 26): the same prompt,
// batch mode and JSON as for MPI jobs, PEs standing for ranks, answered by
// the Charm++ back end (debugger/core/charm/CharmJob.hpp).

#include <string_view>
#include <vector>

#include "debugger/cli/Commands.hpp"

namespace mpidbg::cli {

/// The commands that act differently on a Charm++ program (status, break,
/// delete, info, freeze, run, step, wait, lists, print, detach, kill), in
/// `help` order. Commands of the MPI table not here either work unchanged
/// on the PE processes (where, gdb, -mi, ranks, set, focus, help, quit) or
/// say why they do not apply (charmOnlyMpi).
const std::vector<Command>& charmCommandTable();

/// True when the MPI command `name` (a canonical name of commandTable()) has
/// no meaning for a Charm++ program (hang, queues, collectives, disable, ...).
bool charmOnlyMpi(std::string_view name);

/// `help` on a Charm++ program: its commands and those of the MPI table that
/// act on the PE processes alike (where, gdb, -mi, ranks, help, quit), then
/// the PE-set notation.
CommandResult charmHelpList();

}  // namespace mpidbg::cli
