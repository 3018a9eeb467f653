#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "CurrentCall.hpp"
#include "ccs/proto/RankProtocol.hpp"
#include "ccs/transport/Server.hpp"

namespace mpidbg::rt {

class Runtime;

/// A published call record as the wire carries it (ccs/proto/RankProtocol.hpp
/// MpiCall): names, the communicator's name, microseconds since entry.
/// Helper thread; allocates.
ccs::proto::MpiCall wireCallOf(Runtime& rt, const MpiCallRecord& call);

/// The call the front end should see the rank in: `call` (the current-call
/// record, if any) as wireCallOf gives it, or, while the rank polls (its
/// PollWatch streak still holds: the streak's last test is the rank's last
/// intercepted call, or the rank is inside the test that follows it), that
/// test with MpiCall::polling set, timed from the streak's first test.
/// Between two tests `polledRequests` (if given) receives the streak's
/// request handles: the requests the rank waits for. Helper thread.
std::optional<ccs::proto::MpiCall> observedCall(Runtime& rt, const std::optional<MpiCallRecord>& call,
                                                std::vector<std::uint64_t>* polledRequests = nullptr);

/// Registers the runtime's CCS handlers on `server` (ccs/proto/RankProtocol.hpp):
/// mpidbg/status (one RankStatus), mpidbg/collectives (one CommState per live
/// communicator), mpidbg/queues (one RankQueues, QueueHandler.hpp),
/// mpidbg/continue (resume from any stop: MPI_Init, breakpoint,
/// freeze, step; cancels a pending freeze or step; empty reply), the control
/// handlers (ControlHandlers.hpp; call on the MPI_Init thread),
/// mpidbg/threadlevel (ThreadLevel.hpp), and Charm++'s
/// ccs_getinfo (4-byte big-endian node count = world size, then that many
/// big-endian 1s: each rank is one PE). Handlers run on the helper thread and
/// never call MPI; `runtime` must outlive `server`.
void registerHandlers(ccs::Server& server, Runtime& runtime);

}  // namespace mpidbg::rt
