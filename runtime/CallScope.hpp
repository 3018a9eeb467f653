#pragma once

#include <mpi.h>

#include <climits>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "CallClock.hpp"
#include "CommRegistry.hpp"
#include "Control.hpp"
#include "CurrentCall.hpp"
#include "IdleWait.hpp"
#include "MessageLedger.hpp"
#include "Runtime.hpp"
#include "ThreadLevel.hpp"
#include "ccs/proto/CollectiveRoot.hpp"

/// Marks an interposed MPI entry point: C linkage, exported from the otherwise
/// hidden runtime.
#define MPIDBG_EXPORT extern "C" __attribute__((visibility("default")))

namespace mpidbg::rt {

#if MPI_VERSION >= 4
/// An MPI-4 large count as the int forms record it (and a breakpoint
/// condition's `count` sees it): -1 past INT_MAX or below 0.
inline int smallCount(MPI_Count count) noexcept {
  return count >= 0 && count <= INT_MAX ? static_cast<int>(count) : -1;
}
#endif

/// A record that is never live (liveKey kNoKey): ThreadCalls::lastComm's
/// empty value. Defined in Control.cpp.
extern CommRecord gNoComm __attribute__((visibility("hidden")));

/// This thread's interposition state. One initial-exec TLS block (the
/// runtime is loaded at start-up; __thread: no C++ TLS wrapper call,
/// constant-initialized), so that the fast path reaches both fields from one
/// GOT offset. Defined in Control.cpp.
struct ThreadCalls {
  /// Nesting depth of interposed calls: an MPI call made from inside another
  /// interposed call (a collective built from collectives, a library or a
  /// callback calling MPI) is passed straight to PMPI and counted once, at
  /// the outermost level.
  int depth;
  /// The communicator record this thread's last collective used (a
  /// one-entry cache in front of the registry's hash probe), checked live
  /// and matching (CommRecord::liveKey) before use. Never null: &gNoComm
  /// until the first lookup. Written only by outermost calls, so it is the
  /// same before and after the PMPI call of an outermost collective.
  CommRecord* lastComm;
  /// This thread's last message-ledger key (MessageLedger::Cache), the
  /// point-to-point fast paths' way to count without probing; written by
  /// outermost calls only.
  MessageLedger::Cache lastMessage;
};
extern __thread ThreadCalls tCalls __attribute__((tls_model("initial-exec")));

/// The registry record of `comm` through ThreadCalls::lastComm.
inline CommRecord* cachedComm(CommRegistry& registry, MPI_Comm comm) noexcept {
  CommRecord* r = tCalls.lastComm;
  if (r->holds(commKey(comm))) [[likely]]
    return r;
  r = registry.findOrRegister(comm);
  tCalls.lastComm = r ? r : &gNoComm;
  return r;
}

/// -1 for MPI_ANY_SOURCE, -2 for MPI_PROC_NULL, else the rank itself (the
/// wire convention of ccs/proto/RankProtocol.hpp MpiCall::peer).
inline std::int32_t wirePeer(int rank) noexcept {
  if (rank == MPI_ANY_SOURCE) return -1;
  if (rank == MPI_PROC_NULL) return -2;
  return rank;
}

/// A rooted collective's `root` argument on the wire: ccs::proto::kRootIsMe
/// for MPI_ROOT, kRootProcNull for MPI_PROC_NULL (an intercommunicator's
/// root group), else the rank itself.
inline std::int32_t wireRoot(int root) noexcept {
  if (root >= 0) [[likely]]
    return root;
  if (root == MPI_ROOT) return ccs::proto::kRootIsMe;
  if (root == MPI_PROC_NULL) return ccs::proto::kRootProcNull;
  return root;
}

/// True for the rooted collectives among the 14 classes (MPI_Bcast,
/// MPI_Reduce, MPI_Gather(v), MPI_Scatter(v)).
constexpr bool rootedClass(MpiFunction f) noexcept {
  return f == MpiFunction::Bcast || f == MpiFunction::Reduce || f == MpiFunction::Gather ||
         f == MpiFunction::Gatherv || f == MpiFunction::Scatter || f == MpiFunction::Scatterv;
}

/// -1 for MPI_ANY_TAG, else the tag.
inline std::int32_t wireTag(int tag) noexcept { return tag == MPI_ANY_TAG ? -1 : tag; }

/// One interposed MPI call, from entry to return (RAII around the PMPI call).
/// Inert runtime: one atomic load, nothing else. Attached: counts the call,
/// publishes the current-call record and, for collectives, bumps the
/// communicator's entry counter (exit counter on destruction); then one
/// relaxed load of the armed word, and only when it is set the out-of-line
/// safe point (breakpoints, freeze, step), which may block the call until the
/// debugger continues it. Never allocates except when registering a
/// communicator seen for the first time (and on the armed slow path). The
/// outermost call also takes the thread-level check (ThreadLevel.hpp
/// threadCheck: one compare for the MPI_Init thread below MULTIPLE; a
/// violation is reported and may stop the thread before the call goes on).
class CallScope {
 public:
  /// A non-collective call. `peer`/`tag` are raw MPI values (converted with
  /// wirePeer/wireTag); `comm` MPI_COMM_NULL for calls without one (MPI_Wait*).
  /// `count` is the element count (requests for MPI_Wait*; -1 if none), and
  /// `sendDest` the destination of MPI_Sendrecv* (whose `peer` is the source).
  [[gnu::always_inline]] CallScope(MpiFunction function, MPI_Comm comm, PeerRole role = PeerRole::None,
                                   int peer = 0, bool hasTag = false, int tag = 0, int count = -1,
                                   int sendDest = MPI_PROC_NULL) noexcept
      : CallScope(KeyTag{}, function, comm == MPI_COMM_NULL ? 0 : commKey(comm), role, peer, hasTag, tag, count,
                  sendDest) {}

