// The pending-operation table (see OpTable.hpp).
#include "OpTable.hpp"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <mutex>  // std::lock_guard
#include <utility>

#include "CurrentCall.hpp"
#include "ExportedState.hpp"

namespace mpidbg::rt {

namespace {

constexpr std::size_t kMask = OpTable::kCapacity - 1;
static_assert((OpTable::kCapacity & kMask) == 0, "capacity must be a power of two");
/// Attempts before a reader skips a record that keeps changing.
constexpr int kOpReadAttempts = 16;

void beginWrite(OpRecord& r) noexcept {
  r.version.store(r.version.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
}

void endWrite(OpRecord& r) noexcept {
  r.version.store(r.version.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

/// Reads `r` into `out` (and its issue count); false if it is not live or
/// changed under us.
bool readOp(const OpRecord& r, ccs::proto::PendingOp& out, std::uint64_t& issued) {
  const std::uint32_t before = r.version.load(std::memory_order_acquire);
  if ((before & 1u) || r.state.load(std::memory_order_relaxed) != MPIDBG_SLOT_LIVE) return false;
  const std::uint32_t kind = r.kind.load(std::memory_order_relaxed);
  const std::uint32_t function = r.function.load(std::memory_order_relaxed);
  const std::uint32_t flags = r.flags.load(std::memory_order_relaxed);
  out.request = r.request.load(std::memory_order_relaxed);
  out.comm = r.comm.load(std::memory_order_relaxed);
  out.peer = r.peer.load(std::memory_order_relaxed);
  out.tag = r.tag.load(std::memory_order_relaxed);
  out.count = r.count.load(std::memory_order_relaxed);
  out.bytes = r.bytes.load(std::memory_order_relaxed);
  out.buffer = r.buffer.load(std::memory_order_relaxed);
  out.datatype = r.datatype.load(std::memory_order_relaxed);
  out.collClass = r.collClass.load(std::memory_order_relaxed);
  out.collCall = r.collCall.load(std::memory_order_relaxed);
  out.collSeq = r.collSeq.load(std::memory_order_relaxed);
  issued = r.issued.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (r.version.load(std::memory_order_relaxed) != before ||
      r.state.load(std::memory_order_relaxed) != MPIDBG_SLOT_LIVE)
    return false;
  out.kind = kind == MPIDBG_OP_RECV         ? ccs::proto::PendingOp::Kind::Recv
             : kind == MPIDBG_OP_COLLECTIVE ? ccs::proto::PendingOp::Kind::Collective
             : kind == MPIDBG_OP_RMA        ? ccs::proto::PendingOp::Kind::Rma
                                            : ccs::proto::PendingOp::Kind::Send;
  out.function = std::string(functionName(static_cast<MpiFunction>(function)));
  out.blocking = false;
  out.persistent = flags & MPIDBG_OP_PERSISTENT;
  out.active = flags & MPIDBG_OP_ACTIVE;
  out.waited = flags & MPIDBG_OP_WAITED;
  out.synchronous = flags & MPIDBG_OP_SYNCHRONOUS;
  return true;
}

/// A collective operation completed (or was replaced unseen): counts the
/// exit on its communicator if that still is the one it was issued on.
void countExit(const OpRecord& op) noexcept {
  if (op.kind.load(std::memory_order_relaxed) != MPIDBG_OP_COLLECTIVE ||
      !(op.flags.load(std::memory_order_relaxed) & MPIDBG_OP_ACTIVE))
    return;
  CommRecord* comm = op.commRecord.load(std::memory_order_relaxed);
  const std::int32_t collClass = op.collClass.load(std::memory_order_relaxed);
  if (comm && collClass >= 0 && static_cast<std::size_t>(collClass) < ccs::proto::kCollClassCount &&
      comm->state.load(std::memory_order_acquire) == CommRecord::Live &&
      comm->generation.load(std::memory_order_relaxed) == op.commGeneration.load(std::memory_order_relaxed))
    comm->exits[static_cast<std::size_t>(collClass)].fetch_add(1, std::memory_order_release);
}

}  // namespace

void OpTableLock::wait() noexcept {
  for (unsigned spins = 0; locked_.load(std::memory_order_relaxed); ++spins) {
    if (spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else if (spins < 1024) {
      sched_yield();
    } else {
      const timespec nap{0, 100000};
      nanosleep(&nap, nullptr);
    }
  }
}

std::size_t OpTable::home(std::uint64_t request) noexcept {
  return static_cast<std::size_t>((request * 0x9E3779B97F4A7C15ull) >> 52) & kMask;
}

OpRecord* OpTable::find(std::uint64_t request) noexcept {
  std::size_t i = home(request);
  for (std::size_t n = 0; n < kCapacity; ++n, i = (i + 1) & kMask) {
    OpRecord& r = slots_[i];
    const std::uint32_t st = r.state.load(std::memory_order_acquire);
    if (st == MPIDBG_SLOT_EMPTY) return nullptr;
    if (st == MPIDBG_SLOT_LIVE && r.request.load(std::memory_order_relaxed) == request) return &r;
  }
  return nullptr;
}

OpRecord* OpTable::insert(const OpInit& op) noexcept {
  std::lock_guard lock(writers_);
  OpRecord* target = nullptr;
  OpRecord* firstFree = nullptr;
  std::size_t i = home(op.request);
  for (std::size_t n = 0; n < kCapacity; ++n, i = (i + 1) & kMask) {
    OpRecord& r = slots_[i];
    const std::uint32_t st = r.state.load(std::memory_order_relaxed);
    if (st == MPIDBG_SLOT_LIVE && r.request.load(std::memory_order_relaxed) == op.request) {
      target = &r;  // stale: its completion went unseen
      countExit(r);
      break;
    }
    if (st == MPIDBG_SLOT_TOMBSTONE && !firstFree) firstFree = &r;
    if (st == MPIDBG_SLOT_EMPTY) {
      if (!firstFree) firstFree = &r;
      break;
    }
  }
  if (!target) {
    target = firstFree;
    if (!target) {
      stateRoot().opOverflow.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
    live_.store(live_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  OpRecord& r = *target;
  beginWrite(r);
  r.state.store(MPIDBG_SLOT_FILLING, std::memory_order_relaxed);
  r.kind.store(op.kind, std::memory_order_relaxed);
  r.function.store(op.function, std::memory_order_relaxed);
  r.flags.store(op.flags, std::memory_order_relaxed);
  r.collClass.store(op.collClass, std::memory_order_relaxed);
  r.request.store(op.request, std::memory_order_relaxed);
  r.comm.store(op.comm, std::memory_order_relaxed);
  r.peer.store(op.peer, std::memory_order_relaxed);
  r.tag.store(op.tag, std::memory_order_relaxed);
  r.count.store(op.count, std::memory_order_relaxed);
  r.bytes.store(op.bytes, std::memory_order_relaxed);
  r.datatype.store(op.datatype, std::memory_order_relaxed);
  r.buffer.store(op.buffer, std::memory_order_relaxed);
  r.collCall.store(op.collCall, std::memory_order_relaxed);
  r.collSeq.store(op.collSeq, std::memory_order_relaxed);
  r.issued.store(op.issued, std::memory_order_relaxed);
  r.commRecord.store(op.commRecord, std::memory_order_relaxed);
  r.commGeneration.store(op.commGeneration, std::memory_order_relaxed);
  endWrite(r);
  r.state.store(MPIDBG_SLOT_LIVE, std::memory_order_release);
  return &r;
}

void OpTable::start(OpRecord& op, std::uint64_t issued) noexcept {
  op.issued.store(issued, std::memory_order_relaxed);
  setFlags(op, op.flags.load(std::memory_order_relaxed) | MPIDBG_OP_ACTIVE);
}

void OpTable::startCollective(OpRecord& op, std::uint64_t issued, std::uint64_t collCall,
                              std::uint64_t collSeq) noexcept {
  beginWrite(op);
  op.collCall.store(collCall, std::memory_order_relaxed);
  op.collSeq.store(collSeq, std::memory_order_relaxed);
  op.issued.store(issued, std::memory_order_relaxed);
  endWrite(op);
  setFlags(op, op.flags.load(std::memory_order_relaxed) | MPIDBG_OP_ACTIVE);
}

bool OpTable::complete(OpRecord& op, std::uint64_t request) noexcept {
  if (op.state.load(std::memory_order_acquire) != MPIDBG_SLOT_LIVE ||
      op.request.load(std::memory_order_relaxed) != request)
    return false;
  countExit(op);
  const std::uint32_t flags = op.flags.load(std::memory_order_relaxed);
  if (flags & MPIDBG_OP_PERSISTENT) {
    setFlags(op, flags & ~static_cast<std::uint32_t>(MPIDBG_OP_ACTIVE | MPIDBG_OP_WAITED));
    return true;
  }
  std::lock_guard lock(writers_);
  if (op.state.load(std::memory_order_relaxed) != MPIDBG_SLOT_LIVE ||
      op.request.load(std::memory_order_relaxed) != request)
    return false;
  removeLocked(op);
  return true;
}

void OpTable::remove(OpRecord& op, std::uint64_t request) noexcept {
  std::lock_guard lock(writers_);
  if (op.state.load(std::memory_order_relaxed) == MPIDBG_SLOT_LIVE &&
      op.request.load(std::memory_order_relaxed) == request)
    removeLocked(op);
}

void OpTable::removeLocked(OpRecord& op) noexcept {
  beginWrite(op);
  op.state.store(MPIDBG_SLOT_TOMBSTONE, std::memory_order_release);
  endWrite(op);
  live_.store(live_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  // As in CommTable::remove: a run of tombstones followed by an empty
  // slot ends no probe chain, so it becomes empty again.
  std::size_t i = static_cast<std::size_t>(&op - slots_.data());
  if (slots_[(i + 1) & kMask].state.load(std::memory_order_relaxed) != MPIDBG_SLOT_EMPTY) return;
  for (std::size_t n = 0; n < kCapacity; ++n, i = (i - 1) & kMask) {
    if (slots_[i].state.load(std::memory_order_relaxed) != MPIDBG_SLOT_TOMBSTONE) break;
    slots_[i].state.store(MPIDBG_SLOT_EMPTY, std::memory_order_release);
  }
}

std::vector<ccs::proto::PendingOp> OpTable::snapshot() const {
  std::vector<ccs::proto::PendingOp> out;
  if (empty()) return out;
  std::vector<std::pair<std::uint64_t, std::size_t>> order;  // (issued, index in out)
  for (const OpRecord& r : slots_) {
    if (r.state.load(std::memory_order_acquire) != MPIDBG_SLOT_LIVE) continue;
    for (int attempt = 0; attempt < kOpReadAttempts; ++attempt) {
      ccs::proto::PendingOp op;
      std::uint64_t issued = 0;
      if (readOp(r, op, issued)) {
        order.emplace_back(issued, out.size());
        out.push_back(std::move(op));
        break;
      }
    }
  }
  // Issue order (MPI's non-overtaking rule makes it matter), not slot order.
  std::sort(order.begin(), order.end());
  std::vector<ccs::proto::PendingOp> sorted;
  sorted.reserve(out.size());
  for (const auto& [issued, index] : order) sorted.push_back(std::move(out[index]));
  return sorted;
}

}  // namespace mpidbg::rt
