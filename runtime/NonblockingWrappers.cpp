// Nonblocking collectives. Each counts on its communicator when issued, in
// the class counters of the blocking ones (../shared/protocols/mqs.md;
// MPI_Ireduce_scatter_block counts as reduce_scatter, MPI_Iexscan as scan,
// the neighbourhood ones as allgather/allgatherv/alltoall/alltoallv,
// MPI_Ialltoallw as alltoallv): the
// entry at issue, the exit when a Wait/Test completes the request (so the
// class stays active until then). Each also bumps the communicator's
// collective sequence number, appends a history record, and records its
// request as a COLLECTIVE operation (RequestTracking.hpp).
#include <mpi.h>

#include "RequestTracking.hpp"

using mpidbg::ccs::proto::CollClass;
using mpidbg::rt::CallScope;
using mpidbg::rt::MpiFunction;
using mpidbg::rt::PeerRole;

namespace {

using Collective = mpidbg::rt::CollectiveCall;

/// Counts the issue of `c`, runs `issue` (the PMPI call) and records the
/// request (a failed issue counts its exit at once).
template <typename Issue>
int nonblocking(const Collective& c, MPI_Request* request, Issue issue) {
  CallScope::Issued issued;
  auto scope = CallScope::issue(c.function, c.collClass, c.comm, c.rooted ? PeerRole::Root : PeerRole::None,
                                c.root, c.count, issued);
  const int rc = issue();
  if (scope.outermost())
    recordCollective(*scope.runtime(), c.function, c.collClass, issued, c.comm,
                     c.rooted ? mpidbg::rt::wireRoot(c.root) : -1, c.count, c.datatype, c.buffer,
                     rc == MPI_SUCCESS && request ? *request : MPI_REQUEST_NULL);
  return rc;
}

}  // namespace

MPIDBG_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return nonblocking({MpiFunction::Ibarrier, CollClass::Barrier, comm}, request,
                     [&] { return PMPI_Ibarrier(comm, request); });
}

MPIDBG_EXPORT int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                             MPI_Request* request) {
  return nonblocking({MpiFunction::Ibcast, CollClass::Bcast, comm, true, root, count, datatype, buffer}, request,
                     [&] { return PMPI_Ibcast(buffer, count, datatype, root, comm, request); });
}

MPIDBG_EXPORT int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::Igather, CollClass::Gather, comm, true, root, sendcount, sendtype, sendbuf}, request, [&] {
        return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
      });
}

MPIDBG_EXPORT int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::Igatherv, CollClass::Gatherv, comm, true, root, sendcount, sendtype, sendbuf}, request, [&] {
        return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                             request);
      });
}

MPIDBG_EXPORT int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::Iscatter, CollClass::Scatter, comm, true, root, recvcount, recvtype, recvbuf}, request, [&] {
        return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
      });
}

MPIDBG_EXPORT int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                                MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::Iscatterv, CollClass::Scatterv, comm, true, root, recvcount, recvtype, recvbuf}, request, [&] {
        return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                              request);
      });
}

MPIDBG_EXPORT int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::Iallgather, CollClass::Allgather, comm, false, -1, sendcount, sendtype, sendbuf}, request,
      [&] { return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request); });
}

MPIDBG_EXPORT int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Request* request) {
  return nonblocking(
      {MpiFunction::Iallgatherv, CollClass::Allgatherv, comm, false, -1, sendcount, sendtype, sendbuf}, request,
      [&] {
        return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
      });
}

MPIDBG_EXPORT int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::Ialltoall, CollClass::Alltoall, comm, false, -1, sendcount, sendtype, sendbuf}, request,
      [&] { return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request); });
}

MPIDBG_EXPORT int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::Ialltoallv, CollClass::Alltoallv, comm, false, -1, -1, sendtype, sendbuf}, request, [&] {
        return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                               request);
      });
}

MPIDBG_EXPORT int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              int root, MPI_Comm comm, MPI_Request* request) {
  return nonblocking({MpiFunction::Ireduce, CollClass::Reduce, comm, true, root, count, datatype, sendbuf}, request,
                     [&] { return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request); });
}

MPIDBG_EXPORT int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                 MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::Iallreduce, CollClass::Allreduce, comm, false, -1, count, datatype, sendbuf}, request,
      [&] { return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request); });
}

