#pragma once

// What a rank's runtime reads when it starts (Runtime::startAfterInit): the
// environment's settings, the session key, the address its CCS server binds,
// the MPI library's name. Used by Runtime.cpp (a job launched by mpidbg) and
// ListeningJob.cpp (a job listening for a debugger to attach).

#include <cstdint>
#include <string>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::rt::startup {

/// The value of environment variable `name`, or `fallback` when it is unset
/// or empty.
std::string envOr(const char* name, const char* fallback);

/// The 256-bit session key from MPIDBG_KEY_FILE: 64 hex characters (surrounding
/// whitespace ignored) in a regular file that only its owner can access.
/// Errors name the file and what is wrong with it (unset, unreadable, not a
/// regular file, open to group or others, not 64 hex characters).
Expected<std::vector<std::uint8_t>> readKey();

/// The first line of MPI_Get_library_version, trimmed, blank runs made one
/// space ("MPICH Version: 4.0.2"); "unknown" when MPI does not say. Calls PMPI.
std::string mpiLibrary();

/// The address the CCS server binds. MPIDBG_CCS_BIND names it: an address,
/// or "host" for the address of the host the launcher placed the rank on
/// (Hydra's MPIR_CVAR_CH3_INTERFACE_HOSTNAME, Slurm's SLURMD_NODENAME, else
/// this machine's host name; a real interface when that is a cluster node).
/// Unset: when the front end (`frontendHost`, empty for a listening job) is
/// on a non-loopback address, the local address the route to it leaves from,
/// so a front end on another host can reach the server (mpidbg --listen);
/// otherwise loopback — the launcher's host when that is a loopback address
/// (Hydra's `-hosts localhost,127.0.0.2` on one machine), else 127.0.0.1.
/// Errors: a host name or front end address that does not resolve.
Expected<std::string> bindAddress(const std::string& frontendHost);

/// True for the Charm-compatible mode (Runtime::startAfterInit): MPIDBG_CHARM
/// set (not "0") or MPIDBG_CCS_SECURITY=sha1.
bool charmCompatible();

/// Under srun without an MPI plugin (no `--mpi=pmi2`; Slurm's own default is
/// MpiDefault=none) MPICH finds no PMI, so each task is a job of its own,
/// rank 0 of 1, and the front end sees one rank where srun started many.
/// Says so on stderr when MPI_COMM_WORLD's `size` is 1; does nothing outside
/// Slurm or when the sizes agree.
void warnIfSingletonTask(int size);

}  // namespace mpidbg::rt::startup
