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
//
// Windows (one-sided communication, issue 23 item 2) are kept in the same
// registry, under their own handle key, with the members of the
// communicator they were made on: MPI_Win_create, _allocate,
// _allocate_shared and _create_dynamic (and MPI-4's large-count
// MPI_Win_create_c, _allocate_c, _allocate_shared_c) are constructors on that
// communicator (counted there, like MPI_Comm_dup, and given a uid the same
// way); MPI_Win_fence and MPI_Win_free are collectives on the window,
// counted in the Barrier class of its record, so that a rank in its k-th
// fence waits for the members not yet there, as in a barrier. The passive
// and generalized active target calls are in WindowSyncWrappers.cpp.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "CallScope.hpp"

using mpidbg::rt::CallScope;
using mpidbg::rt::MpiFunction;
using mpidbg::rt::Runtime;
using mpidbg::rt::winKey;

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

/// Counts one constructor call on `parent` in its children; returns the
/// parent's uid and the call's 1-based number among them (childUid's
/// arguments), {0, 0} for a parent the registry does not hold.
std::pair<std::uint64_t, std::uint64_t> countChild(Runtime& rt, MPI_Comm parent) noexcept {
  mpidbg::rt::CommRecord* p = rt.comms().find(mpidbg::rt::commKey(parent));
  if (!p) return {0, 0};
  return {p->uid.load(std::memory_order_relaxed), p->children.fetch_add(1, std::memory_order_relaxed) + 1};
}

/// After a constructor call on `parent`: counts it in the parent's
/// children (whatever it returned, so that the members of the parent stay
/// in step), then registers the communicator the application just created
/// in `*newcomm` with its uid (no-op for a failed call, MPI_COMM_NULL, or an
/// inert runtime).
void registerCreated(int rc, MPI_Comm parent, const MPI_Comm* newcomm) noexcept {
  Runtime* rt = Runtime::attached();
  if (!rt) return;
  // Not a structured binding: the lambda below captures these.
  const std::pair<std::uint64_t, std::uint64_t> made = countChild(*rt, parent);
  const std::uint64_t parentUid = made.first, child = made.second;
  if (rc != MPI_SUCCESS || !newcomm || *newcomm == MPI_COMM_NULL) return;
  addComm(*rt, *newcomm, [&](const std::vector<std::int32_t>& worldRanks) {
    return mpidbg::rt::childUid(parentUid, child, worldRanks);
  });
}

/// After a call that made an intercommunicator (or merged one) in
/// `*newcomm`: registers it without a uid (its two groups could not agree
/// on one), described by its remote group (describeComm). No-op for a failed
/// call, MPI_COMM_NULL, or an inert runtime.
void registerInter(int rc, const MPI_Comm* newcomm) noexcept {
  Runtime* rt = Runtime::attached();
  if (!rt || rc != MPI_SUCCESS || !newcomm || *newcomm == MPI_COMM_NULL) return;
  addComm(*rt, *newcomm, [](const std::vector<std::int32_t>&) -> std::uint64_t { return 0; });
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

#if MPI_VERSION >= 4
MPIDBG_EXPORT int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
  auto scope = CallScope::commConstructor(MpiFunction::CommIdupWithInfo, comm);
  const int rc = PMPI_Comm_idup_with_info(comm, info, newcomm, request);
  registerCreated(rc, comm, nullptr);
  return rc;
}
#endif

MPIDBG_EXPORT int MPI_Comm_disconnect(MPI_Comm* comm) {
  CallScope scope(MpiFunction::CommDisconnect, comm ? *comm : MPI_COMM_NULL);
  const MPI_Comm freed = comm ? *comm : MPI_COMM_NULL;
  const int rc = PMPI_Comm_disconnect(comm);
  if (Runtime* rt = Runtime::attached(); rt && rc == MPI_SUCCESS)
    rt->comms().remove(mpidbg::rt::commKey(freed));
  return rc;
}

