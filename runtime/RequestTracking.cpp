// Recording requests in the pending-operation table and completing them
// around MPI_Wait* / MPI_Test* (see RequestTracking.hpp).
#include "RequestTracking.hpp"

#include <atomic>
#include <vector>

#include "MessageLedger.hpp"

namespace mpidbg::rt {

namespace {

/// Predefined datatypes whose sizes are cached (the common ones; others ask
/// PMPI_Type_size each time).
const MPI_Datatype kPredefined[] = {
    MPI_INT,      MPI_DOUBLE,        MPI_CHAR,  MPI_BYTE,          MPI_FLOAT,    MPI_LONG,
    MPI_UNSIGNED, MPI_LONG_LONG,     MPI_SHORT, MPI_UNSIGNED_LONG, MPI_INT64_T,  MPI_INT32_T,
    MPI_UINT64_T, MPI_UNSIGNED_CHAR, MPI_PACKED, MPI_C_BOOL,       MPI_UINT8_T,  MPI_DOUBLE_INT,
};
constexpr std::size_t kPredefinedCount = sizeof kPredefined / sizeof kPredefined[0];

/// Sizes of kPredefined, filled on first use (-1: not filled / unknown).
struct PredefinedSizes {
  std::atomic<bool> filled{false};
  std::atomic<std::int32_t> size[kPredefinedCount] = {};
};
PredefinedSizes gPredefined;

/// The size of `datatype` when it is one of kPredefined, else -1.
std::int32_t predefinedSize(MPI_Datatype datatype) noexcept {
  if (!gPredefined.filled.load(std::memory_order_acquire)) {
    // Racing threads compute the same sizes; PMPI only.
    for (std::size_t i = 0; i < kPredefinedCount; ++i) {
      int size = -1;
      if (PMPI_Type_size(kPredefined[i], &size) != MPI_SUCCESS || size == MPI_UNDEFINED) size = -1;
      gPredefined.size[i].store(size, std::memory_order_relaxed);
    }
    gPredefined.filled.store(true, std::memory_order_release);
  }
  for (std::size_t i = 0; i < kPredefinedCount; ++i)
    if (kPredefined[i] == datatype) return gPredefined.size[i].load(std::memory_order_relaxed);
  return -1;
}

}  // namespace

std::int64_t elementBytes(int count, MPI_Datatype datatype) noexcept {
  if (datatype == MPI_DATATYPE_NULL || count < 0) return -1;
  int size = predefinedSize(datatype);
  if (size < 0 && (PMPI_Type_size(datatype, &size) != MPI_SUCCESS || size == MPI_UNDEFINED || size < 0)) return -1;
  return static_cast<std::int64_t>(count) * size;
}

namespace {

/// The PollWatch a test reports its miss to, or nullptr: no runtime (not
/// outermost, inert), or the test completed something, which ends the
/// streak here.
PollWatch* missedBy(Runtime* rt, bool done) noexcept {
  if (!rt) return nullptr;
  if (done) {
    rt->polls().completed();
    return nullptr;
  }
  return &rt->polls();
}

}  // namespace

void notePoll(Runtime* rt, MpiFunction function, const MPI_Request* requests, int count, std::int64_t entryNs,
              bool done) noexcept {
  PollWatch* watch = missedBy(rt, done);
  if (!watch) return;
  PollWatch::Streak test;
  test.function = function;
  test.array = reinterpret_cast<std::uintptr_t>(requests);
  test.count = count;
  for (int i = 0; requests && i < count && test.handleCount < PollWatch::kMaxRequests; ++i)
    if (requests[i] != MPI_REQUEST_NULL) test.handles[test.handleCount++] = handleKey(requests[i]);
  watch->missed(test, rt->mpiCalls(), entryNs, callClockNow());
}

void noteProbePoll(Runtime* rt, MpiFunction function, int source, int tag, MPI_Comm comm, std::int64_t entryNs,
                   bool done) noexcept {
  PollWatch* watch = missedBy(rt, done);
  if (!watch) return;
  PollWatch::Streak test;
  test.function = function;
  test.peer = wirePeer(source);
  test.tag = wireTag(tag);
  test.comm = commKey(comm);
  watch->missed(test, rt->mpiCalls(), entryNs, callClockNow());
}

namespace {

/// What every operation's record holds: `kind` and `function`, its request,
/// the handle key `comm` of its communicator or window, `peer` and `tag` as
/// the wire carries them, `count` elements of `datatype` at `buffer`, and the
/// rank's MPI call count at issue. The caller sets flags and the rest.
OpInit baseOp(Runtime& rt, std::uint32_t kind, MpiFunction function, MPI_Request request, std::uint64_t comm,
              std::int32_t peer, std::int32_t tag, int count, MPI_Datatype datatype, const void* buffer) noexcept {
  OpInit op;
  op.kind = kind;
  op.function = static_cast<std::uint32_t>(function);
  op.request = handleKey(request);
  op.comm = comm;
  op.peer = peer;
  op.tag = tag;
  op.count = count;
  op.bytes = elementBytes(count, datatype);
  op.datatype = handleKey(datatype);
  op.buffer = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(buffer));
  op.issued = rt.mpiCalls();
  return op;
}

}  // namespace

