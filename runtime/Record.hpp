#pragma once

// Record and replay of the message-matching decisions an MPI program cannot
// control (issue 11): which source and tag a wildcard receive or probe
// matched, which requests MPI_Waitany/Waitsome/Testany/Testsome completed and
// in which order, whether an MPI_Test*/MPI_Iprobe succeeded. One decision log
// per rank (common/include/mpidbg/DecisionLog.hpp).
//
// Recording (MPIDBG_RECORD=DIR) writes DIR/rank-R.rec, buffered, flushed on
// MPI_Finalize, MPI_Abort, exit and fatal signals. Replaying
// (MPIDBG_REPLAY=DIR) reads DIR/rank-R.rec and makes the same decisions: a
// wildcard receive is posted for the recorded source and tag, a recorded
// completion is waited for, a recorded failed test returns flag 0. When the
// program asks for something the log does not hold (another call, a log
// used up, a log that fails its checksum), the rank stops with a report of
// where (a stop event when the debugger is attached, MPI_Abort otherwise).
// Both may be on at once: a replay recorded again must give the same log.
//
// Decisions are taken in one sequence per rank: a program whose threads
// make these calls concurrently (MPI_THREAD_MULTIPLE) replays only when the
// threads' order is itself deterministic.

#include <mpi.h>

#include <string>

#include "ccs/proto/RecordProtocol.hpp"

namespace mpidbg::ccs {
class Server;
}

namespace mpidbg::rt {

class Runtime;

/// Bits of gDecisions.
enum DecisionBit : int {
  kRecording = 1,  ///< decisions are written to a log
  kReplaying = 2,  ///< decisions are taken from a log
};

/// Nonzero while record or replay is on: the one load the wrappers of the
/// deciding calls pay (MPI_Recv, MPI_Irecv, MPI_Probe, MPI_Iprobe,
/// MPI_Sendrecv*, the MPI_Wait* and MPI_Test* families, MPI_Request_free).
/// Set once in MPI_Init (startDecisions), cleared bit by bit when a replay
/// diverges.
extern int gDecisions __attribute__((visibility("hidden")));

/// True when the calling wrapper must take the deciding path.
[[gnu::always_inline]] inline bool decisionsOn() noexcept {
  return __builtin_expect(__atomic_load_n(&gDecisions, __ATOMIC_RELAXED) != 0, 0);
}

/// Reads MPIDBG_RECORD and MPIDBG_REPLAY after PMPI_Init* succeeded, with or
/// without a front end: opens the rank's log for writing (a failure is
/// reported on stderr and recording stays off) and loads the log to replay
/// (a missing or broken log becomes a divergence at the first decision).
void startDecisions() noexcept;

/// Writes out everything recorded and the log's end marker (MPI_Finalize,
/// MPI_Abort, exit). Idempotent; recording stops.
void finishDecisions() noexcept;

/// This rank's record/replay state for `info record`.
ccs::proto::RecordInfo recordInfo(std::int32_t rank);

/// Registers the `mpidbg/record` handler (ccs/proto/RecordProtocol.hpp).
void registerRecordHandler(ccs::Server& server, Runtime& runtime);

/// The deciding paths of the wrappers: each takes the arguments of its MPI
/// call and `plain`, the wrapper's ordinary body (publishing the call,
/// tracking requests), and calls it with the arguments replay decides,
/// recording what it returned.
namespace decided {

using RecvFn = int (*)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status*);
int recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status,
         RecvFn plain) noexcept;

#if MPI_VERSION >= 4
/// MPI-4's large-count MPI_Recv_c, decided as recv.
using RecvCFn = int (*)(void*, MPI_Count, MPI_Datatype, int, int, MPI_Comm, MPI_Status*);
int recvC(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status,
          RecvCFn plain) noexcept;
#endif

using SendrecvFn = int (*)(const void*, int, MPI_Datatype, int, int, void*, int, MPI_Datatype, int, int, MPI_Comm,
                           MPI_Status*);
int sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status,
             SendrecvFn plain) noexcept;

using SendrecvReplaceFn = int (*)(void*, int, MPI_Datatype, int, int, int, int, MPI_Comm, MPI_Status*);
int sendrecvReplace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                    MPI_Comm comm, MPI_Status* status, SendrecvReplaceFn plain) noexcept;

using ProbeFn = int (*)(int, int, MPI_Comm, MPI_Status*);
int probe(int source, int tag, MPI_Comm comm, MPI_Status* status, ProbeFn plain) noexcept;

using IprobeFn = int (*)(int, int, MPI_Comm, int*, MPI_Status*);
int iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status, IprobeFn plain) noexcept;

using IrecvFn = int (*)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
int irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request,
          IrecvFn plain) noexcept;

using WaitFn = int (*)(MPI_Request*, MPI_Status*);
int wait(MPI_Request* request, MPI_Status* status, WaitFn plain) noexcept;

using WaitallFn = int (*)(int, MPI_Request*, MPI_Status*);
int waitall(int count, MPI_Request* requests, MPI_Status* statuses, WaitallFn plain) noexcept;

using WaitanyFn = int (*)(int, MPI_Request*, int*, MPI_Status*);
int waitany(int count, MPI_Request* requests, int* index, MPI_Status* status, WaitanyFn plain) noexcept;

using WaitsomeFn = int (*)(int, MPI_Request*, int*, int*, MPI_Status*);
int waitsome(int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses,
             WaitsomeFn plain) noexcept;

using TestFn = int (*)(MPI_Request*, int*, MPI_Status*);
int test(MPI_Request* request, int* flag, MPI_Status* status, TestFn plain) noexcept;

using TestallFn = int (*)(int, MPI_Request*, int*, MPI_Status*);
int testall(int count, MPI_Request* requests, int* flag, MPI_Status* statuses, TestallFn plain) noexcept;

using TestanyFn = int (*)(int, MPI_Request*, int*, int*, MPI_Status*);
int testany(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status, TestanyFn plain) noexcept;

using TestsomeFn = int (*)(int, MPI_Request*, int*, int*, MPI_Status*);
int testsome(int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses,
             TestsomeFn plain) noexcept;

/// MPI_Request_free of `request` (before the PMPI call): a wildcard receive
/// freed before it completed is no longer waited for by the recorder.
void requestFreed(MPI_Request request) noexcept;

}  // namespace decided

}  // namespace mpidbg::rt