// ---- Intercommunicators and dynamic processes -----------------------------
// Each constructor counts on the intracommunicator its callers share, like
// MPI_Comm_dup; the intercommunicator it makes is registered without a uid,
// with its remote group as members (describeComm: the ranks point-to-point
// calls on it name; another job's processes are -1). MPI_Intercomm_merge counts on the
// intercommunicator. The verdict waits on MPI_Intercomm_merge like on any
// constructor, in MPI_Intercomm_create for the local leader (or, at the
// leader, the remote leader: CallScope::intercommCreate publishes which),
// and names the dynamic-process calls (spawn, accept, connect, join) not
// followed: they wait for processes outside the job.

MPIDBG_EXPORT int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                                       int tag, MPI_Comm* newintercomm) {
  int localRank = -1;
  if (Runtime::attached()) PMPI_Comm_rank(local_comm, &localRank);
  auto scope =
      CallScope::intercommCreate(local_comm, local_leader, localRank == local_leader, peer_comm, remote_leader);
  const int rc = PMPI_Intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm);
  registerInter(rc, newintercomm);
  return rc;
}

MPIDBG_EXPORT int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  auto scope = CallScope::commConstructor(MpiFunction::IntercommMerge, intercomm);
  const int rc = PMPI_Intercomm_merge(intercomm, high, newintracomm);
  registerInter(rc, newintracomm);
  return rc;
}

MPIDBG_EXPORT int MPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info, int root,
                                 MPI_Comm comm, MPI_Comm* intercomm, int array_of_errcodes[]) {
  auto scope = CallScope::commConstructor(MpiFunction::CommSpawn, comm);
  const int rc = PMPI_Comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, array_of_errcodes);
  registerInter(rc, intercomm);
  return rc;
}

MPIDBG_EXPORT int MPI_Comm_spawn_multiple(int count, char* array_of_commands[], char** array_of_argv[],
                                          const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                                          MPI_Comm comm, MPI_Comm* intercomm, int array_of_errcodes[]) {
  auto scope = CallScope::commConstructor(MpiFunction::CommSpawnMultiple, comm);
  const int rc = PMPI_Comm_spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info,
                                          root, comm, intercomm, array_of_errcodes);
  registerInter(rc, intercomm);
  return rc;
}

MPIDBG_EXPORT int MPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  auto scope = CallScope::commConstructor(MpiFunction::CommAccept, comm);
  const int rc = PMPI_Comm_accept(port_name, info, root, comm, newcomm);
  registerInter(rc, newcomm);
  return rc;
}

MPIDBG_EXPORT int MPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm,
                                   MPI_Comm* newcomm) {
  auto scope = CallScope::commConstructor(MpiFunction::CommConnect, comm);
  const int rc = PMPI_Comm_connect(port_name, info, root, comm, newcomm);
  registerInter(rc, newcomm);
  return rc;
}

MPIDBG_EXPORT int MPI_Comm_join(int fd, MPI_Comm* intercomm) {
  CallScope scope(MpiFunction::CommJoin, MPI_COMM_NULL);
  const int rc = PMPI_Comm_join(fd, intercomm);
  registerInter(rc, intercomm);
  return rc;
}

#if MPI_VERSION >= 4
// MPI-4's constructors from groups (the Sessions model): no parent
// communicator to count on; the communicator is registered without a uid.
MPIDBG_EXPORT int MPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info,
                                             MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  CallScope scope(MpiFunction::CommCreateFromGroup, MPI_COMM_NULL);
  const int rc = PMPI_Comm_create_from_group(group, stringtag, info, errhandler, newcomm);
  registerInter(rc, newcomm);
  return rc;
}

MPIDBG_EXPORT int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                                   int remote_leader, const char* stringtag, MPI_Info info,
                                                   MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  CallScope scope(MpiFunction::IntercommCreateFromGroups, MPI_COMM_NULL);
  const int rc = PMPI_Intercomm_create_from_groups(local_group, local_leader, remote_group, remote_leader, stringtag,
                                                   info, errhandler, newintercomm);
  registerInter(rc, newintercomm);
  return rc;
}
#endif

// ---- Windows -------------------------------------------------------------

