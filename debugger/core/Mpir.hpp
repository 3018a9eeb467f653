#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::core {

namespace mqs {
class TargetMemory;
class SymbolSource;
}  // namespace mqs

/// One entry of a launcher's MPIR_proctable. Source: "The MPIR Process
/// Acquisition Interface" (MPI Forum, version 1.0, 2010), section 9.1:
/// `struct MPIR_PROCDESC { char* host_name; char* executable_name; int pid; }`,
/// the table indexed by rank in MPI_COMM_WORLD.
struct MpirProcess {
  std::string host;        ///< host_name: where the rank runs, as the launcher names it
  std::string executable;  ///< executable_name: the program as the launcher started it
  pid_t pid = 0;           ///< the rank's process id on `host`
};

/// The MPIR process table of a launcher read from outside, without stopping
/// it: MPIR_proctable_size entries of MPIR_proctable, rank i at index i.
/// `memory` reads the launcher's address space and `symbols` finds its
/// MPIR_proctable, MPIR_proctable_size and MPIR_debug_state (any of its ELF
/// objects may define them: srun's executable, Open MPI's libopen-rte).
/// Only 64-bit launchers (the table's pointers are read as 8 bytes).
/// Errors: the launcher defines no MPIR_proctable (it speaks no MPIR: Hydra's
/// mpiexec); the table is empty (Open MPI's mpirun fills it only for a job it
/// started under a debugger); more than 2^22 entries; unreadable memory;
/// an entry without a host name or with a pid below 1.
Expected<std::vector<MpirProcess>> readMpirProctable(mqs::TargetMemory& memory, const mqs::SymbolSource& symbols);

/// readMpirProctable of live process `launcher` on this host (its
/// /proc/PID/maps and its memory; needs ptrace permission over it). Errors
/// as readMpirProctable, and: no such process, its memory is not readable.
Expected<std::vector<MpirProcess>> readMpirProctable(pid_t launcher);

}  // namespace mpidbg::core