void recordPointToPoint(Runtime& rt, const PointToPoint& p, MPI_Request request) noexcept {
  if (request == MPI_REQUEST_NULL) return;
  OpInit op = baseOp(rt, p.kind, p.function, request, commKey(p.comm), wirePeer(p.peer), wireTag(p.tag), p.count,
                     p.datatype, p.buffer);
  op.flags = (p.flags & MPIDBG_OP_PERSISTENT) ? p.flags : p.flags | MPIDBG_OP_ACTIVE;
  // Registers a communicator made by a call the runtime does not interpose,
  // so the operation's communicator shows up in the queues.
  cachedComm(rt.comms(), p.comm);
  // A receive not recorded will complete unseen: whatever it takes, the
  // ledger must not claim it was never received.
  if (!rt.ops().insert(op) && p.kind == MPIDBG_OP_RECV && op.peer != -2) gMessages.unattributed(op.comm, op.tag);
}

void recordOneSided(Runtime& rt, MpiFunction function, std::uint64_t winKey, int target, int count,
                    MPI_Datatype datatype, const void* buffer, MPI_Request request) noexcept {
  if (request == MPI_REQUEST_NULL) return;
  OpInit op = baseOp(rt, MPIDBG_OP_RMA, function, request, winKey, target, -1, count, datatype, buffer);
  op.flags = MPIDBG_OP_ACTIVE;
  rt.ops().insert(op);  // a full table: the wait on it says its requests are not known
}

namespace {

/// A collective operation's record as issued (nonblocking) or made
/// (persistent): what both kinds share; the caller sets flags and what was
/// counted.
OpInit collectiveOp(Runtime& rt, MpiFunction function, std::optional<ccs::proto::CollClass> collClass,
                    MPI_Comm comm, int root, int count, MPI_Datatype datatype, const void* buffer,
                    MPI_Request request) noexcept {
  OpInit op = baseOp(rt, MPIDBG_OP_COLLECTIVE, function, request, commKey(comm), root, -1, count, datatype, buffer);
  op.collClass = collClass ? static_cast<std::int32_t>(*collClass) : -1;
  return op;
}

}  // namespace

void recordCollective(Runtime& rt, MpiFunction function, std::optional<ccs::proto::CollClass> collClass,
                      const CallScope::Issued& issued, MPI_Comm comm, int root, int count, MPI_Datatype datatype,
                      const void* buffer, MPI_Request request) noexcept {
  if (!issued.comm) return;
  OpInit op = collectiveOp(rt, function, collClass, comm, root, count, datatype, buffer, request);
  op.flags = MPIDBG_OP_ACTIVE;
  op.collCall = issued.collCall;
  op.collSeq = issued.collSeq;
  op.commRecord = issued.comm;
  op.commGeneration = issued.generation;
  if ((request == MPI_REQUEST_NULL || !rt.ops().insert(op)) && collClass)
    issued.comm->exits[static_cast<std::size_t>(*collClass)].fetch_add(1, std::memory_order_release);
}

void recordPersistentCollective(Runtime& rt, MpiFunction function, ccs::proto::CollClass collClass, MPI_Comm comm,
                                int root, int count, MPI_Datatype datatype, const void* buffer,
                                MPI_Request request) noexcept {
  if (request == MPI_REQUEST_NULL) return;
  CommRecord* record = cachedComm(rt.comms(), comm);
  OpInit op = collectiveOp(rt, function, collClass, comm, root, count, datatype, buffer, request);
  op.flags = MPIDBG_OP_PERSISTENT;
  op.commRecord = record;
  op.commGeneration = record ? record->generation.load(std::memory_order_relaxed) : 0;
  rt.ops().insert(op);
}