  /// A call on the window of handle key `winKey` (handleKey) that is not a
  /// collective on it (MPI_Win_lock, MPI_Win_start, ...): published with the
  /// window as its communicator, whose registry record (CommWrappers.cpp)
  /// names it.
  /// `target`: the rank of the window's group the call locks, unlocks or
  /// flushes (published with PeerRole::Target), or nullopt.
  static CallScope onWindow(MpiFunction function, std::uint64_t winKey, std::optional<int> target = {},
                            int count = -1) noexcept {
    return CallScope(KeyTag{}, function, winKey, target ? PeerRole::Target : PeerRole::None, target.value_or(0),
                     false, 0, count, MPI_PROC_NULL);
  }

  /// A collective on the window of handle key `winKey` (MPI_Win_fence,
  /// MPI_Win_free): counted like a blocking collective of class `collClass`
  /// on the window's registry record; a window the runtime did not see
  /// being made counts nothing (the call is still published).
  static CallScope windowCollective(MpiFunction function, ccs::proto::CollClass collClass,
                                    std::uint64_t winKey) noexcept {
    return CallScope(WindowTag{}, function, static_cast<int>(collClass), winKey);
  }

  /// A collective of class `function` (Barrier..Scatterv) on `comm`; `root`
  /// for rooted collectives (PeerRole::Root), else pass role None; `count`
  /// the element count a condition sees (-1 if none). Counts the entry (the
  /// exit when the scope ends), the communicator's collSeq and one history
  /// record.
  [[gnu::always_inline]] static CallScope collective(MpiFunction function, MPI_Comm comm, PeerRole role = PeerRole::None,
                              int root = 0, int count = -1) noexcept {
    return CallScope(CollectiveTag{}, function, static_cast<int>(collClassOf(function)), true, comm, role, root,
                     count, nullptr);
  }

  /// A blocking collective `function` outside the 14 classes (MPI_Exscan,
  /// MPI_Alltoallw, MPI_Reduce_scatter_block), counted in class `collClass`
  /// of its nearest form, as its nonblocking form is; otherwise as
  /// collective().
  static CallScope collectiveIn(MpiFunction function, ccs::proto::CollClass collClass, MPI_Comm comm,
                                PeerRole role = PeerRole::None, int root = 0, int count = -1) noexcept {
    return CallScope(CollectiveTag{}, function, static_cast<int>(collClass), true, comm, role, root, count, nullptr);
  }

