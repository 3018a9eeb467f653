#pragma once

// Idle waiting: blocking MPI calls that sleep instead of spinning.
//
// MPICH (ch4:ucx) and Open MPI wait for a message by polling the network in a
// loop. With more ranks on a node than cores, as on a laptop or in a test
// allocation, every blocked rank keeps its core busy, and the runtime's CCS
// helper threads wait for a time slice behind them: a report over 64
// oversubscribed ranks takes most of a second. In idle-wait mode the runtime
// turns each blocking call into its nonblocking form and completes it with
// MPI_Test* polls, spinning briefly and then sleeping with a growing pause
// (at most kMaxPause), so blocked ranks leave the cores to ranks that compute
// and to the helper threads. The matching semantics are the MPI standard's
// own equivalences (MPI-4.0 section 3.7.3: a blocking call behaves as the
// nonblocking call followed by MPI_Wait; section 6.12 for collectives), with
// one rule: blocking and nonblocking collectives do not match each other
// (MPI-4.0 6.12), so the mode is decided for the whole job at MPI_Init.
//
// MPIDBG_IDLE_WAIT: "auto" (default: on when some node runs more ranks than
// it has cores for them, decided by one allreduce at MPI_Init), "1"/"on",
// "0"/"off".

#include <mpi.h>

namespace mpidbg::rt {

/// True when blocking calls wait by sleeping (decided once, at MPI_Init, the
/// same on every rank; false before). Read on the wrappers' slow path only:
/// when it is true the fast path is off.
extern bool gIdleWait __attribute__((visibility("hidden")));

/// Decides gIdleWait for the job (collective over MPI_COMM_WORLD when
/// MPIDBG_IDLE_WAIT is "auto": every rank must call it, right after
/// PMPI_Init*, whatever else fails). Returns the decision. Never throws.
bool decideIdleWait() noexcept;

/// The sleeping equivalents of the blocking calls: same arguments, same
/// results, same errors as the PMPI function they stand for. Each posts
/// the nonblocking form (PMPI_I*) and completes it with waitIdle().
namespace idle {

/// Completes `*request` like PMPI_Wait: PMPI_Test polls, then sleeps.
int wait(MPI_Request* request, MPI_Status* status) noexcept;
/// PMPI_Waitall through PMPI_Testall polls.
int waitall(int count, MPI_Request requests[], MPI_Status statuses[]) noexcept;
/// PMPI_Waitany through PMPI_Testany polls.
int waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) noexcept;
/// PMPI_Waitsome through PMPI_Testsome polls.
int waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) noexcept;
/// PMPI_Probe through PMPI_Iprobe polls.
int probe(int source, int tag, MPI_Comm comm, MPI_Status* status) noexcept;

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) noexcept;
int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) noexcept;
int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) noexcept;
/// Buffered sends complete locally: passed straight to PMPI_Bsend.
int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) noexcept;
int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) noexcept;
/// MPI_Isendrecv where the library has it (MPI 4), else PMPI_Sendrecv.
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status* status) noexcept;
int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                         MPI_Comm comm, MPI_Status* status) noexcept;

int MPI_Barrier(MPI_Comm comm) noexcept;
int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) noexcept;
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) noexcept;
int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) noexcept;
int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) noexcept;
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) noexcept;
int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm) noexcept;
int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm) noexcept;
int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) noexcept;
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept;
int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept;
int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) noexcept;
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept;
int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept;

}  // namespace idle

/// `PMPI_NAME ARGS`, or its idle::NAME equivalent in idle-wait mode: the
/// call a wrapper makes after recording the call.
#define MPIDBG_PMPI_OR_IDLE(NAME, ARGS) (::mpidbg::rt::gIdleWait ? ::mpidbg::rt::idle::NAME ARGS : P##NAME ARGS)

}  // namespace mpidbg::rt