MPIDBG_EXPORT int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IreduceScatter, CollClass::ReduceScatter, comm, false, -1, -1, datatype, sendbuf}, request,
      [&] { return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request); });
}

MPIDBG_EXPORT int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IreduceScatterBlock, CollClass::ReduceScatter, comm, false, -1, recvcount, datatype, sendbuf},
      request, [&] { return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request); });
}

MPIDBG_EXPORT int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Request* request) {
  return nonblocking({MpiFunction::Iscan, CollClass::Scan, comm, false, -1, count, datatype, sendbuf}, request,
                     [&] { return PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, request); });
}

MPIDBG_EXPORT int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request) {
  return nonblocking({MpiFunction::Iexscan, CollClass::Scan, comm, false, -1, count, datatype, sendbuf}, request,
                     [&] { return PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request); });
}

MPIDBG_EXPORT int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IneighborAllgather, CollClass::Allgather, comm, false, -1, sendcount, sendtype, sendbuf},
      request, [&] {
        return PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
      });
}

MPIDBG_EXPORT int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                           MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IneighborAllgatherv, CollClass::Allgatherv, comm, false, -1, sendcount, sendtype, sendbuf},
      request, [&] {
        return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                         request);
      });
}

MPIDBG_EXPORT int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IneighborAlltoall, CollClass::Alltoall, comm, false, -1, sendcount, sendtype, sendbuf}, request,
      [&] {
        return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
      });
}

MPIDBG_EXPORT int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                          MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                          const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IneighborAlltoallv, CollClass::Alltoallv, comm, false, -1, -1, sendtype, sendbuf}, request,
      [&] {
        return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                        recvtype, comm, request);
      });
}

MPIDBG_EXPORT int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                 const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                 const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                 MPI_Request* request) {
  return nonblocking({MpiFunction::Ialltoallw, CollClass::Alltoallv, comm}, request, [&] {
    return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                           request);
  });
}

MPIDBG_EXPORT int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                          const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                          MPI_Request* request) {
  return nonblocking({MpiFunction::IneighborAlltoallw, CollClass::Alltoallv, comm}, request, [&] {
    return PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                    comm, request);
  });
}

#if MPI_VERSION >= 4
// MPI-4's large-count forms (MPICH 4): counted, recorded and completed as
// their int forms; the count a condition and the history see is -1 past
// INT_MAX.
using mpidbg::rt::smallCount;

MPIDBG_EXPORT int MPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                               MPI_Request* request) {
  return nonblocking({MpiFunction::IbcastC, CollClass::Bcast, comm, true, root, smallCount(count), datatype, buffer},
                     request, [&] { return PMPI_Ibcast_c(buffer, count, datatype, root, comm, request); });
}

MPIDBG_EXPORT int MPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IallgatherC, CollClass::Allgather, comm, false, -1, smallCount(sendcount), sendtype, sendbuf},
      request,
      [&] { return PMPI_Iallgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request); });
}

MPIDBG_EXPORT int MPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IallgathervC, CollClass::Allgatherv, comm, false, -1, smallCount(sendcount), sendtype, sendbuf},
      request, [&] {
        return PMPI_Iallgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
      });
}

MPIDBG_EXPORT int MPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IallreduceC, CollClass::Allreduce, comm, false, -1, smallCount(count), datatype, sendbuf},
      request, [&] { return PMPI_Iallreduce_c(sendbuf, recvbuf, count, datatype, op, comm, request); });
}

MPIDBG_EXPORT int MPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IalltoallC, CollClass::Alltoall, comm, false, -1, smallCount(sendcount), sendtype, sendbuf},
      request,
      [&] { return PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request); });
}

MPIDBG_EXPORT int MPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                   MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Request* request) {
  return nonblocking({MpiFunction::IalltoallvC, CollClass::Alltoallv, comm, false, -1, -1, sendtype, sendbuf},
                     request, [&] {
                       return PMPI_Ialltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                                recvtype, comm, request);
                     });
}

MPIDBG_EXPORT int MPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                   const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                   MPI_Request* request) {
  return nonblocking({MpiFunction::IalltoallwC, CollClass::Alltoallv, comm}, request, [&] {
    return PMPI_Ialltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                             request);
  });
}