  /// What issuing a nonblocking collective counted (issue()).
  struct Issued {
    CommRecord* comm = nullptr;    ///< nullptr: nothing counted (inert, nested, unregistered)
    std::uint32_t generation = 0;  ///< comm->generation at issue
    std::uint64_t collCall = 0;    ///< the per-class call number
    std::uint64_t collSeq = 0;     ///< the communicator's collSeq of this call
  };

  /// A nonblocking collective `function` of class `collClass` on `comm`
  /// (role/root/count as for collective()): counts the entry, collSeq and a
  /// history record, but not the exit; the caller records the request so
  /// that its completion counts the exit (OpTable::complete), or counts it
  /// at once when it cannot. `out` receives what was counted.
  static CallScope issue(MpiFunction function, ccs::proto::CollClass collClass, MPI_Comm comm, PeerRole role,
                         int root, int count, Issued& out) noexcept {
    return CallScope(CollectiveTag{}, function, static_cast<int>(collClass), false, comm, role, root, count, &out);
  }

  /// A nonblocking collective `function` in no class on `comm` (the
  /// nonblocking collective MPI-IO calls, FileWrappers.cpp: MPI_File_iwrite_all
  /// on the file's communicator): counts collSeq and a history record, as
  /// issue() does, but no class counters (`out.collCall` stays 0); `count`
  /// as for collective(). The caller records the request (recordCollective
  /// with no class), whose completion then counts nothing.
  static CallScope issueInNoClass(MpiFunction function, MPI_Comm comm, int count, Issued& out) noexcept {
    return CallScope(CollectiveTag{}, function, -1, false, comm, PeerRole::None, 0, count, &out);
  }

  /// A communicator constructor (MPI_Comm_dup, MPI_Cart_create, ...:
  /// CommWrappers.cpp) on parent `comm`: a collective on it, counted in its
  /// collSeq and the history but in no class.
  static CallScope commConstructor(MpiFunction function, MPI_Comm comm) noexcept {
    return CallScope(CollectiveTag{}, function, -1, false, comm, PeerRole::None, 0, -1, nullptr);
  }

  /// MPI_Intercomm_create on `localComm`: counted there as commConstructor()
  /// counts, and published with whom the rank waits for inside it (MPI 4.0,
  /// 7.6.2): a member other than the local leader names its leader
  /// (`localLeader`, a rank of `localComm`, as the root), the local leader
  /// the remote leader (`remoteLeader`, a rank of `peerComm`, as the dest,
  /// with `peerComm` as the call's communicator). `isLeader`: this rank is
  /// `localComm`'s `localLeader`.
  static CallScope intercommCreate(MPI_Comm localComm, int localLeader, bool isLeader, MPI_Comm peerComm,
                                   int remoteLeader) noexcept {
    return CallScope(IntercommTag{}, localComm, isLeader ? PeerRole::Dest : PeerRole::Root,
                     isLeader ? remoteLeader : localLeader, isLeader ? commKey(peerComm) : 0);
  }

  /// An MPI_Wait*/MPI_Test* on the `count` requests at `requests`: the array
  /// is published with the call record (readers see what the rank waits
  /// on). Use through WaitScope, which withdraws the array again.
  static CallScope waiting(MpiFunction function, const MPI_Request* requests, int count) noexcept {
    return CallScope(WaitingTag{}, function, requests, count);
  }

  [[gnu::always_inline]] ~CallScope() {
    if (!rt_) return;
    --tCalls.depth;
    if (!outermost_) return;
    if (comm_) comm_->exits[collClass_].fetch_add(1, std::memory_order_release);
    if (recorded_) rt_->currentCall().end();
    if (thread_) threadLeave(thread_);
  }

  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  /// True when this is the outermost interposed call of an attached runtime:
  /// only then does a wrapper record operations.
  bool outermost() const noexcept { return outermost_; }
  /// True when this call owns the current-call record.
  bool recorded() const noexcept { return recorded_; }
  /// The attached runtime, or nullptr (inert).
  Runtime* runtime() const noexcept { return rt_; }

