// The blocking collectives: the 14 of the mqs collective extension, in
// mqs_comm_class order (../shared/protocols/mqs.md), then the others. Each
// wrapper counts the call on its communicator, publishes it as the current
// call, and calls PMPI.
#include <mpi.h>

#include "CallScope.hpp"
#include "RequestTracking.hpp"

using mpidbg::ccs::proto::CollClass;
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

// Blocking collectives outside the 14 classes, each counted in the class of
// its nearest form (as MPI_Iexscan and MPI_Ireduce_scatter_block are): no
// fast path.
MPIDBG_EXPORT int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::Exscan, CollClass::Scan, comm, PeerRole::None, 0, count);
  return PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
}

MPIDBG_EXPORT int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::Alltoallw, CollClass::Alltoallv, comm);
  return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
}

MPIDBG_EXPORT int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                           MPI_Op op, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::ReduceScatterBlock, CollClass::ReduceScatter, comm,
                                       PeerRole::None, 0, recvcount);
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
}

// The neighbourhood collectives (MPI-3), counted like MPI_Ineighbor_*: in the
// class of the nearest form. A collective over the whole communicator in
// MPI's sense (every member calls them, in the same order as its other
// collectives), so the verdict treats them as one, as it does the
// nonblocking ones.
MPIDBG_EXPORT int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::NeighborAllgather, CollClass::Allgather, comm, PeerRole::None,
                                       0, sendcount);
  return PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

MPIDBG_EXPORT int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                          const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                          MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::NeighborAllgatherv, CollClass::Allgatherv, comm,
                                       PeerRole::None, 0, sendcount);
  return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

MPIDBG_EXPORT int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::NeighborAlltoall, CollClass::Alltoall, comm, PeerRole::None, 0,
                                       sendcount);
  return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

MPIDBG_EXPORT int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                         MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                         const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::NeighborAlltoallv, CollClass::Alltoallv, comm);
  return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                 comm);
}

MPIDBG_EXPORT int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                         const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::NeighborAlltoallw, CollClass::Alltoallv, comm);
  return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                 comm);
}

#if MPI_VERSION >= 4
// MPI-4's large-count forms (MPICH 4): counted and published as their int
// forms, in the same class; the count a condition sees is -1 past INT_MAX.
// No fast path and no idle wait (runtime/IdleWait.hpp covers the int forms).
using mpidbg::rt::smallCount;

MPIDBG_EXPORT int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::BcastC, CollClass::Bcast, comm, PeerRole::Root, root,
                                       smallCount(count));
  return PMPI_Bcast_c(buffer, count, datatype, root, comm);
}

MPIDBG_EXPORT int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::AllgatherC, CollClass::Allgather, comm, PeerRole::None, 0,
                                       smallCount(sendcount));
  return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

MPIDBG_EXPORT int MPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                   MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::AllgathervC, CollClass::Allgatherv, comm, PeerRole::None, 0,
                                       smallCount(sendcount));
  return PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

MPIDBG_EXPORT int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::AllreduceC, CollClass::Allreduce, comm, PeerRole::None, 0,
                                       smallCount(count));
  return PMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, comm);
}

MPIDBG_EXPORT int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::AlltoallC, CollClass::Alltoall, comm, PeerRole::None, 0,
                                       smallCount(sendcount));
  return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

MPIDBG_EXPORT int MPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                  MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::AlltoallvC, CollClass::Alltoallv, comm);
  return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

MPIDBG_EXPORT int MPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                  const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::AlltoallwC, CollClass::Alltoallv, comm);
  return PMPI_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
}

MPIDBG_EXPORT int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::ReduceScatterC, CollClass::ReduceScatter, comm);
  return PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

MPIDBG_EXPORT int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::ReduceScatterBlockC, CollClass::ReduceScatter, comm,
                                       PeerRole::None, 0, smallCount(recvcount));
  return PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op, comm);
}

MPIDBG_EXPORT int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                               MPI_Op op, int root, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::ReduceC, CollClass::Reduce, comm, PeerRole::Root, root,
                                       smallCount(count));
  return PMPI_Reduce_c(sendbuf, recvbuf, count, datatype, op, root, comm);
}

MPIDBG_EXPORT int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::GatherC, CollClass::Gather, comm, PeerRole::Root, root,
                                       smallCount(sendcount));
  return PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

MPIDBG_EXPORT int MPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                int root, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::GathervC, CollClass::Gatherv, comm, PeerRole::Root, root,
                                       smallCount(sendcount));
  return PMPI_Gatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

MPIDBG_EXPORT int MPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  auto scope =
      CallScope::collectiveIn(MpiFunction::ScanC, CollClass::Scan, comm, PeerRole::None, 0, smallCount(count));
  return PMPI_Scan_c(sendbuf, recvbuf, count, datatype, op, comm);
}

MPIDBG_EXPORT int MPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm) {
  auto scope =
      CallScope::collectiveIn(MpiFunction::ExscanC, CollClass::Scan, comm, PeerRole::None, 0, smallCount(count));
  return PMPI_Exscan_c(sendbuf, recvbuf, count, datatype, op, comm);
}

MPIDBG_EXPORT int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::ScatterC, CollClass::Scatter, comm, PeerRole::Root, root,
                                       smallCount(recvcount));
  return PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

MPIDBG_EXPORT int MPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                 MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 int root, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::ScattervC, CollClass::Scatterv, comm, PeerRole::Root, root,
                                       smallCount(recvcount));
  return PMPI_Scatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

// The neighbourhood collectives' large-count forms, as their int forms.
MPIDBG_EXPORT int MPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                           void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::NeighborAllgatherC, CollClass::Allgather, comm, PeerRole::None,
                                       0, smallCount(sendcount));
  return PMPI_Neighbor_allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

MPIDBG_EXPORT int MPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                            void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                            MPI_Datatype recvtype, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::NeighborAllgathervC, CollClass::Allgatherv, comm,
                                       PeerRole::None, 0, smallCount(sendcount));
  return PMPI_Neighbor_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

MPIDBG_EXPORT int MPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                          void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::NeighborAlltoallC, CollClass::Alltoall, comm, PeerRole::None,
                                       0, smallCount(sendcount));
  return PMPI_Neighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

MPIDBG_EXPORT int MPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                                           const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                           const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                           MPI_Datatype recvtype, MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::NeighborAlltoallvC, CollClass::Alltoallv, comm);
  return PMPI_Neighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                   comm);
}

MPIDBG_EXPORT int MPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                                           const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                                           const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                           const MPI_Datatype recvtypes[], MPI_Comm comm) {
  auto scope = CallScope::collectiveIn(MpiFunction::NeighborAlltoallwC, CollClass::Alltoallv, comm);
  return PMPI_Neighbor_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                   comm);
}
#endif
