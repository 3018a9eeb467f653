// The 14 blocking collectives of the mqs collective extension, in
// mqs_comm_class order (../shared/protocols/mqs.md). Each wrapper counts the
// call on its communicator, publishes it as the current call, and calls PMPI.
#include <mpi.h>

#include "CallScope.hpp"

using mpidbg::rt::CallScope;
using mpidbg::rt::MpiFunction;
using mpidbg::rt::PeerRole;

// The fast path (CallScope.hpp fastEnterCollective) for the collectives with
// one count; the v-variants and Reduce_scatter take CallScope directly.
MPIDBG_COLLECTIVE_WRAPPER(MPI_Barrier, (MPI_Comm comm), (comm), MpiFunction::Barrier, comm, -1, -1,
                          MpiFunction::Barrier, comm)

MPIDBG_COLLECTIVE_WRAPPER(MPI_Bcast, (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),
                          (buffer, count, datatype, root, comm), MpiFunction::Bcast, comm, root, count,
                          MpiFunction::Bcast, comm, PeerRole::Root, root, count)

MPIDBG_COLLECTIVE_WRAPPER(MPI_Allgather,
                          (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm),
                          (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), MpiFunction::Allgather,
                          comm, -1, sendcount, MpiFunction::Allgather, comm, PeerRole::None, 0, sendcount)

MPIDBG_EXPORT int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                 MPI_Comm comm) {
  auto scope = CallScope::collective(MpiFunction::Allgatherv, comm, PeerRole::None, 0, sendcount);
  return MPIDBG_PMPI_OR_IDLE(MPI_Allgatherv, (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm));
}

MPIDBG_COLLECTIVE_WRAPPER(MPI_Allreduce,
                          (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm),
                          (sendbuf, recvbuf, count, datatype, op, comm), MpiFunction::Allreduce, comm, -1, count,
                          MpiFunction::Allreduce, comm, PeerRole::None, 0, count)

MPIDBG_COLLECTIVE_WRAPPER(MPI_Alltoall,
                          (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm),
                          (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), MpiFunction::Alltoall,
                          comm, -1, sendcount, MpiFunction::Alltoall, comm, PeerRole::None, 0, sendcount)

MPIDBG_EXPORT int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  auto scope = CallScope::collective(MpiFunction::Alltoallv, comm);
  return MPIDBG_PMPI_OR_IDLE(MPI_Alltoallv, (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm));
}

MPIDBG_EXPORT int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  auto scope = CallScope::collective(MpiFunction::ReduceScatter, comm);
  return MPIDBG_PMPI_OR_IDLE(MPI_Reduce_scatter, (sendbuf, recvbuf, recvcounts, datatype, op, comm));
}

MPIDBG_COLLECTIVE_WRAPPER(MPI_Reduce,
                          (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                           MPI_Comm comm),
                          (sendbuf, recvbuf, count, datatype, op, root, comm), MpiFunction::Reduce, comm, root, count,
                          MpiFunction::Reduce, comm, PeerRole::Root, root, count)

MPIDBG_COLLECTIVE_WRAPPER(MPI_Gather,
                          (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm),
                          (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), MpiFunction::Gather,
                          comm, root, sendcount, MpiFunction::Gather, comm, PeerRole::Root, root, sendcount)

MPIDBG_EXPORT int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                              MPI_Comm comm) {
  auto scope = CallScope::collective(MpiFunction::Gatherv, comm, PeerRole::Root, root, sendcount);
  return MPIDBG_PMPI_OR_IDLE(MPI_Gatherv, (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm));
}

MPIDBG_COLLECTIVE_WRAPPER(MPI_Scan,
                          (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm),
                          (sendbuf, recvbuf, count, datatype, op, comm), MpiFunction::Scan, comm, -1, count,
                          MpiFunction::Scan, comm, PeerRole::None, 0, count)

MPIDBG_COLLECTIVE_WRAPPER(MPI_Scatter,
                          (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm),
                          (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
                          MpiFunction::Scatter, comm, root, recvcount, MpiFunction::Scatter, comm, PeerRole::Root, root,
                          recvcount)

MPIDBG_EXPORT int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                               MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                               int root, MPI_Comm comm) {
  auto scope = CallScope::collective(MpiFunction::Scatterv, comm, PeerRole::Root, root, recvcount);
  return MPIDBG_PMPI_OR_IDLE(MPI_Scatterv, (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm));
}
