#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mpidbg::rt {

/// The MPI functions the runtime interposes. The first 14 follow mqs_comm_class
/// order (../shared/protocols/mqs.md, "The collective extension"), so
/// `static_cast<int>(f) - 1` is the collective class of a collective.
enum class MpiFunction : std::uint8_t {
  None,
  Barrier, Bcast, Allgather, Allgatherv, Allreduce, Alltoall, Alltoallv,
  ReduceScatter, Reduce, Gather, Gatherv, Scan, Scatter, Scatterv,
  Send, Ssend, Bsend, Rsend, Recv, Sendrecv, SendrecvReplace, Probe,
  Wait, Waitall, Waitany, Waitsome,
  CommDup, CommSplit, CommCreate, CommFree,
  Finalize, Abort,
  Count_
};

/// "MPI_Barrier", "MPI_Recv", ...; empty for None or out-of-range values.
std::string_view functionName(MpiFunction f) noexcept;

/// Which argument MpiCallRecord::peer is.
enum class PeerRole : std::uint8_t { None, Source, Dest, Root };

/// "source", "dest", "root", or empty for None (the wire spelling of
/// ccs/RankProtocol.hpp MpiCall::peerRole).
std::string_view peerRoleName(PeerRole r) noexcept;

/// A plain copy of the call a rank is inside: what the helper thread reads.
struct MpiCallRecord {
  MpiFunction function = MpiFunction::None;
  PeerRole peerRole = PeerRole::None;
  bool hasTag = false;
  std::int32_t peer = 0;       ///< rank in `comm`; -1 any source, -2 MPI_PROC_NULL
  std::int32_t tag = 0;        ///< -1 any tag
  std::uint64_t comm = 0;      ///< communicator handle value; 0 = none (MPI_Wait*)
  std::uint64_t collCall = 0;  ///< 1-based collective call number; 0 otherwise
  std::int64_t entryNs = 0;    ///< CLOCK_MONOTONIC at entry, nanoseconds
  std::uint64_t seq = 0;       ///< the rank's intercepted-call count at entry
};

/// The one "current call" record of a rank, written by the MPI thread that
/// claimed it and read concurrently by the helper thread. A seqlock over
/// relaxed atomics: writers never block and never allocate; readers retry
/// while a write is in progress. With several application threads inside MPI
/// at once, only the first one to enter is recorded (the others fail begin()).
class CurrentCall {
 public:
  /// Claims the record for the calling thread and publishes `call`. False
  /// (nothing written) when another thread holds it.
  bool begin(const MpiCallRecord& call) noexcept {
    bool expected = false;
    if (!owned_.compare_exchange_strong(expected, true, std::memory_order_acquire,
                                        std::memory_order_relaxed))
      return false;
    write(call);
    return true;
  }

  /// Clears the record (function None: readers see no call; the other
  /// fields are left stale) and releases it; only after a begin() that
  /// returned true.
  void end() noexcept {
    const std::uint32_t s = seq_.load(std::memory_order_relaxed);
    seq_.store(s + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    function_.store(0, std::memory_order_relaxed);
    seq_.store(s + 2, std::memory_order_release);
    owned_.store(false, std::memory_order_release);
  }

  /// A consistent copy of the record, or std::nullopt when no call is
  /// recorded (or the writer kept it changing for every retry).
  std::optional<MpiCallRecord> read() const noexcept;

 private:
  void write(const MpiCallRecord& c) noexcept {
    const std::uint32_t s = seq_.load(std::memory_order_relaxed);
    seq_.store(s + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    function_.store(static_cast<std::uint8_t>(c.function), std::memory_order_relaxed);
    peerRole_.store(static_cast<std::uint8_t>(c.peerRole), std::memory_order_relaxed);
    hasTag_.store(c.hasTag, std::memory_order_relaxed);
    peer_.store(c.peer, std::memory_order_relaxed);
    tag_.store(c.tag, std::memory_order_relaxed);
    comm_.store(c.comm, std::memory_order_relaxed);
    collCall_.store(c.collCall, std::memory_order_relaxed);
    entryNs_.store(c.entryNs, std::memory_order_relaxed);
    callSeq_.store(c.seq, std::memory_order_relaxed);
    seq_.store(s + 2, std::memory_order_release);
  }

  std::atomic<bool> owned_{false};
  std::atomic<std::uint32_t> seq_{0};
  std::atomic<std::uint8_t> function_{0};
  std::atomic<std::uint8_t> peerRole_{0};
  std::atomic<bool> hasTag_{false};
  std::atomic<std::int32_t> peer_{0};
  std::atomic<std::int32_t> tag_{0};
  std::atomic<std::uint64_t> comm_{0};
  std::atomic<std::uint64_t> collCall_{0};
  std::atomic<std::int64_t> entryNs_{0};
  std::atomic<std::uint64_t> callSeq_{0};
};

}  // namespace mpidbg::rt
