#pragma once

#include <mpi.h>
#include <time.h>

#include "CommRegistry.hpp"
#include "Control.hpp"
#include "CurrentCall.hpp"
#include "Runtime.hpp"

/// Marks an interposed MPI entry point: C linkage, exported from the otherwise
/// hidden runtime.
#define MPIDBG_EXPORT extern "C" __attribute__((visibility("default")))

namespace mpidbg::rt {

/// Nesting depth of interposed calls on this thread: an MPI call made from
/// inside another interposed call (a collective built from collectives, a
/// library calling MPI) is passed straight to PMPI and counted once, at the
/// outermost level. Initial-exec TLS: the runtime is loaded at start-up;
/// __thread (no C++ TLS wrapper call): a plain int, constant-initialized.
extern __thread int tCallDepth __attribute__((tls_model("initial-exec")));

/// The communicator record this thread's last collective used (a one-entry
/// cache in front of the registry's hash probe); checked live and matching
/// before use. Defined in Control.cpp.
extern __thread CommRecord* tLastComm __attribute__((tls_model("initial-exec")));

/// The registry record of `comm` through tLastComm.
inline CommRecord* cachedComm(CommRegistry& registry, MPI_Comm comm) noexcept {
  const std::uint64_t key = commKey(comm);
  CommRecord* r = tLastComm;
  if (r && r->state.load(std::memory_order_acquire) == CommRecord::Live &&
      r->handle.load(std::memory_order_relaxed) == key) [[likely]]
    return r;
  r = registry.findOrRegister(comm);
  tLastComm = r;
  return r;
}

/// -1 for MPI_ANY_SOURCE, -2 for MPI_PROC_NULL, else the rank itself (the
/// wire convention of ccs/RankProtocol.hpp MpiCall::peer).
inline std::int32_t wirePeer(int rank) noexcept {
  if (rank == MPI_ANY_SOURCE) return -1;
  if (rank == MPI_PROC_NULL) return -2;
  return rank;
}

/// -1 for MPI_ANY_TAG, else the tag.
inline std::int32_t wireTag(int tag) noexcept { return tag == MPI_ANY_TAG ? -1 : tag; }

/// Nanoseconds of CLOCK_MONOTONIC (vDSO; no system call).
inline std::int64_t monotonicNow() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/// One interposed MPI call, from entry to return (RAII around the PMPI call).
/// Inert runtime: one atomic load, nothing else. Attached: counts the call,
/// publishes the current-call record and, for collectives, bumps the
/// communicator's entry counter (exit counter on destruction); then one
/// relaxed load of the armed word, and only when it is set the out-of-line
/// safe point (breakpoints, freeze, step), which may block the call until the
/// debugger continues it. Never allocates except when registering a
/// communicator seen for the first time (and on the armed slow path).
class CallScope {
 public:
  /// A non-collective call. `peer`/`tag` are raw MPI values (converted with
  /// wirePeer/wireTag); `comm` MPI_COMM_NULL for calls without one (MPI_Wait*).
  /// `count` is the element count (requests for MPI_Wait*; -1 if none), and
  /// `sendDest` the destination of MPI_Sendrecv* (whose `peer` is the source).
  CallScope(MpiFunction function, MPI_Comm comm, PeerRole role = PeerRole::None, int peer = 0,
            bool hasTag = false, int tag = 0, int count = -1, int sendDest = MPI_PROC_NULL) noexcept
      : rt_(Runtime::attached()) {
    if (!rt_) return;
    if (tCallDepth++ > 0) return;
    outermost_ = true;
    MpiCallRecord call;
    call.function = function;
    call.peerRole = role;
    call.peer = role == PeerRole::None ? 0 : wirePeer(peer);
    call.hasTag = hasTag;
    call.tag = hasTag ? wireTag(tag) : 0;
    call.comm = comm == MPI_COMM_NULL ? 0 : commKey(comm);
    begin(call, count, sendDest);
  }

  /// A collective of class `function` (Barrier..Scatterv) on `comm`; `root`
  /// for rooted collectives (PeerRole::Root), else pass role None; `count`
  /// the element count a condition sees (-1 if none).
  static CallScope collective(MpiFunction function, MPI_Comm comm, PeerRole role = PeerRole::None,
                              int root = 0, int count = -1) noexcept {
    return CallScope(CollectiveTag{}, function, comm, role, root, count);
  }

  ~CallScope() {
    if (!rt_) return;
    --tCallDepth;
    if (!outermost_) return;
    if (comm_) comm_->exits[collClass_].fetch_add(1, std::memory_order_release);
    if (recorded_) rt_->currentCall().end();
  }

  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  struct CollectiveTag {};

  CallScope(CollectiveTag, MpiFunction function, MPI_Comm comm, PeerRole role, int root, int count) noexcept
      : rt_(Runtime::attached()) {
    if (!rt_) return;
    if (tCallDepth++ > 0) return;
    outermost_ = true;
    MpiCallRecord call;
    call.function = function;
    call.peerRole = role;
    call.peer = role == PeerRole::None ? 0 : root;
    call.comm = commKey(comm);
    collClass_ = static_cast<std::size_t>(function) - static_cast<std::size_t>(MpiFunction::Barrier);
    comm_ = cachedComm(rt_->comms(), comm);
    if (comm_) call.collCall = comm_->entries[collClass_].fetch_add(1, std::memory_order_relaxed) + 1;
    begin(call, count, MPI_PROC_NULL);
  }

  void begin(MpiCallRecord& call, int count, int sendDest) noexcept {
    call.seq = rt_->countCall();
    call.entryNs = monotonicNow();
    recorded_ = rt_->currentCall().begin(call);
    if (controlArmed()) [[unlikely]]
      reachMpiSafePoint(*rt_, call, count, sendDest);
  }

  Runtime* rt_;
  CommRecord* comm_ = nullptr;
  std::size_t collClass_ = 0;
  bool outermost_ = false;
  bool recorded_ = false;
};

}  // namespace mpidbg::rt
