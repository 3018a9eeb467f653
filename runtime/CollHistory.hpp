#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "CurrentCall.hpp"
#include "ExportedState.hpp"
#include "ccs/proto/QueueProtocol.hpp"

namespace mpidbg::rt {

/// One collective call in the history ring (StateLayout.h type "coll").
struct CollHistoryRecord {
  std::atomic<std::uint64_t> comm{0};      ///< communicator handle value
  std::atomic<std::uint64_t> collSeq{0};   ///< the communicator's collSeq of this call (1-based)
  std::atomic<std::uint32_t> function{0};  ///< MpiFunction
  std::atomic<std::int32_t> root{-1};      ///< -1 when unrooted
  std::atomic<std::int64_t> count{-1};     ///< elements; -1 when not one number
  /// Seqlock and position ("coll.stamp"): 0 while being written, then the
  /// record's index in the ring's history plus one (history_next at the time
  /// it was appended). A reader keeps a record only when the stamp it reads
  /// before and after the fields is the one it expects.
  std::atomic<std::uint64_t> stamp{0};
  /// Pads the record to 64 bytes: a power of two stride (shift, not
  /// multiply, on the append path). Not exported (the layout's "coll" size
  /// row gives the stride).
  std::uint64_t padding[3] = {};
};
static_assert(sizeof(CollHistoryRecord) == 64);

/// The rank's recent collective calls, oldest overwritten first: every
/// collective issue (blocking, nonblocking, communicator constructors)
/// appends one record. Lock-free; any MPI thread appends, the helper thread
/// (and readers outside the process) read.
class CollHistory {
 public:
  /// Records kept.
  static constexpr std::size_t kCapacity = 256;
  static_assert((kCapacity & (kCapacity - 1)) == 0, "the ring index is a mask");

  /// Records ever appended are counted in the exported root.history_next
  /// (stateRoot().historyNext, PC-relative): the newest is at
  /// (next - 1) % kCapacity.
  CollHistory() noexcept = default;
  CollHistory(const CollHistory&) = delete;
  CollHistory& operator=(const CollHistory&) = delete;

  /// Appends one call: `collSeq` its 1-based number on `comm`, `root` -1
  /// when unrooted, `count` -1 when not one number. Never blocks.
  [[gnu::always_inline]] void append(std::uint64_t comm, std::uint64_t collSeq, MpiFunction function,
                                     std::int32_t root, std::int64_t count) noexcept {
    const std::uint64_t index = stateRoot().historyNext.fetch_add(1, std::memory_order_relaxed);
    CollHistoryRecord& r = records_[index & (kCapacity - 1)];
    r.stamp.store(0, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    r.comm.store(comm, std::memory_order_relaxed);
    r.collSeq.store(collSeq, std::memory_order_relaxed);
    r.function.store(static_cast<std::uint32_t>(function), std::memory_order_relaxed);
    r.root.store(root, std::memory_order_relaxed);
    r.count.store(count, std::memory_order_relaxed);
    r.stamp.store(index + 1, std::memory_order_release);
  }

  /// The records still in the ring, oldest first; records being rewritten
  /// while read are left out (helper thread; allocates).
  std::vector<ccs::proto::CollRecord> snapshot() const;

  /// The ring (kCapacity records): exported as root.history.
  const CollHistoryRecord* records() const noexcept { return records_.data(); }

 private:
  std::array<CollHistoryRecord, kCapacity> records_{};
};

}  // namespace mpidbg::rt
