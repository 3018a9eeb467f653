// MPI-4's persistent collectives (MPI_Bcast_init, ...; MPI 4 libraries such
// as MPICH 4, not Open MPI 4.1). The init call is published like any call
// and records its request as an inactive persistent COLLECTIVE operation
// (RequestTracking.hpp), counted nowhere: MPI-4 orders collectives on a
// communicator by their starts. Each MPI_Start* then counts one call of the
// int form's class, collSeq and a history record, as a nonblocking
// collective is counted when issued (RequestWrappers.cpp,
// startPersistentCollective); its completion counts the exit, and the
// request goes inactive until the next start.
#include <mpi.h>

#include "RequestTracking.hpp"

#if MPI_VERSION >= 4

using mpidbg::ccs::proto::CollClass;
using mpidbg::rt::CallScope;
using mpidbg::rt::MpiFunction;
using mpidbg::rt::PeerRole;

namespace {

using Persistent = mpidbg::rt::CollectiveCall;

/// Publishes the init call of `p`, runs `init` (the PMPI call) and records
/// the request it made.
template <typename Init>
int persistent(const Persistent& p, MPI_Request* request, Init init) {
  CallScope scope(p.function, p.comm, p.rooted ? PeerRole::Root : PeerRole::None, p.rooted ? p.root : 0, false, 0,
                  p.count);
  const int rc = init();
  if (scope.outermost() && rc == MPI_SUCCESS && request)
    mpidbg::rt::recordPersistentCollective(*scope.runtime(), p.function, p.collClass, p.comm,
                                           p.rooted ? mpidbg::rt::wireRoot(p.root) : -1, p.count, p.datatype,
                                           p.buffer, *request);
  return rc;
}

}  // namespace

MPIDBG_EXPORT int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::BarrierInit, CollClass::Barrier, comm}, request,
                    [&] { return PMPI_Barrier_init(comm, info, request); });
}

MPIDBG_EXPORT int MPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                 MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::BcastInit, CollClass::Bcast, comm, true, root, count, datatype, buffer}, request,
                    [&] { return PMPI_Bcast_init(buffer, count, datatype, root, comm, info, request); });
}

MPIDBG_EXPORT int MPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request) {
  return persistent(
      {MpiFunction::AllgatherInit, CollClass::Allgather, comm, false, -1, sendcount, sendtype, sendbuf}, request,
      [&] {
        return PMPI_Allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
      });
}

MPIDBG_EXPORT int MPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent(
      {MpiFunction::AllgathervInit, CollClass::Allgatherv, comm, false, -1, sendcount, sendtype, sendbuf}, request,
      [&] {
        return PMPI_Allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info,
                                    request);
      });
}

MPIDBG_EXPORT int MPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                     MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::AllreduceInit, CollClass::Allreduce, comm, false, -1, count, datatype, sendbuf},
                    request,
                    [&] { return PMPI_Allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, info, request); });
}

MPIDBG_EXPORT int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request) {
  return persistent(
      {MpiFunction::AlltoallInit, CollClass::Alltoall, comm, false, -1, sendcount, sendtype, sendbuf}, request, [&] {
        return PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
      });
}

MPIDBG_EXPORT int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                     MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::AlltoallvInit, CollClass::Alltoallv, comm, false, -1, -1, sendtype, sendbuf},
                    request, [&] {
                      return PMPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                                 recvtype, comm, info, request);
                    });
}

MPIDBG_EXPORT int MPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                     const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                     const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request) {
  return persistent({MpiFunction::AlltoallwInit, CollClass::Alltoallv, comm}, request, [&] {
    return PMPI_Alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                               info, request);
  });
}

MPIDBG_EXPORT int MPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                          MPI_Request* request) {
  return persistent(
      {MpiFunction::ReduceScatterInit, CollClass::ReduceScatter, comm, false, -1, -1, datatype, sendbuf}, request,
      [&] { return PMPI_Reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request); });
}

MPIDBG_EXPORT int MPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                MPI_Request* request) {
  return persistent(
      {MpiFunction::ReduceScatterBlockInit, CollClass::ReduceScatter, comm, false, -1, recvcount, datatype, sendbuf},
      request,
      [&] { return PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype, op, comm, info, request); });
}

MPIDBG_EXPORT int MPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                  int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::ReduceInit, CollClass::Reduce, comm, true, root, count, datatype, sendbuf}, request,
                    [&] { return PMPI_Reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm, info, request); });
}

MPIDBG_EXPORT int MPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  return persistent({MpiFunction::GatherInit, CollClass::Gather, comm, true, root, sendcount, sendtype, sendbuf},
                    request, [&] {
                      return PMPI_Gather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                                              info, request);
                    });
}

MPIDBG_EXPORT int MPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::GathervInit, CollClass::Gatherv, comm, true, root, sendcount, sendtype, sendbuf},
                    request, [&] {
                      return PMPI_Gatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                               root, comm, info, request);
                    });
}

