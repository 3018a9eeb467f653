#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "CommTable.hpp"
#include "ccs/proto/QueueProtocol.hpp"
#include "mpidbg/StateLayout.h"

namespace mpidbg::rt {

/// One pending nonblocking operation (StateLayout.h type "op"): a request the
/// rank issued (MPI_Isend, MPI_Irecv, MPI_Ibarrier, ...) or made persistent
/// (MPI_Send_init, ...) and has not completed or freed. Standard-layout
/// record of atomics, read without locks by the helper thread and from
/// outside the process.
struct OpRecord {
  std::atomic<std::uint32_t> state{MPIDBG_SLOT_EMPTY};  ///< enum mpidbg_slot_state
  /// Seqlock over every field but state and flags: odd while the slot is
  /// being filled or emptied ("op.version").
  std::atomic<std::uint32_t> version{0};
  std::atomic<std::uint32_t> kind{0};       ///< enum mpidbg_op_kind
  std::atomic<std::uint32_t> function{0};   ///< MpiFunction
  std::atomic<std::uint32_t> flags{0};      ///< enum mpidbg_op_flags bits; changed alone, atomically
  std::atomic<std::int32_t> collClass{-1};  ///< mqs_comm_class; -1 point to point
  std::atomic<std::uint64_t> request{0};    ///< MPI_Request handle value
  std::atomic<std::uint64_t> comm{0};       ///< communicator handle value
  std::atomic<std::int32_t> peer{-1};       ///< dest/source/root; -1 any/none, -2 MPI_PROC_NULL
  std::atomic<std::int32_t> tag{-1};        ///< -1 any tag / none
  std::atomic<std::int64_t> count{-1};      ///< elements; -1 unknown
  std::atomic<std::int64_t> bytes{-1};      ///< count * datatype size; -1 unknown
  std::atomic<std::uint64_t> datatype{0};   ///< MPI_Datatype handle value
  std::atomic<std::uint64_t> buffer{0};     ///< buffer address
  std::atomic<std::uint64_t> collCall{0};   ///< per-class call number of a collective
  std::atomic<std::uint64_t> collSeq{0};    ///< the communicator's collSeq of this call
  /// The rank's intercepted-call count when the operation was issued, or
  /// (persistent requests) last started.
  std::atomic<std::uint64_t> issued{0};
  // ---- runtime-private (not in the layout table) ----
  /// The communicator record whose exit counter a collective bumps when it
  /// completes, valid while its generation is still commGeneration.
  std::atomic<CommRecord*> commRecord{nullptr};
  std::atomic<std::uint32_t> commGeneration{0};
};

/// What an operation is when it is issued (OpTable::insert).
struct OpInit {
  std::uint32_t kind = MPIDBG_OP_SEND;  ///< enum mpidbg_op_kind
  std::uint32_t function = 0;           ///< MpiFunction
  std::uint32_t flags = 0;              ///< enum mpidbg_op_flags
  std::uint64_t request = 0;
  std::uint64_t comm = 0;
  std::int32_t peer = -1;
  std::int32_t tag = -1;
  std::int64_t count = -1;
  std::int64_t bytes = -1;
  std::uint64_t datatype = 0;
  std::uint64_t buffer = 0;
  std::int32_t collClass = -1;
  std::uint64_t collCall = 0;
  std::uint64_t collSeq = 0;
  std::uint64_t issued = 0;
  CommRecord* commRecord = nullptr;  ///< collectives: where completion counts the exit
  std::uint32_t commGeneration = 0;
};

/// The writers' lock of an OpTable: test-and-test-and-set, for sections of a
/// few dozen instructions that never block (a pthread mutex would double the
/// cost of recording a request). Waiters spin briefly, then yield, then nap
/// (a holder may be held by the freeze signal for a long time).
class OpTableLock {
 public:
  void lock() noexcept {
    while (locked_.exchange(true, std::memory_order_acquire)) wait();
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  void wait() noexcept;
  std::atomic<bool> locked_{false};
};

/// The pending operations of one rank: a fixed-capacity open-addressing table
/// keyed by request handle (the root's "ops" array). Lookups are lock-free;
/// inserts and removals take a small lock (uncontended in practice; never
/// taken by the helper thread, so a rank frozen while holding it still
/// answers). Freed slots become tombstones and are recycled.
class OpTable {
 public:
  /// Operations a rank can have pending at once; later ones are not tracked
  /// (counted in the overflow counter).
  static constexpr std::size_t kCapacity = 4096;

