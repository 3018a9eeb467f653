#pragma once

#include <string>

#include "ccs/transport/Server.hpp"

namespace mpidbg::rt {

class Runtime;

/// Registers the mpidbg/gdbserver handler (ccs/proto/GdbServerProtocol.hpp): starts
/// `gdbserver --once --multi BIND:0` on this rank's host so that a gdb on the
/// front end's host can debug this process remotely (`target extended-remote`
/// then `attach <pid>`), and replies with the address gdbserver listens on.
///
/// `bindHost` is the interface the rank's CCS server binds (loopback unless
/// MPIDBG_CCS_BIND names one); gdbserver listens there too. The executable is
/// MPIDBG_GDBSERVER if set, else `gdbserver` searched in PATH.
///
/// gdbserver runs as a child of a watcher thread of this process, with
/// PR_SET_PDEATHSIG = SIGKILL, in the rank's process group and environment, so
/// it never outlives the rank. The watcher reaps it, and kills it when no gdb
/// connected within the request's `connecttimeout`; after gdb's connection
/// closes, `--once` ends it (a still-attached rank is then detached by it).
/// The reply is sent before anything is attached, so the CCS helper thread is
/// never stopped while it still owes the front end an answer.
///
/// Errors are replied as a record with `error`: already traced (TracerPid of
/// this process), gdbserver not found or not executable, gdbserver exiting or
/// not printing "Listening on port N" within 10 s, a malformed request.
/// Blocks the calling (helper) thread for at most about 10 s. A typed handler
/// (TypedHandler.hpp): an exception is replied as `error` too.
void registerGdbServerHandler(ccs::Server& server, std::string bindHost, Runtime& runtime);

}  // namespace mpidbg::rt