namespace {

/// One window constructor `function` on `comm`: counted as a collective on
/// `comm` around `pmpi` (which fills `*win`), then the window is registered
/// under its handle key with comm's members, the name "win 0x..." and a
/// uid from comm's, as a communicator made on it would get. Returns what
/// `pmpi` returned.
template <typename Pmpi>
int constructWindow(MpiFunction function, MPI_Comm comm, MPI_Win* win, Pmpi pmpi) noexcept {
  auto scope = CallScope::commConstructor(function, comm);
  const int rc = pmpi();
  Runtime* rt = Runtime::attached();
  if (!rt) return rc;
  const auto [parentUid, child] = countChild(*rt, comm);
  if (rc != MPI_SUCCESS || !win || *win == MPI_WIN_NULL) return rc;
  mpidbg::rt::CommInfo info = mpidbg::rt::describeComm(comm);
  info.uid = mpidbg::rt::childUid(parentUid, child, info.worldRanks);
  std::array<char, 64> name{};
  std::snprintf(name.data(), name.size(), "win 0x%llx", static_cast<unsigned long long>(winKey(*win)));
  info.name = name.data();
  rt->comms().add(winKey(*win), info);
  return rc;
}

}  // namespace

MPIDBG_EXPORT int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                 MPI_Win* win) {
  return constructWindow(MpiFunction::WinCreate, comm, win,
                         [&] { return PMPI_Win_create(base, size, disp_unit, info, comm, win); });
}

MPIDBG_EXPORT int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                   MPI_Win* win) {
  return constructWindow(MpiFunction::WinAllocate, comm, win,
                         [&] { return PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win); });
}

MPIDBG_EXPORT int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                          void* baseptr, MPI_Win* win) {
  return constructWindow(MpiFunction::WinAllocateShared, comm, win,
                         [&] { return PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win); });
}

#if MPI_VERSION >= 4
// MPI-4's large-count forms (MPICH 4; only disp_unit is wider): as their int forms.
MPIDBG_EXPORT int MPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                   MPI_Win* win) {
  return constructWindow(MpiFunction::WinCreateC, comm, win,
                         [&] { return PMPI_Win_create_c(base, size, disp_unit, info, comm, win); });
}

MPIDBG_EXPORT int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                     MPI_Win* win) {
  return constructWindow(MpiFunction::WinAllocateC, comm, win,
                         [&] { return PMPI_Win_allocate_c(size, disp_unit, info, comm, baseptr, win); });
}

MPIDBG_EXPORT int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                            void* baseptr, MPI_Win* win) {
  return constructWindow(MpiFunction::WinAllocateSharedC, comm, win,
                         [&] { return PMPI_Win_allocate_shared_c(size, disp_unit, info, comm, baseptr, win); });
}
#endif

MPIDBG_EXPORT int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return constructWindow(MpiFunction::WinCreateDynamic, comm, win,
                         [&] { return PMPI_Win_create_dynamic(info, comm, win); });
}

MPIDBG_EXPORT int MPI_Win_fence(int assert, MPI_Win win) {
  auto scope = CallScope::windowCollective(MpiFunction::WinFence, mpidbg::ccs::proto::CollClass::Barrier, winKey(win));
  return PMPI_Win_fence(assert, win);
}

MPIDBG_EXPORT int MPI_Win_free(MPI_Win* win) {
  const std::uint64_t key = win ? winKey(*win) : 0;
  auto scope = CallScope::windowCollective(MpiFunction::WinFree, mpidbg::ccs::proto::CollClass::Barrier, key);
  const int rc = PMPI_Win_free(win);
  if (Runtime* rt = Runtime::attached(); rt && rc == MPI_SUCCESS && key != 0) {
    rt->comms().remove(key);
    try {
      rt->windowLocks().forget(key);
      rt->windowEpochs().forget(key);
    } catch (...) {
    }
  }
  return rc;
}

MPIDBG_EXPORT int MPI_Win_set_name(MPI_Win win, const char* win_name) {
  const int rc = PMPI_Win_set_name(win, win_name);
  if (Runtime* rt = Runtime::attached(); rt && rc == MPI_SUCCESS && win_name) rt->comms().rename(winKey(win), win_name);
  return rc;
}