  /// Empty. Operations not recorded because the table was full are counted
  /// in the exported root.op_overflow (stateRoot().opOverflow). constexpr,
  /// so a static table is laid out at link time and its pages cost memory
  /// only once used.
  constexpr OpTable() noexcept = default;
  OpTable(const OpTable&) = delete;
  OpTable& operator=(const OpTable&) = delete;

  /// Records `op` (replacing a stale live record with the same handle: MPI
  /// reuses handle values of requests completed behind the runtime's back).
  /// nullptr when the table is full.
  OpRecord* insert(const OpInit& op) noexcept;

  /// The live record of request handle `request`, or nullptr. Lock-free.
  OpRecord* find(std::uint64_t request) noexcept;

  /// A persistent request was started (MPI_Start*): ACTIVE set, `issued`
  /// updated.
  void start(OpRecord& op, std::uint64_t issued) noexcept;

  /// A persistent collective was started (MPI_Start*), counted as call
  /// `collCall` of its class and `collSeq` on its communicator: those,
  /// `issued`, then ACTIVE set.
  void startCollective(OpRecord& op, std::uint64_t issued, std::uint64_t collCall, std::uint64_t collSeq) noexcept;

  /// Sets or clears WAITED (the rank is inside an MPI_Wait*/Test* naming it).
  static void setWaited(OpRecord& op, bool waited) noexcept {
    const std::uint32_t flags = op.flags.load(std::memory_order_relaxed);
    setFlags(op, waited ? flags | MPIDBG_OP_WAITED : flags & ~static_cast<std::uint32_t>(MPIDBG_OP_WAITED));
  }

  /// The operation of `request` completed (a Wait/Test reported it): a
  /// collective counts its exit on its communicator; a persistent request
  /// becomes inactive; any other is removed. No-op unless `op` still holds
  /// `request`; true when it was not a no-op.
  bool complete(OpRecord& op, std::uint64_t request) noexcept;

  /// Forgets the operation of `request` (MPI_Request_free) without counting
  /// a completion. No-op unless `op` still holds `request`.
  void remove(OpRecord& op, std::uint64_t request) noexcept;

  /// True when nothing is recorded: Wait/Test wrappers then skip all work.
  bool empty() const noexcept { return live_.load(std::memory_order_relaxed) == 0; }

  /// A consistent copy of every live operation, in issue order (helper
  /// thread; allocates).
  std::vector<ccs::proto::PendingOp> snapshot() const;

  /// The slot array (kCapacity records): exported as root.ops.
  const OpRecord* slots() const noexcept { return slots_.data(); }

 private:
  /// Stores an operation's flags. A plain store, not a read-modify-write:
  /// MPI forbids two threads to use one request at once, so only the thread
  /// using it writes its flags (the helper thread only reads them).
  static void setFlags(OpRecord& op, std::uint32_t flags) noexcept {
    op.flags.store(flags, std::memory_order_release);
  }

  static std::size_t home(std::uint64_t request) noexcept;
  /// Empties `op` and shortens probe chains. Caller holds writers_.
  void removeLocked(OpRecord& op) noexcept;

  std::array<OpRecord, kCapacity> slots_{};
  /// Live records; changed only under writers_ (plain load + store).
  std::atomic<std::uint32_t> live_{0};
  OpTableLock writers_;
};

}  // namespace mpidbg::rt
