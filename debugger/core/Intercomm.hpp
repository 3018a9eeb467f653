#pragma once

// Intercommunicators in the queue state (ccs/proto/QueueProtocol.hpp): the runtime
// describes one by its remote group (runtime/CommRegistry.cpp describeComm),
// so that the ranks its point-to-point calls name are world ranks; its two
// groups share no identity (no uid, and each side is described by the
// other's members). The verdict (HangReport.cpp) and the collectives report
// (CollectiveReport.cpp) find one side's view from the other's here.
// Defined in HangReport.cpp.

#include "ccs/proto/QueueProtocol.hpp"

namespace mpidbg::core {

/// True when `comm`, as world rank `rank` holds it, is an intercommunicator:
/// its members (the remote group) never include the rank itself, while an
/// intracommunicator's always do. False when its members are not all known.
bool isInter(const ccs::proto::CommQueues& comm, int rank);

/// The intercommunicator `comm` of world rank `rank` as the rank of the
/// remote group whose queues are `q` holds it: its intercommunicator whose
/// remote group has `rank` at `comm`'s local rank and whose own local rank
/// names that rank in `comm`'s remote group. Of several, the one with
/// `comm`'s handle; nullptr when there is none or they cannot be told apart.
const ccs::proto::CommQueues* interCounterpart(const ccs::proto::RankQueues& q, int rank,
                                               const ccs::proto::CommQueues& comm);

}  // namespace mpidbg::core