MPIDBG_EXPORT int MPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return nonblocking({MpiFunction::IreduceScatterC, CollClass::ReduceScatter, comm, false, -1, -1, datatype, sendbuf},
                     request,
                     [&] { return PMPI_Ireduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm, request); });
}

MPIDBG_EXPORT int MPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return nonblocking({MpiFunction::IreduceScatterBlockC, CollClass::ReduceScatter, comm, false, -1,
                      smallCount(recvcount), datatype, sendbuf},
                     request, [&] {
                       return PMPI_Ireduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op, comm, request);
                     });
}

MPIDBG_EXPORT int MPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                                int root, MPI_Comm comm, MPI_Request* request) {
  return nonblocking({MpiFunction::IreduceC, CollClass::Reduce, comm, true, root, smallCount(count), datatype, sendbuf},
                     request, [&] { return PMPI_Ireduce_c(sendbuf, recvbuf, count, datatype, op, root, comm, request); });
}

MPIDBG_EXPORT int MPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IgatherC, CollClass::Gather, comm, true, root, smallCount(sendcount), sendtype, sendbuf}, request,
      [&] {
        return PMPI_Igather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
      });
}

MPIDBG_EXPORT int MPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                 int root, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IgathervC, CollClass::Gatherv, comm, true, root, smallCount(sendcount), sendtype, sendbuf},
      request, [&] {
        return PMPI_Igatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                               request);
      });
}

MPIDBG_EXPORT int MPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request) {
  return nonblocking({MpiFunction::IscanC, CollClass::Scan, comm, false, -1, smallCount(count), datatype, sendbuf},
                     request, [&] { return PMPI_Iscan_c(sendbuf, recvbuf, count, datatype, op, comm, request); });
}

MPIDBG_EXPORT int MPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm, MPI_Request* request) {
  return nonblocking({MpiFunction::IexscanC, CollClass::Scan, comm, false, -1, smallCount(count), datatype, sendbuf},
                     request, [&] { return PMPI_Iexscan_c(sendbuf, recvbuf, count, datatype, op, comm, request); });
}

MPIDBG_EXPORT int MPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                 MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IscatterC, CollClass::Scatter, comm, true, root, smallCount(recvcount), recvtype, recvbuf},
      request, [&] {
        return PMPI_Iscatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
      });
}

MPIDBG_EXPORT int MPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                  MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  int root, MPI_Comm comm, MPI_Request* request) {
  return nonblocking(
      {MpiFunction::IscattervC, CollClass::Scatterv, comm, true, root, smallCount(recvcount), recvtype, recvbuf},
      request, [&] {
        return PMPI_Iscatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                                request);
      });
}

// The nonblocking neighbourhood collectives' large-count forms, as their int forms.
MPIDBG_EXPORT int MPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                            void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                            MPI_Request* request) {
  return nonblocking({MpiFunction::IneighborAllgatherC, CollClass::Allgather, comm, false, -1, smallCount(sendcount),
                      sendtype, sendbuf},
                     request, [&] {
                       return PMPI_Ineighbor_allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                                         comm, request);
                     });
}

MPIDBG_EXPORT int MPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                             void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return nonblocking({MpiFunction::IneighborAllgathervC, CollClass::Allgatherv, comm, false, -1,
                      smallCount(sendcount), sendtype, sendbuf},
                     request, [&] {
                       return PMPI_Ineighbor_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                                          recvtype, comm, request);
                     });
}

MPIDBG_EXPORT int MPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                           void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                           MPI_Request* request) {
  return nonblocking({MpiFunction::IneighborAlltoallC, CollClass::Alltoall, comm, false, -1, smallCount(sendcount),
                      sendtype, sendbuf},
                     request, [&] {
                       return PMPI_Ineighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                                        comm, request);
                     });
}

MPIDBG_EXPORT int MPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                                            const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                            const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return nonblocking({MpiFunction::IneighborAlltoallvC, CollClass::Alltoallv, comm, false, -1, -1, sendtype, sendbuf},
                     request, [&] {
                       return PMPI_Ineighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                                         rdispls, recvtype, comm, request);
                     });
}

MPIDBG_EXPORT int MPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                                            const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                            const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  return nonblocking({MpiFunction::IneighborAlltoallwC, CollClass::Alltoallv, comm}, request, [&] {
    return PMPI_Ineighbor_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                      recvtypes, comm, request);
  });
}
#endif