 private:
  struct CollectiveTag {};
  struct WaitingTag {};
  struct KeyTag {};
  struct WindowTag {};
  struct IntercommTag {};

  /// A non-collective call on the communicator or window of handle key
  /// `key` (0: none); the other arguments as for the public constructor.
  [[gnu::always_inline]] CallScope(KeyTag, MpiFunction function, std::uint64_t key, PeerRole role, int peer,
                                   bool hasTag, int tag, int count, int sendDest) noexcept
      : rt_(Runtime::attached()) {
    if (!enterOutermost(function)) return;
    thread_ = threadCheck(*rt_, function, key, false);
    begin({function, role, hasTag, role == PeerRole::None ? 0 : wirePeer(peer), hasTag ? wireTag(tag) : 0, key, 0,
           0, 0},
          count, sendDest);
  }

  CallScope(WindowTag, MpiFunction function, int collClass, std::uint64_t winKey) noexcept
      : rt_(Runtime::attached()) {
    if (!enterOutermost(function)) return;
    thread_ = threadCheck(*rt_, function, winKey, true);
    countCollective(rt_->comms().find(winKey), function, collClass, true, winKey, PeerRole::None, 0, -1, nullptr);
  }

  /// The common start of every scope: false (nothing to do) for an inert
  /// runtime (noting a call made before MPI_Init) or a nested call; true for
  /// the outermost call of an attached runtime.
  [[gnu::always_inline]] bool enterOutermost(MpiFunction function) noexcept {
    if (!rt_) {
      if (!__atomic_load_n(&gMpiInitEntered, __ATOMIC_RELAXED)) [[unlikely]]
        noteCallBeforeInit(function);
      return false;
    }
    if (++tCalls.depth != 1) return false;
    outermost_ = true;
    return true;
  }

  /// Counts a collective call on `record` (nullptr: unregistered, nothing
  /// counted): collSeq, the class's entries (the exit too at the scope's
  /// end with `countExit`), a history record; then publishes the call.
  /// `shownKey`: the handle key the call is published with when not `key`'s
  /// (0: `key`; MPI_Intercomm_create's local leader names the peer
  /// communicator). A collective in no class records no root in the history.
  [[gnu::always_inline]] void countCollective(CommRecord* record, MpiFunction function, int collClass,
                                              bool countExit, std::uint64_t key, PeerRole role, int root,
                                              int count, Issued* out, std::uint64_t shownKey = 0) noexcept {
    if (role == PeerRole::Root) root = wireRoot(root);
    CurrentCall::Fields call{function, role, false, role == PeerRole::None ? 0 : root, 0, key, 0, 0, 0};
    if (record) [[likely]] {
      const std::uint64_t collSeq = record->collSeq.fetch_add(1, std::memory_order_relaxed) + 1;
      if (collClass >= 0) {
        const auto c = static_cast<std::size_t>(collClass);
        call.collCall = record->entries[c].fetch_add(1, std::memory_order_relaxed) + 1;
        if (countExit) {
          comm_ = record;
          collClass_ = c;
        }
      }
      rt_->history().append(key, collSeq, function, role == PeerRole::Root && collClass >= 0 ? root : -1, count);
      if (out) *out = Issued{record, record->generation.load(std::memory_order_relaxed), call.collCall, collSeq};
    }
    if (shownKey != 0) call.comm = shownKey;
    begin(call, count, MPI_PROC_NULL);
  }

