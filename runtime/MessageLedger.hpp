#pragma once

// Counts of the messages a rank sent and received, per communicator, peer
// and tag (issue 23 item 6): with the counts of every rank, the hang verdict
// names a message that was sent and not received next to the receive that
// waits for something else ("a tag mismatch?"). What is counted where is
// ccs::proto::MessageCount's contract.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "CurrentCall.hpp"
#include "ccs/proto/QueueProtocol.hpp"

namespace mpidbg::rt {

/// A fixed open-addressed table of counters keyed by (communicator handle
/// value, peer, tag). Lock-free: a slot is claimed by compare-and-swap on
/// its envelope word and never given back, counters are relaxed atomic
/// adds, so any thread may count while the helper thread reads. When every
/// slot is taken, further keys go uncounted and the table says it is
/// partial (the verdict then compares nothing of this rank's).
class MessageLedger {
 public:
  /// Slots (a power of two; 40 bytes each).
  static constexpr std::size_t kSlots = ccs::proto::kMaxMessageCounts;

  /// One key's counters.
  struct Slot {
    /// 0 free, kClaimed while its claimer writes `comm`, else the key's
    /// envelope with kReady set (published with release).
    std::atomic<std::uint64_t> envelope{0};
    std::atomic<std::uint64_t> comm{0};
    std::atomic<std::uint64_t> sent{0};
    std::atomic<std::uint64_t> received{0};
    std::atomic<std::uint32_t> function{0};  ///< MpiFunction of the first send
  };

  /// A thread's last key and its slot (ThreadCalls::lastMessage), in front
  /// of the hash probe: a loop that sends to or receives from one peer with
  /// one tag counts with three comparisons. `peer` -1 (its initial value)
  /// matches no message.
  struct Cache {
    std::uint64_t comm;
    std::int32_t peer;
    std::int32_t tag;
    Slot* slot;
  };

  /// One message sent by `function` to rank `dest` of communicator `comm`
  /// (handle value) with `tag`; `cache` (may be null) then names its slot.
  /// MPI_PROC_NULL (a negative dest) and a negative tag are not messages:
  /// ignored.
  void sent(std::uint64_t comm, int dest, int tag, MpiFunction function, Cache* cache) noexcept {
    if ((dest | tag) < 0) [[unlikely]]
      return;
    remember(cache, comm, dest, tag, countSlow(comm, envelope(dest, tag), Side::Sent, function));
  }

  /// One message received from rank `source` of `comm` with `tag`, as
  /// matched; `cache` as for sent(). Negative values (MPI_PROC_NULL, a
  /// wildcard) are ignored.
  void received(std::uint64_t comm, int source, int tag, Cache* cache) noexcept {
    if ((source | tag) < 0) [[unlikely]]
      return;
    remember(cache, comm, source, tag, countSlow(comm, envelope(source, tag), Side::Received, MpiFunction::None));
  }

  /// The fast paths' counts: true when the message sent to `dest` (received
  /// from `source`) with `tag` on `comm` was counted through `cache` (its key
  /// is the thread's last one) or in the key's home slot (a thread that
  /// alternates between peers, as a halo exchange does), or is no message (a
  /// negative peer or tag); false, with nothing counted, otherwise: the slow
  /// path then counts it with sent() or received(). Calls nothing out of line.
  [[gnu::always_inline]] bool sentCached(const Cache& cache, std::uint64_t comm, int dest, int tag) noexcept {
    return countCached(cache, comm, dest, tag, Side::Sent);
  }
  [[gnu::always_inline]] bool receivedCached(const Cache& cache, std::uint64_t comm, int source, int tag) noexcept {
    return countCached(cache, comm, source, tag, Side::Received);
  }

  /// One receive on `comm` whose sender will not be known (a nonblocking
  /// wildcard receive completed, a receive request freed or not recorded),
  /// asking for `tag` (negative: MPI_ANY_TAG).
  void unattributed(std::uint64_t comm, int tag) noexcept;

  /// The counts, one per key (slots a race claimed twice for one key are
  /// summed), in no particular order; `partial` set when keys went uncounted.
  std::vector<ccs::proto::MessageCount> snapshot(bool* partial) const;

 private:
  enum class Side : std::uint8_t { Sent, Received };

  static constexpr std::uint64_t kReady = 1ull << 63;
  static constexpr std::uint64_t kClaimed = 1ull << 62;

  /// Peer and tag as one word with kReady set, never 0 nor kClaimed: bits
  /// 0-31 the tag's 32-bit pattern, bits 32-61 peer + 1 (peers up to
  /// 2^30 - 2, -1 for an unattributed receive).
  static constexpr std::uint64_t envelope(int peer, int tag) noexcept {
    return kReady | ((static_cast<std::uint64_t>(static_cast<std::uint32_t>(peer + 1)) & 0x3fffffffu) << 32) |
           static_cast<std::uint32_t>(tag);
  }
  static constexpr std::size_t home(std::uint64_t comm, std::uint64_t env) noexcept {
    static_assert(kSlots == 4096, "home() takes the top 12 bits");
    return static_cast<std::size_t>(((comm + env) * 0x9e3779b97f4a7c15ull) >> 52);
  }

  [[gnu::always_inline]] bool countCached(const Cache& cache, std::uint64_t comm, int peer, int tag,
                                          Side side) noexcept {
    if ((peer | tag) < 0) return true;
    Slot* slot = cache.slot;
    if (cache.comm != comm || cache.peer != peer || cache.tag != tag) [[unlikely]] {
      const std::uint64_t env = envelope(peer, tag);
      slot = &slots_[home(comm, env)];
      if (slot->envelope.load(std::memory_order_acquire) != env || slot->comm.load(std::memory_order_relaxed) != comm)
        return false;
    }
    (side == Side::Sent ? slot->sent : slot->received).fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  static void remember(Cache* cache, std::uint64_t comm, int peer, int tag, Slot* slot) noexcept {
    if (cache && slot) *cache = Cache{comm, peer, tag, slot};
  }

  /// Probes from the key's home slot, claiming a free one for a new key, and
  /// counts there: the slot, or null when the table is full.
  Slot* countSlow(std::uint64_t comm, std::uint64_t env, Side side, MpiFunction function) noexcept;

  Slot slots_[kSlots];
  std::atomic<bool> partial_{false};
};

/// The process's ledger (static, zero-initialized: counting needs no
/// runtime, and the fast paths address it PC-relative). Only outermost
/// calls count (ThreadCalls::depth 0). Defined in MessageLedger.cpp.
extern MessageLedger gMessages __attribute__((visibility("hidden")));

}  // namespace mpidbg::rt
