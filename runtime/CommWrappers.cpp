// Communicator creation, naming and freeing: keeps the communicator registry
// in step with the application (names, sizes, world ranks, uids). Creating a
// communicator is a collective on its parent: counted in the parent's
// collective sequence and the history (CallScope::commConstructor).
// Interposed: MPI_Comm_dup, _dup_with_info, _split, _split_type, _create,
// MPI_Cart_create, MPI_Cart_sub, MPI_Graph_create, MPI_Dist_graph_create,
// MPI_Dist_graph_create_adjacent; and MPI_Comm_create_group, whose callers
// are a group of the parent, not the parent: its communicators get a uid
// of their own kind (groupUid) and the parent counts nothing; and
// MPI_Comm_idup, counted on the parent, whose communicator is usable only
// later. Its communicator and the others (intercommunicators) are
// registered when first used, without a uid.
#include <mpi.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "CallScope.hpp"

using mpidbg::rt::CallScope;
using mpidbg::rt::MpiFunction;
using mpidbg::rt::Runtime;

namespace {

/// Registers the communicator `created` the application just made, with
/// its default name and the uid `uidOf(world ranks of its members)`.
template <typename UidOf>
void addComm(Runtime& rt, MPI_Comm created, UidOf uidOf) noexcept {
  mpidbg::rt::CommInfo info = mpidbg::rt::describeComm(created);
  info.uid = uidOf(info.worldRanks);
  std::array<char, 64> name{};
  mpidbg::rt::defaultCommName(created, name);
  info.name = name.data();
  rt.comms().add(mpidbg::rt::commKey(created), info);
}

/// After a constructor call on `parent`: counts it in the parent's
/// children (whatever it returned, so that the members of the parent stay
/// in step), then registers the communicator the application just created
/// in `*newcomm` with its uid (no-op for a failed call, MPI_COMM_NULL, or an
/// inert runtime).
void registerCreated(int rc, MPI_Comm parent, const MPI_Comm* newcomm) noexcept {
  Runtime* rt = Runtime::attached();
  if (!rt) return;
  std::uint64_t parentUid = 0, child = 0;
  if (mpidbg::rt::CommRecord* p = rt->comms().find(mpidbg::rt::commKey(parent))) {
    parentUid = p->uid.load(std::memory_order_relaxed);
    child = p->children.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  if (rc != MPI_SUCCESS || !newcomm || *newcomm == MPI_COMM_NULL) return;
  addComm(*rt, *newcomm, [&](const std::vector<std::int32_t>& worldRanks) {
    return mpidbg::rt::childUid(parentUid, child, worldRanks);
  });
}

/// The uid of the communicator an MPI_Comm_create_group call on a parent
/// with uid `parentUid` made with `tag` for the members `worldRanks`. Only
/// the group's members call it, so the parent's constructor count (which
/// every member of the parent must agree on) is left alone. Instead the
/// calls are counted per (parent, tag, members): MPI matches the calls of
/// one group with one tag in the order they are made, so every member
/// counts the same number for the same call. 0 when the parent's uid or
/// the members are unknown.
std::uint64_t groupUid(std::uint64_t parentUid, int tag, const std::vector<std::int32_t>& worldRanks) noexcept {
  constexpr std::uint64_t kGroupMark = 0x67726f7570ull << 32;  // "group"
  const std::uint64_t scope =
      mpidbg::rt::childUid(parentUid, kGroupMark | static_cast<std::uint32_t>(tag), worldRanks);
  if (scope == 0) return 0;
  // Never destroyed: an application thread may create a communicator while
  // the process exits.
  static std::mutex* mutex = new std::mutex;
  static auto* made = new std::unordered_map<std::uint64_t, std::uint64_t>;
  std::uint64_t nth = 0;
  try {
    std::lock_guard lock(*mutex);
    nth = ++(*made)[scope];
  } catch (...) {
    return 0;  // out of memory: no uid, as for the calls not interposed
  }
  return mpidbg::rt::childUid(scope, nth, worldRanks);
}

/// One constructor call `function` on `parent`: counted as a collective on
/// the parent around `pmpi` (the PMPI call, which fills `*newcomm`), then
/// registerCreated. Returns what `pmpi` returned.
template <typename Pmpi>
int construct(MpiFunction function, MPI_Comm parent, MPI_Comm* newcomm, Pmpi pmpi) noexcept {
  auto scope = CallScope::commConstructor(function, parent);
  const int rc = pmpi();
  registerCreated(rc, parent, newcomm);
  return rc;
}

}  // namespace

MPIDBG_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return construct(MpiFunction::CommDup, comm, newcomm,
                   [&] { return PMPI_Comm_dup(comm, newcomm); });
}

