#pragma once

#include "ccs/proto/QueueProtocol.hpp"

namespace mpidbg::rt {

class Runtime;

/// This rank's message-queue and collective state for the mpidbg/queues
/// handler (ccs/proto/QueueProtocol.hpp): phase, the current call, the requests of
/// the MPI_Wait*/Test* it is inside, every registered communicator with its
/// counters, world ranks and collective sequence number, the pending
/// operations of each (the op table, plus the blocking point-to-point call
/// the rank is inside as an operation with blocking = true: MPI_Send/Ssend/
/// Bsend/Rsend a send, MPI_Recv/Probe/Sendrecv* a receive from the source),
/// and the collective history, oldest first; source "ccs". Helper thread;
/// never calls MPI; allocates.
ccs::proto::RankQueues queuesOf(Runtime& rt);

}  // namespace mpidbg::rt
