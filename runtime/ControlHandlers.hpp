#pragma once

#include <string>

#include "ccs/transport/Server.hpp"

namespace mpidbg::rt {

class Runtime;

/// Attaches Control to `runtime` (call on the thread that called MPI_Init,
/// before the helper thread serves `server`) and registers the control
/// handlers of ccs/proto/ControlProtocol.hpp: mpidbg/bp/{set,delete,enable,list},
/// mpidbg/freeze, mpidbg/step, mpidbg/entries, mpidbg/detach, and mpidbg/attach
/// (ccs/proto/AttachProtocol.hpp: a listening job registers with a front end). Every reply to
/// a malformed request is a ControlReply error, never an empty reply.
void registerControlHandlers(ccs::Server& server, Runtime& runtime);

/// The `stop` text of RankStatus: the control stop's text, "at the end of
/// MPI_Init" while held there, else empty. With `number`, RankStatus's
/// `stopNumber` too (the control stop's number; 0 otherwise).
std::string stopTextOf(Runtime& rt, std::uint32_t* number = nullptr);

}  // namespace mpidbg::rt