MPIDBG_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return construct(MpiFunction::CommSplit, comm, newcomm,
                   [&] { return PMPI_Comm_split(comm, color, key, newcomm); });
}

MPIDBG_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return construct(MpiFunction::CommCreate, comm, newcomm,
                   [&] { return PMPI_Comm_create(comm, group, newcomm); });
}

// Constructors whose communicators a real code makes as often as by dup and
// split (node-local communicators, Cartesian grids and their slices):
// interposed so that they too count on the parent and get a uid.

MPIDBG_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                      MPI_Comm* newcomm) {
  return construct(MpiFunction::CommSplitType, comm, newcomm,
                   [&] { return PMPI_Comm_split_type(comm, split_type, key, info, newcomm); });
}

MPIDBG_EXPORT int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return construct(MpiFunction::CommDupWithInfo, comm, newcomm,
                   [&] { return PMPI_Comm_dup_with_info(comm, info, newcomm); });
}

MPIDBG_EXPORT int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                                  int reorder, MPI_Comm* newcomm) {
  return construct(MpiFunction::CartCreate, comm, newcomm,
                   [&] { return PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm); });
}

MPIDBG_EXPORT int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  return construct(MpiFunction::CartSub, comm, newcomm,
                   [&] { return PMPI_Cart_sub(comm, remain_dims, newcomm); });
}

MPIDBG_EXPORT int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  CallScope scope(MpiFunction::CommCreateGroup, comm);
  const int rc = PMPI_Comm_create_group(comm, group, tag, newcomm);
  Runtime* rt = Runtime::attached();
  if (!rt || rc != MPI_SUCCESS || !newcomm || *newcomm == MPI_COMM_NULL) return rc;
  std::uint64_t parentUid = 0;
  if (const mpidbg::rt::CommRecord* p = rt->comms().find(mpidbg::rt::commKey(comm)))
    parentUid = p->uid.load(std::memory_order_relaxed);
  addComm(*rt, *newcomm,
          [&](const std::vector<std::int32_t>& worldRanks) { return groupUid(parentUid, tag, worldRanks); });
  return rc;
}

// Graph topologies (a neighbourhood code's communicators): collectives on
// their parent too.

MPIDBG_EXPORT int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                                   MPI_Comm* newcomm) {
  return construct(MpiFunction::GraphCreate, comm, newcomm,
                   [&] { return PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm); });
}

MPIDBG_EXPORT int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                                        const int destinations[], const int weights[], MPI_Info info, int reorder,
                                        MPI_Comm* newcomm) {
  return construct(MpiFunction::DistGraphCreate, comm, newcomm, [&] {
    return PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info, reorder, newcomm);
  });
}

MPIDBG_EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                                 const int sourceweights[], int outdegree, const int destinations[],
                                                 const int destweights[], MPI_Info info, int reorder,
                                                 MPI_Comm* newcomm) {
  return construct(MpiFunction::DistGraphCreateAdjacent, comm, newcomm, [&] {
    return PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations,
                                           destweights, info, reorder, newcomm);
  });
}

MPIDBG_EXPORT int MPI_Comm_free(MPI_Comm* comm) {
  CallScope scope(MpiFunction::CommFree, comm ? *comm : MPI_COMM_NULL);
  const MPI_Comm freed = comm ? *comm : MPI_COMM_NULL;
  const int rc = PMPI_Comm_free(comm);
  if (Runtime* rt = Runtime::attached(); rt && rc == MPI_SUCCESS)
    rt->comms().remove(mpidbg::rt::commKey(freed));
  return rc;
}

MPIDBG_EXPORT int MPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  const int rc = PMPI_Comm_set_name(comm, comm_name);
  if (Runtime* rt = Runtime::attached(); rt && rc == MPI_SUCCESS && comm_name) {
    if (rt->comms().findOrRegister(comm)) rt->comms().rename(mpidbg::rt::commKey(comm), comm_name);
  }
  return rc;
}

/// Nonblocking: counted on the parent when issued, and in its children like
/// the other constructors (so that later uids stay the same in every
/// member). The new communicator is usable only once the request
/// completes: it is registered when first used, without a uid.
MPIDBG_EXPORT int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  auto scope = CallScope::commConstructor(MpiFunction::CommIdup, comm);
  const int rc = PMPI_Comm_idup(comm, newcomm, request);
  registerCreated(rc, comm, nullptr);
  return rc;
}