MPIDBG_EXPORT int MPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::ScanInit, CollClass::Scan, comm, false, -1, count, datatype, sendbuf}, request,
                    [&] { return PMPI_Scan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request); });
}

MPIDBG_EXPORT int MPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::ExscanInit, CollClass::Scan, comm, false, -1, count, datatype, sendbuf}, request,
                    [&] { return PMPI_Exscan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request); });
}

MPIDBG_EXPORT int MPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  return persistent({MpiFunction::ScatterInit, CollClass::Scatter, comm, true, root, recvcount, recvtype, recvbuf},
                    request, [&] {
                      return PMPI_Scatter_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                                               info, request);
                    });
}

MPIDBG_EXPORT int MPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                                    MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                    int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::ScattervInit, CollClass::Scatterv, comm, true, root, recvcount, recvtype, recvbuf},
                    request, [&] {
                      return PMPI_Scatterv_init(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                                                root, comm, info, request);
                    });
}

MPIDBG_EXPORT int MPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                              MPI_Info info, MPI_Request* request) {
  return persistent(
      {MpiFunction::NeighborAllgatherInit, CollClass::Allgather, comm, false, -1, sendcount, sendtype, sendbuf},
      request, [&] {
        return PMPI_Neighbor_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                            request);
      });
}

MPIDBG_EXPORT int MPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                               void* recvbuf, const int recvcounts[], const int displs[],
                                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                               MPI_Request* request) {
  return persistent(
      {MpiFunction::NeighborAllgathervInit, CollClass::Allgatherv, comm, false, -1, sendcount, sendtype, sendbuf},
      request, [&] {
        return PMPI_Neighbor_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                             comm, info, request);
      });
}

MPIDBG_EXPORT int MPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                             MPI_Request* request) {
  return persistent(
      {MpiFunction::NeighborAlltoallInit, CollClass::Alltoall, comm, false, -1, sendcount, sendtype, sendbuf},
      request, [&] {
        return PMPI_Neighbor_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                           request);
      });
}

MPIDBG_EXPORT int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                              MPI_Info info, MPI_Request* request) {
  return persistent(
      {MpiFunction::NeighborAlltoallvInit, CollClass::Alltoallv, comm, false, -1, -1, sendtype, sendbuf}, request,
      [&] {
        return PMPI_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                            recvtype, comm, info, request);
      });
}

MPIDBG_EXPORT int MPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                              MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::NeighborAlltoallwInit, CollClass::Alltoallv, comm}, request, [&] {
    return PMPI_Neighbor_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                        recvtypes, comm, info, request);
  });
}

// The large-count forms, as their int forms; the count a condition and the
// history see is -1 past INT_MAX.
using mpidbg::rt::smallCount;

MPIDBG_EXPORT int MPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                   MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::BcastInitC, CollClass::Bcast, comm, true, root, smallCount(count), datatype, buffer},
                    request, [&] { return PMPI_Bcast_init_c(buffer, count, datatype, root, comm, info, request); });
}

MPIDBG_EXPORT int MPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                       MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::AllgatherInitC, CollClass::Allgather, comm, false, -1, smallCount(sendcount),
                     sendtype, sendbuf},
                    request, [&] {
                      return PMPI_Allgather_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                                   info, request);
                    });
}

MPIDBG_EXPORT int MPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                        void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::AllgathervInitC, CollClass::Allgatherv, comm, false, -1, smallCount(sendcount),
                     sendtype, sendbuf},
                    request, [&] {
                      return PMPI_Allgatherv_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                                    recvtype, comm, info, request);
                    });
}

MPIDBG_EXPORT int MPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent(
      {MpiFunction::AllreduceInitC, CollClass::Allreduce, comm, false, -1, smallCount(count), datatype, sendbuf},
      request, [&] { return PMPI_Allreduce_init_c(sendbuf, recvbuf, count, datatype, op, comm, info, request); });
}

MPIDBG_EXPORT int MPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                      MPI_Request* request) {
  return persistent({MpiFunction::AlltoallInitC, CollClass::Alltoall, comm, false, -1, smallCount(sendcount),
                     sendtype, sendbuf},
                    request, [&] {
                      return PMPI_Alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                                  info, request);
                    });
}

MPIDBG_EXPORT int MPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                       MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                       const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                       MPI_Request* request) {
  return persistent({MpiFunction::AlltoallvInitC, CollClass::Alltoallv, comm, false, -1, -1, sendtype, sendbuf},
                    request, [&] {
                      return PMPI_Alltoallv_init_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                                   rdispls, recvtype, comm, info, request);
                    });
}

MPIDBG_EXPORT int MPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                       const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                       MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::AlltoallwInitC, CollClass::Alltoallv, comm}, request, [&] {
    return PMPI_Alltoallw_init_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                 comm, info, request);
  });
}

