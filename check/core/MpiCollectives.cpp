#include "check/core/MpiCollectives.hpp"

#include <algorithm>
#include <array>

namespace mpidbg::check {

namespace {

// Sorted (binary search). Source: MPI 4.0, sections 6.3-6.12 (collectives),
// 7.4 (communicator constructors), 8.5-8.6 (topology constructors and
// neighborhood collectives).
constexpr std::array<std::string_view, 58> kCollectives{"MPI_Allgather",
                                                        "MPI_Allgatherv",
                                                        "MPI_Allreduce",
                                                        "MPI_Alltoall",
                                                        "MPI_Alltoallv",
                                                        "MPI_Alltoallw",
                                                        "MPI_Barrier",
                                                        "MPI_Bcast",
                                                        "MPI_Cart_create",
                                                        "MPI_Cart_sub",
                                                        "MPI_Comm_create",
                                                        "MPI_Comm_dup",
                                                        "MPI_Comm_dup_with_info",
                                                        "MPI_Comm_free",
                                                        "MPI_Comm_idup",
                                                        "MPI_Comm_split",
                                                        "MPI_Comm_split_type",
                                                        "MPI_Dist_graph_create",
                                                        "MPI_Dist_graph_create_adjacent",
                                                        "MPI_Exscan",
                                                        "MPI_Gather",
                                                        "MPI_Gatherv",
                                                        "MPI_Graph_create",
                                                        "MPI_Iallgather",
                                                        "MPI_Iallgatherv",
                                                        "MPI_Iallreduce",
                                                        "MPI_Ialltoall",
                                                        "MPI_Ialltoallv",
                                                        "MPI_Ialltoallw",
                                                        "MPI_Ibarrier",
                                                        "MPI_Ibcast",
                                                        "MPI_Iexscan",
                                                        "MPI_Igather",
                                                        "MPI_Igatherv",
                                                        "MPI_Ineighbor_allgather",
                                                        "MPI_Ineighbor_allgatherv",
                                                        "MPI_Ineighbor_alltoall",
                                                        "MPI_Ineighbor_alltoallv",
                                                        "MPI_Ineighbor_alltoallw",
                                                        "MPI_Ireduce",
                                                        "MPI_Ireduce_scatter",
                                                        "MPI_Ireduce_scatter_block",
                                                        "MPI_Iscan",
                                                        "MPI_Iscatter",
                                                        "MPI_Iscatterv",
                                                        "MPI_Neighbor_allgather",
                                                        "MPI_Neighbor_allgatherv",
                                                        "MPI_Neighbor_alltoall",
                                                        "MPI_Neighbor_alltoallv",
                                                        "MPI_Neighbor_alltoallw",
                                                        "MPI_Reduce",
                                                        "MPI_Reduce_scatter",
                                                        "MPI_Reduce_scatter_block",
                                                        "MPI_Scan",
                                                        "MPI_Scatter",
                                                        "MPI_Scatterv",
                                                        "MPI_Win_create",
                                                        "MPI_Win_fence"};

constexpr bool sorted() {
  for (std::size_t i = 1; i < kCollectives.size(); ++i)
    if (!(kCollectives[i - 1] < kCollectives[i])) return false;
  return true;
}
static_assert(sorted(), "kCollectives must stay sorted");

}  // namespace

bool isCollective(std::string_view name) noexcept {
  return std::binary_search(kCollectives.begin(), kCollectives.end(), name);
}

}  // namespace mpidbg::check