  /// collClass -1: no class counters (communicator constructors);
  /// `countExit`: the scope's end counts the exit (blocking collectives).
  [[gnu::always_inline]] CallScope(CollectiveTag, MpiFunction function, int collClass, bool countExit,
                                   MPI_Comm comm, PeerRole role, int root, int count, Issued* out) noexcept
      : rt_(Runtime::attached()) {
    if (!enterOutermost(function)) return;
    thread_ = threadCheck(*rt_, function, commKey(comm), countExit && collClass >= 0);
    countCollective(cachedComm(rt_->comms(), comm), function, collClass, countExit, commKey(comm), role, root,
                    count, out);
  }

  CallScope(IntercommTag, MPI_Comm localComm, PeerRole role, int peer, std::uint64_t shownKey) noexcept
      : rt_(Runtime::attached()) {
    if (!enterOutermost(MpiFunction::IntercommCreate)) return;
    thread_ = threadCheck(*rt_, MpiFunction::IntercommCreate, commKey(localComm), false);
    countCollective(cachedComm(rt_->comms(), localComm), MpiFunction::IntercommCreate, -1, false, commKey(localComm),
                    role, peer, -1, nullptr, shownKey);
  }

  CallScope(WaitingTag, MpiFunction function, const MPI_Request* requests, int count) noexcept
      : rt_(Runtime::attached()) {
    if (!enterOutermost(function)) return;
    thread_ = threadCheck(*rt_, function, 0, false);
    CurrentCall::Fields call{function, PeerRole::None, false, 0, 0, 0, 0, callClockNow(), rt_->countCall()};
    recorded_ = !(thread_ & kThreadSkipRecord) && rt_->currentCall().beginWaiting(call, requests, count);
    if (controlArmed()) [[unlikely]]
      armedSafePoint(rt_, recorded_, call, count, MPI_PROC_NULL);
  }

  /// Stamps `call` (entry time, call number), publishes it and takes the
  /// safe point.
  [[gnu::always_inline]] void begin(CurrentCall::Fields call, int count, int sendDest) noexcept {
    call.seq = rt_->countCall();
    call.entryNs = callClockNow();
    recorded_ = !(thread_ & kThreadSkipRecord) && rt_->currentCall().begin(call);
    if (controlArmed()) [[unlikely]]
      armedSafePoint(rt_, recorded_, call, count, sendDest);
  }

  /// The safe point's slow path. A stop there (breakpoint, freeze, step)
  /// does not count as time inside the call: the entry time restarts when
  /// the call goes on, so a rank resumed after a long stop is not reported
  /// blocked in MPI at once. Static and by value, so that the fast path
  /// keeps the scope and the fields in registers.
  [[gnu::noinline, gnu::cold]] static void armedSafePoint(Runtime* rt, bool recorded, CurrentCall::Fields f,
                                                          int count, int sendDest) noexcept {
    MpiCallRecord call;
    call.function = f.function;
    call.peerRole = f.peerRole;
    call.hasTag = f.hasTag;
    call.peer = f.peer;
    call.tag = f.tag;
    call.comm = f.comm;
    call.collCall = f.collCall;
    call.entryNs = f.entryNs;
    call.seq = f.seq;
    reachMpiSafePoint(*rt, call, count, sendDest);
    if (recorded) rt->currentCall().restamp(callClockNow());
  }

