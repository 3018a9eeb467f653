#pragma once

// The stacks of a core file's threads, unwound in the front end (elfutils
// libdwfl: the core's memory and registers, the call-frame information of the
// files its NT_FILE note names) into the frames a rank's runtime sends
// (ccs/proto/StackProtocol.hpp), so that `mpidbg core` names where each rank made
// its MPI call as a live job's `hang` does (issue 24 item 1).

#include <string>

#include "ccs/proto/StackProtocol.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core::stacks {

/// Every thread of core file `corePath`, dumped from a process that ran
/// `executable` (empty: the one the core names), innermost frame first:
/// each pc as (module, pc minus the module's load bias), exact for the
/// interrupted pc and past a signal frame, as the runtime captures them.
/// worldRank is -1 (the caller knows the rank), pid the dumped process's,
/// mainThread the thread whose id is the pid; host is empty. A thread whose
/// unwinding stops early keeps the frames read and its error. Errors: the
/// core cannot be opened or is not an ELF core ("core.12: not a core
/// file"), or libdwfl cannot read its threads (its message).
Expected<ccs::proto::RankStacks> readCoreStacks(const std::string& corePath, const std::string& executable);

}  // namespace mpidbg::core::stacks