MPIDBG_EXPORT int MPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                            MPI_Request* request) {
  return persistent(
      {MpiFunction::ReduceScatterInitC, CollClass::ReduceScatter, comm, false, -1, -1, datatype, sendbuf}, request,
      [&] { return PMPI_Reduce_scatter_init_c(sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request); });
}

MPIDBG_EXPORT int MPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                  MPI_Request* request) {
  return persistent({MpiFunction::ReduceScatterBlockInitC, CollClass::ReduceScatter, comm, false, -1,
                     smallCount(recvcount), datatype, sendbuf},
                    request, [&] {
                      return PMPI_Reduce_scatter_block_init_c(sendbuf, recvbuf, recvcount, datatype, op, comm, info,
                                                              request);
                    });
}

MPIDBG_EXPORT int MPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                    MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent(
      {MpiFunction::ReduceInitC, CollClass::Reduce, comm, true, root, smallCount(count), datatype, sendbuf}, request,
      [&] { return PMPI_Reduce_init_c(sendbuf, recvbuf, count, datatype, op, root, comm, info, request); });
}

MPIDBG_EXPORT int MPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                    MPI_Info info, MPI_Request* request) {
  return persistent(
      {MpiFunction::GatherInitC, CollClass::Gather, comm, true, root, smallCount(sendcount), sendtype, sendbuf},
      request, [&] {
        return PMPI_Gather_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                                  request);
      });
}

MPIDBG_EXPORT int MPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                     int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent(
      {MpiFunction::GathervInitC, CollClass::Gatherv, comm, true, root, smallCount(sendcount), sendtype, sendbuf},
      request, [&] {
        return PMPI_Gatherv_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                                   info, request);
      });
}

MPIDBG_EXPORT int MPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::ScanInitC, CollClass::Scan, comm, false, -1, smallCount(count), datatype, sendbuf},
                    request,
                    [&] { return PMPI_Scan_init_c(sendbuf, recvbuf, count, datatype, op, comm, info, request); });
}

MPIDBG_EXPORT int MPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent(
      {MpiFunction::ExscanInitC, CollClass::Scan, comm, false, -1, smallCount(count), datatype, sendbuf}, request,
      [&] { return PMPI_Exscan_init_c(sendbuf, recvbuf, count, datatype, op, comm, info, request); });
}

MPIDBG_EXPORT int MPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                     MPI_Info info, MPI_Request* request) {
  return persistent(
      {MpiFunction::ScatterInitC, CollClass::Scatter, comm, true, root, smallCount(recvcount), recvtype, recvbuf},
      request, [&] {
        return PMPI_Scatter_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                                   request);
      });
}

MPIDBG_EXPORT int MPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                      MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                      MPI_Request* request) {
  return persistent(
      {MpiFunction::ScattervInitC, CollClass::Scatterv, comm, true, root, smallCount(recvcount), recvtype, recvbuf},
      request, [&] {
        return PMPI_Scatterv_init_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                                    info, request);
      });
}

MPIDBG_EXPORT int MPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                                void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::NeighborAllgatherInitC, CollClass::Allgather, comm, false, -1,
                     smallCount(sendcount), sendtype, sendbuf},
                    request, [&] {
                      return PMPI_Neighbor_allgather_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                            recvtype, comm, info, request);
                    });
}

MPIDBG_EXPORT int MPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                                 void* recvbuf, const MPI_Count recvcounts[],
                                                 const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                                 MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::NeighborAllgathervInitC, CollClass::Allgatherv, comm, false, -1,
                     smallCount(sendcount), sendtype, sendbuf},
                    request, [&] {
                      return PMPI_Neighbor_allgatherv_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                                             displs, recvtype, comm, info, request);
                    });
}

MPIDBG_EXPORT int MPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                               void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                               MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent({MpiFunction::NeighborAlltoallInitC, CollClass::Alltoall, comm, false, -1,
                     smallCount(sendcount), sendtype, sendbuf},
                    request, [&] {
                      return PMPI_Neighbor_alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                           recvtype, comm, info, request);
                    });
}

MPIDBG_EXPORT int MPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                                const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                                const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                                MPI_Request* request) {
  return persistent(
      {MpiFunction::NeighborAlltoallvInitC, CollClass::Alltoallv, comm, false, -1, -1, sendtype, sendbuf}, request,
      [&] {
        return PMPI_Neighbor_alltoallv_init_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                              recvtype, comm, info, request);
      });
}

MPIDBG_EXPORT int MPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                                void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                                MPI_Request* request) {
  return persistent({MpiFunction::NeighborAlltoallwInitC, CollClass::Alltoallv, comm}, request, [&] {
    return PMPI_Neighbor_alltoallw_init_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                          recvtypes, comm, info, request);
  });
}

#endif