  Runtime* rt_;
  CommRecord* comm_ = nullptr;
  std::size_t collClass_ = 0;
  bool outermost_ = false;
  bool recorded_ = false;
  std::uint8_t thread_ = 0;  ///< ThreadToken bits of threadEnter()
};

/// The fast path of a blocking point-to-point wrapper (MPI_Send, MPI_Recv,
/// ...): everything a CallScope does when nothing is armed, with no function
/// call inside, so the wrapper keeps its arguments in registers and nothing
/// but the return value lives across the PMPI call. Returns true when it has
/// published the call; the wrapper then calls PMPI and fastLeave(). Returns
/// false, having done nothing, whenever the wrapper must take its ordinary
/// CallScope path: a nested call, or gFastGate closed (ThreadLevel.hpp:
/// inert runtime, breakpoints/freeze/step armed, no time-stamp counter,
/// MPI_THREAD_MULTIPLE (the record needs its compare-and-swap), idle
/// waiting, not the MPI_Init thread, another thread in the slow path,
/// finalized): one compare of the thread pointer for all of them. The
/// record is the static gCurrentCall (PC-relative, no runtime pointer to
/// load). The wrapper's slow path is a separate noinline function it
/// tail-calls (MPIDBG_P2P_WRAPPER). `admit()`, asked once the gate is
/// open and the call is outermost, may refuse the fast path too (false, with
/// nothing else done); it must call nothing out of line, or the wrapper
/// keeps its arguments in callee-saved registers (MessageLedger's
/// home-slot counts).
template <typename Admit>
[[gnu::always_inline]] inline bool fastEnter(MpiFunction function, MPI_Comm comm, PeerRole role, int peer, int tag,
                                             Admit admit) noexcept {
  if (!fastGateOpen() || tCalls.depth != 0 || !admit()) return false;
#if defined(__x86_64__)
  tCalls.depth = 1;
  gCurrentCall.publishExclusive({function, role, true, wirePeer(peer), wireTag(tag), commKey(comm), 0,
                                 static_cast<std::int64_t>(__rdtsc()), Runtime::countCall()});
  return true;
#else
  (void)function, (void)comm, (void)role, (void)peer, (void)tag;
  return false;
#endif
}

/// fastEnter() admitting every call.
[[gnu::always_inline]] inline bool fastEnter(MpiFunction function, MPI_Comm comm, PeerRole role, int peer,
                                             int tag) noexcept {
  return fastEnter(function, comm, role, peer, tag, [] { return true; });
}

/// Ends a call fastEnter() published: the record shows no call again.
[[gnu::always_inline]] inline void fastLeave() noexcept {
  tCalls.depth = 0;
  gCurrentCall.endExclusive();
}

/// fastEnter() for a blocking collective of class `function` (Barrier ..
/// Scatterv) on `comm`, `root` (-1 when unrooted) and `count` as
/// CallScope::collective records them: also counts the entry, the
/// communicator's collSeq and one history record. Takes the slow path
/// (false, nothing done) as fastEnter does, and also when `comm` is not the
/// live communicator this thread's last collective used
/// (ThreadCalls::lastComm; the registry lookup is a call), or a rooted
/// collective's root is negative (MPI_ROOT, MPI_PROC_NULL). True when it has
/// published the call; the wrapper then calls PMPI and
/// fastLeaveCollective().
[[gnu::always_inline]] inline bool fastEnterCollective(MpiFunction function, MPI_Comm comm, int root,
                                                       int count) noexcept {
  if (!fastGateOpen() || tCalls.depth != 0) return false;
  // A rooted collective's MPI_ROOT or MPI_PROC_NULL (an intercommunicator)
  // is published by the slow path, as its wire value (wireRoot).
  if (rootedClass(function) && root < 0) return false;
#if defined(__x86_64__)
  const std::uint64_t key = commKey(comm);
  CommRecord* record = tCalls.lastComm;
  if (!record->holds(key)) return false;
  tCalls.depth = 1;
  const std::size_t c = collClassOf(function);
  const std::uint64_t collSeq = record->collSeq.fetch_add(1, std::memory_order_relaxed) + 1;
  const std::uint64_t collCall = record->entries[c].fetch_add(1, std::memory_order_relaxed) + 1;
  gCollHistory.append(key, collSeq, function, root, count);
  gCurrentCall.publishExclusive({function, root >= 0 ? PeerRole::Root : PeerRole::None, false, root >= 0 ? root : 0,
                                 0, key, collCall, static_cast<std::int64_t>(__rdtsc()), Runtime::countCall()});
  return true;
#else
  (void)function, (void)comm, (void)root, (void)count;
  return false;
#endif
}

/// Ends a collective fastEnterCollective() published as `function`: counts
/// its exit on ThreadCalls::lastComm, which still holds the communicator
/// fastEnterCollective() checked (only outermost calls change it; reading
/// it again here, rather than keeping the record across the PMPI call,
/// leaves the wrapper one callee-saved register to push), then as
/// fastLeave().
[[gnu::always_inline]] inline void fastLeaveCollective(MpiFunction function) noexcept {
  tCalls.lastComm->exits[collClassOf(function)].fetch_add(1, std::memory_order_release);
  fastLeave();
}

/// Defines the blocking collective NAME(PARAMS) as the fast path around
/// PMPI_NAME(ARGS) (fastEnterCollective with FUNCTION, COMM, ROOT, COUNT),
/// tail-calling a noinline slow path that wraps the same call in
/// CallScope::collective(__VA_ARGS__).
#define MPIDBG_COLLECTIVE_WRAPPER(NAME, PARAMS, ARGS, FUNCTION, COMM, ROOT, COUNT, ...)          \
  namespace {                                                                                     \
  [[gnu::noinline]] int NAME##_slow PARAMS {                                                      \
    auto scope = mpidbg::rt::CallScope::collective(__VA_ARGS__);                                  \
    return MPIDBG_PMPI_OR_IDLE(NAME, ARGS);                                                       \
  }                                                                                               \
  }                                                                                               \
  MPIDBG_EXPORT int NAME PARAMS {                                                                 \
    if (!mpidbg::rt::fastEnterCollective(FUNCTION, COMM, ROOT, COUNT)) [[unlikely]]               \
      return NAME##_slow ARGS;                                                                    \
    const int rc = P##NAME ARGS;                                                                  \
    mpidbg::rt::fastLeaveCollective(FUNCTION);                                                    \
    return rc;                                                                                    \
  }

