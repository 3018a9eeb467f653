#include "CommRegistry.hpp"

#include <cstdio>
#include <cstring>
#include <limits>
#include <new>

namespace mpidbg::rt {

CommInfo describeComm(MPI_Comm comm) noexcept {
  CommInfo info;
  PMPI_Comm_rank(comm, &info.localRank);
  // An intercommunicator's ranks in point-to-point calls and its collectives'
  // partners are those of its remote group: it is described by that group.
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) PMPI_Comm_remote_size(comm, &info.size);
  else PMPI_Comm_size(comm, &info.size);
  MPI_Group group = MPI_GROUP_NULL;
  if ((inter ? PMPI_Comm_remote_group(comm, &group) : PMPI_Comm_group(comm, &group)) != MPI_SUCCESS) return info;
  MPI_Group world = MPI_GROUP_NULL;
  if (PMPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS) {
    try {
      const int n = info.size > 0 ? info.size : 0;
      std::vector<int> local(static_cast<std::size_t>(n));
      std::vector<int> out(static_cast<std::size_t>(n), MPI_UNDEFINED);
      for (int i = 0; i < n; ++i) local[static_cast<std::size_t>(i)] = i;
      if (n > 0 && PMPI_Group_translate_ranks(group, n, local.data(), world, out.data()) == MPI_SUCCESS) {
        info.worldRanks.reserve(out.size());
        for (int w : out) info.worldRanks.push_back(w == MPI_UNDEFINED ? -1 : w);
        info.rootWorldRank = info.worldRanks.front();
      }
    } catch (...) {
      // No memory for the rank arrays: the communicator is kept without them.
      info.worldRanks.clear();
    }
    PMPI_Group_free(&world);
  }
  PMPI_Group_free(&group);
  return info;
}

void defaultCommName(MPI_Comm comm, std::array<char, 64>& out) noexcept {
  if (comm == MPI_COMM_WORLD)
    std::snprintf(out.data(), out.size(), "MPI_COMM_WORLD");
  else if (comm == MPI_COMM_SELF)
    std::snprintf(out.data(), out.size(), "MPI_COMM_SELF");
  else
    std::snprintf(out.data(), out.size(), "comm 0x%x", static_cast<unsigned>(commKey(comm)));
}

CommRecord* CommRegistry::findOrRegister(MPI_Comm comm) noexcept {
  const std::uint64_t key = commKey(comm);
  if (CommRecord* r = find(key)) return r;
  if (comm == MPI_COMM_NULL) return nullptr;
  CommInfo info = describeComm(comm);
  std::array<char, 64> name{};
  defaultCommName(comm, name);
  info.name = name.data();
  return add(key, info);
}

}  // namespace mpidbg::rt