void startPersistentCollective(Runtime& rt, OpRecord& op) noexcept {
  CommRecord* record = op.commRecord.load(std::memory_order_relaxed);
  const std::int32_t collClass = op.collClass.load(std::memory_order_relaxed);
  std::uint64_t collCall = 0;
  std::uint64_t collSeq = 0;
  if (record && collClass >= 0 && static_cast<std::size_t>(collClass) < ccs::proto::kCollClassCount &&
      record->state.load(std::memory_order_acquire) == CommRecord::Live &&
      record->generation.load(std::memory_order_relaxed) == op.commGeneration.load(std::memory_order_relaxed)) {
    collSeq = record->collSeq.fetch_add(1, std::memory_order_relaxed) + 1;
    collCall = record->entries[static_cast<std::size_t>(collClass)].fetch_add(1, std::memory_order_relaxed) + 1;
    rt.history().append(op.comm.load(std::memory_order_relaxed), collSeq,
                        static_cast<MpiFunction>(op.function.load(std::memory_order_relaxed)),
                        op.peer.load(std::memory_order_relaxed), op.count.load(std::memory_order_relaxed));
  } else {
    // Its exit must not be counted on a communicator it was not counted on.
    op.commRecord.store(nullptr, std::memory_order_relaxed);
  }
  rt.ops().startCollective(op, rt.mpiCalls(), collCall, collSeq);
}

namespace {

/// Completes `op` of `request` in `ops` and counts its message in the
/// rank's MessageLedger: a send to its peer, a receive from a named source
/// with a named tag; a receive whose sender the status alone would tell
/// (a wildcard) is unattributed. Only an operation still active counts (a
/// persistent request waited on while inactive completes at once, with no
/// message).
void settle(OpTable& ops, OpRecord& op, std::uint64_t request) noexcept {
  const std::uint32_t kind = op.kind.load(std::memory_order_relaxed);
  const std::uint32_t flags = op.flags.load(std::memory_order_relaxed);
  const std::uint64_t comm = op.comm.load(std::memory_order_relaxed);
  const std::int32_t peer = op.peer.load(std::memory_order_relaxed);
  const std::int32_t tag = op.tag.load(std::memory_order_relaxed);
  const auto function = static_cast<MpiFunction>(op.function.load(std::memory_order_relaxed));
  if (!ops.complete(op, request) || !(flags & MPIDBG_OP_ACTIVE)) return;
  if (kind == MPIDBG_OP_SEND) {
    gMessages.sent(comm, peer, tag, function, nullptr);
  } else if (kind == MPIDBG_OP_RECV && peer != -2) {
    if (peer >= 0 && tag >= 0) gMessages.received(comm, peer, tag, nullptr);
    else gMessages.unattributed(comm, tag);
  }
}

}  // namespace

WaitedOps::WaitedOps(Runtime* rt, MPI_Request* requests, int count) noexcept : rt_(rt), requests_(requests) {
  if (!rt_ || !requests_ || count <= 0) {
    rt_ = nullptr;
    return;
  }
  if (count <= kInline) {
    entries_ = inline_;
  } else {
    try {
      // One growing buffer per thread: nested waits are never tracked (only
      // the outermost call is), so one WaitedOps per thread uses it at a time.
      thread_local std::vector<Entry> spill;
      if (spill.size() < static_cast<std::size_t>(count)) spill.resize(static_cast<std::size_t>(count));
      entries_ = spill.data();
    } catch (...) {
      rt_ = nullptr;
      return;
    }
  }
  count_ = count;
  OpTable& ops = rt_->ops();
  for (int i = 0; i < count_; ++i) {
    Entry& e = entries_[i];
    e.handle = handleKey(requests_[i]);
    e.op = requests_[i] == MPI_REQUEST_NULL ? nullptr : ops.find(e.handle);
    e.done = false;
    if (e.op) OpTable::setWaited(*e.op, true);
  }
}

void WaitedOps::completed(int index) noexcept {
  if (!rt_ || index < 0 || index >= count_) return;
  Entry& e = entries_[index];
  if (!e.op || e.done) return;
  settle(rt_->ops(), *e.op, e.handle);
  e.done = true;
}

void WaitedOps::completedAll() noexcept {
  for (int i = 0; i < count_; ++i) completed(i);
}

WaitedOps::~WaitedOps() {
  if (!rt_) return;
  for (int i = 0; i < count_; ++i) {
    Entry& e = entries_[i];
    if (!e.op || e.done) continue;
    if (requests_[i] == MPI_REQUEST_NULL) {
      settle(rt_->ops(), *e.op, e.handle);  // freed by MPI: it completed
    } else if (e.op->request.load(std::memory_order_relaxed) == e.handle) {
      OpTable::setWaited(*e.op, false);
    }
  }
}

}  // namespace mpidbg::rt
