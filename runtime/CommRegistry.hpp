#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "CommTable.hpp"
#include "ccs/proto/QueueProtocol.hpp"
#include "ccs/proto/RankProtocol.hpp"

namespace mpidbg::rt {

/// A communicator handle as the wire carries it (handleKey).
inline std::uint64_t commKey(MPI_Comm comm) noexcept { return handleKey(comm); }
/// The handle key of a window (handleKey): MPICH's window handles and
/// communicator handles differ in their kind bits, Open MPI's are distinct
/// objects, so a window never takes a communicator's key.
inline std::uint64_t winKey(MPI_Win win) noexcept { return handleKey(win); }

/// Asks MPI (PMPI_* only; call on an MPI thread, never the helper thread)
/// for the size, this rank's rank and the world rank of every rank of `comm`
/// (its group; for an intercommunicator its remote group, whose ranks its
/// point-to-point calls name, and the remote size), through PMPI_Comm_group
/// (or PMPI_Comm_remote_group) + PMPI_Group_translate_ranks (groups freed);
/// a rank outside MPI_COMM_WORLD (another job's) is -1. Errors (or no
/// memory) leave the corresponding fields at their defaults.
CommInfo describeComm(MPI_Comm comm) noexcept;

/// The default name of a communicator: "MPI_COMM_WORLD", "MPI_COMM_SELF", or
/// "comm 0x%x" of the handle, written into `out` (NUL-terminated).
void defaultCommName(MPI_Comm comm, std::array<char, 64>& out) noexcept;

/// The communicator registry of one rank: its table (CommTable) and the
/// registration of communicators the runtime meets without having seen them
/// made, which asks MPI.
class CommRegistry : public CommTable {
 public:
  constexpr CommRegistry() noexcept = default;

  /// The record of `comm`, registering it first (describeComm, default name)
  /// if this rank has not seen it: communicators made by calls the runtime
  /// does not interpose. Calls PMPI: MPI threads only.
  CommRecord* findOrRegister(MPI_Comm comm) noexcept;
};

}  // namespace mpidbg::rt