/// Defines the interposed MPI function NAME(PARAMS) as the fast path around
/// PMPI_NAME(ARGS) (fastEnter with FUNCTION, ROLE, PEER, TAG and the
/// admission expression FAST, whose refusal sends the call to the slow path),
/// tail-calling a noinline slow path that runs the statement SLOW, then wraps
/// the same call in CallScope(SCOPE_ARGS).
#define MPIDBG_P2P_WRAPPER(NAME, PARAMS, ARGS, FAST, SLOW, FUNCTION, COMM, ROLE, PEER, TAG, ...)  \
  namespace {                                                                                     \
  [[gnu::noinline]] int NAME##_slow PARAMS {                                                      \
    SLOW;                                                                                         \
    mpidbg::rt::CallScope scope(__VA_ARGS__);                                                     \
    return MPIDBG_PMPI_OR_IDLE(NAME, ARGS);                                                       \
  }                                                                                               \
  }                                                                                               \
  MPIDBG_EXPORT int NAME PARAMS {                                                                 \
    if (!mpidbg::rt::fastEnter(FUNCTION, COMM, ROLE, PEER, TAG, [&] { return FAST; })) [[unlikely]] \
      return NAME##_slow ARGS;                                                                    \
    const int rc = P##NAME ARGS;                                                                  \
    mpidbg::rt::fastLeave();                                                                      \
    return rc;                                                                                    \
  }

/// The scope of an MPI_Wait*/MPI_Test* call (CallScope::waiting): withdraws
/// the published request array before the call record ends.
class WaitScope {
 public:
  WaitScope(MpiFunction function, const MPI_Request* requests, int count) noexcept
      : scope_(CallScope::waiting(function, requests, count)) {}
  ~WaitScope() {
    if (scope_.recorded()) scope_.runtime()->currentCall().clearRequests();
  }
  WaitScope(const WaitScope&) = delete;
  WaitScope& operator=(const WaitScope&) = delete;

  /// The runtime when this call should track operations (attached,
  /// outermost, something recorded), else nullptr.
  Runtime* tracking() const noexcept {
    Runtime* rt = scope_.runtime();
    return scope_.outermost() && !rt->ops().empty() ? rt : nullptr;
  }

  /// The runtime when this is an outermost call of an attached runtime
  /// (what PollWatch hears of), else nullptr.
  Runtime* outermostRuntime() const noexcept { return scope_.outermost() ? scope_.runtime() : nullptr; }

 private:
  CallScope scope_;
};

}  // namespace mpidbg::rt
