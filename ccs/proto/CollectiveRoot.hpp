#pragma once

// A rooted collective's root on the wire when it is no rank: MpiCall::peer
// with peerRole "root" (RankProtocol.hpp) and PendingOp::peer of a rooted
// collective (QueueProtocol.hpp) carry these in place of the MPI library's
// own values, which MPICH and Open MPI spell differently (the runtime's
// CallScope.hpp wireRoot). An intercommunicator's root group passes MPI_ROOT
// at its root and MPI_PROC_NULL at its other members (MPI 4.0, 6.2.2).

#include <cstdint>

namespace mpidbg::ccs::proto {

inline constexpr std::int32_t kRootProcNull = -2;  ///< MPI_PROC_NULL
inline constexpr std::int32_t kRootIsMe = -3;      ///< MPI_ROOT

}  // namespace mpidbg::ccs::proto
