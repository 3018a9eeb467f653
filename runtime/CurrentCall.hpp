#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>

#include "mpidbg/MpiFunctions.hpp"

namespace mpidbg::rt {

/// The MPI functions the runtime interposes: None, then one enumerator per
/// row of the function table (common/include/mpidbg/MpiFunctions.hpp), in
/// its order. The first 14 follow mqs_comm_class order, so
/// `static_cast<int>(f) - 1` is the collective class of a blocking
/// collective. Each is a breakpoint target (ccs/condition/Condition.cpp, from the same
/// table). Two bytes: the table has more than 255 rows. Wherever a value
/// leaves the process it is 4 bytes wide (the exported "call.function",
/// "op.function" and "coll.function", the name table's function_count).
enum class MpiFunction : std::uint16_t {
  None,
#define MPIDBG_ENUMERATOR(name, text, collClass, fields, role, group) name,
  MPIDBG_MPI_FUNCTIONS(MPIDBG_ENUMERATOR)
#undef MPIDBG_ENUMERATOR
  Count_
};

/// The collective class (mqs_comm_class order, 0..13) of a blocking
/// collective `f` (Barrier..Scatterv).
constexpr std::size_t collClassOf(MpiFunction f) noexcept {
  return static_cast<std::size_t>(f) - static_cast<std::size_t>(MpiFunction::Barrier);
}

/// Number of MpiFunction values (None included): rows of the exported name table.
inline constexpr std::size_t kFunctionCount = static_cast<std::size_t>(MpiFunction::Count_);
/// Bytes of one row of the exported name table, NUL included.
inline constexpr std::size_t kFunctionNameLen = 40;

/// "MPI_Barrier", "MPI_Recv", ...; empty for None or out-of-range values.
std::string_view functionName(MpiFunction f) noexcept;

/// The exported function-name table (StateLayout.h root.function_names):
/// kFunctionCount rows of kFunctionNameLen bytes, row i the NUL-terminated
/// functionName(i) ("" for None). Static storage.
const char* functionNameTable() noexcept;

/// Which argument MpiCallRecord::peer is.
/// Target: the rank of a window's group a one-sided call names (MPI_Put,
/// MPI_Get, ...), or the locked or flushed one (MPI_Win_lock, _unlock,
/// _flush, _flush_local); a breakpoint condition's `target`.
enum class PeerRole : std::uint8_t { None, Source, Dest, Root, Target };

/// "source", "dest", "root", "target", or empty for None (the wire spelling of
/// ccs/proto/RankProtocol.hpp MpiCall::peerRole).
std::string_view peerRoleName(PeerRole r) noexcept;

/// Where the request array of the MPI_Wait*/Test* call a rank is inside
/// lives (address in this process; count 0 when not in one), and the record
/// version it was read at (CurrentCall::unchangedSince).
struct WaitedRequests {
  std::uint64_t address = 0;
  std::int32_t count = 0;
  std::uint32_t version = 0;
};

/// A plain copy of the call a rank is inside: what the helper thread reads.
struct MpiCallRecord {
  MpiFunction function = MpiFunction::None;
  PeerRole peerRole = PeerRole::None;
  bool hasTag = false;
  std::int32_t peer = 0;       ///< rank in `comm`; -1 any source, -2 MPI_PROC_NULL
  std::int32_t tag = 0;        ///< -1 any tag
  std::uint64_t comm = 0;      ///< communicator handle value; 0 = none (MPI_Wait*)
  std::uint64_t collCall = 0;  ///< 1-based collective call number; 0 otherwise
  /// Entry time (or when the call went on after a stop at its safe point)
  /// in call-clock ticks (CallClock.hpp: callClockToNs converts to
  /// CLOCK_MONOTONIC nanoseconds).
  std::int64_t entryNs = 0;
  std::uint64_t seq = 0;       ///< the rank's intercepted-call count at entry
};

/// The one "current call" record of a rank, written by the MPI thread that
/// claimed it and read concurrently by the helper thread, and from outside
/// the process through the exported layout (StateLayout.h type "call"; the
/// fields are fixed-width so the layout table can describe them). A seqlock
/// over relaxed atomics: writers never block and never allocate; readers
/// retry while a write is in progress. With several application threads
/// inside MPI at once, only the first one to enter is recorded (the others
/// fail begin()).
class CurrentCall {
 public:
  /// The fields of one published call (the fast path's view of
  /// MpiCallRecord: already in wire convention, see MpiCallRecord).
  struct Fields {
    MpiFunction function;
    PeerRole peerRole;
    bool hasTag;
    std::int32_t peer;
    std::int32_t tag;
    std::uint64_t comm;
    std::uint64_t collCall;
    std::int64_t entryNs;  ///< call-clock ticks (CallClock.hpp)
    std::uint64_t seq;
  };

  /// Claims the record for the calling thread and publishes `f`. False
  /// (nothing written) when another thread holds it.
  [[gnu::always_inline]] bool begin(const Fields& f) noexcept {
    if (!claim()) return false;
    write<false>(f, 0, 0);
    return true;
  }

  /// begin() for a call on an array of requests (MPI_Wait*, MPI_Test*): also
  /// publishes the array's address and length in the same write. The owner
  /// must call clearRequests() before end().
  [[gnu::always_inline]] bool beginWaiting(const Fields& f, const void* requests, std::int32_t count) noexcept {
    if (!claim()) return false;
    write<true>(f, reinterpret_cast<std::uintptr_t>(requests), count);
    return true;
  }

  /// Declares that at most one thread is inside MPI at any time (the
  /// provided thread level is below MPI_THREAD_MULTIPLE): begin() then
  /// always succeeds without a compare-and-swap. Call before the runtime is
  /// announced. A program that breaks its thread level may then see torn
  /// call records, nothing worse.
  void setExclusive(bool exclusive) noexcept { exclusive_ = exclusive; }

  /// True when begin() needs no compare-and-swap (setExclusive(true)).
  bool exclusive() const noexcept { return exclusive_; }
  /// begin() for an exclusive record (exclusive() is true): publishes `f`
  /// with no claim. The fast path of the point-to-point wrappers.
  [[gnu::always_inline]] void publishExclusive(const Fields& f) noexcept { write<false>(f, 0, 0); }
  /// begin() from a plain record (tests, slow paths).
  bool begin(const MpiCallRecord& call) noexcept { return begin(fieldsOf(call)); }

  /// Withdraws the request array published by beginWaiting (readers see
  /// none again); only by the owner, before end().
  void clearRequests() noexcept {
    bumpVersion();
    requestCount_.store(0, std::memory_order_relaxed);
    requests_.store(0, std::memory_order_relaxed);
    bumpVersion();
  }

  /// Sets the entry time to `entryNs` (the call resumed after a stop at its
  /// safe point); only by the owner.
  void restamp(std::int64_t entryNs) noexcept {
    bumpVersion();
    entryNs_.store(entryNs, std::memory_order_relaxed);
    bumpVersion();
  }

  /// Clears the record (function None: readers see no call; the other
  /// fields are left stale) and releases it; only after a begin() that
  /// returned true. Only `function` (with `peer_role`, the same word)
  /// changes and the version does not: a reader that sees the old function
  /// sees the old call whole, one that sees 0 sees none.
  [[gnu::always_inline]] void end() noexcept {
    kind_.store(0, std::memory_order_release);
    owned_.store(false, std::memory_order_release);
  }
  /// end() for a call publishExclusive() published: an exclusive record is
  /// never claimed, so only `function` changes.
  [[gnu::always_inline]] void endExclusive() noexcept { kind_.store(0, std::memory_order_release); }

  /// A consistent copy of the record, or std::nullopt when no call is
  /// recorded (or the writer kept it changing for every retry). With
  /// `requests`, also the request array of the same version.
  std::optional<MpiCallRecord> read(WaitedRequests* requests = nullptr) const noexcept;

  /// True while no writer has touched the record since a read() that
  /// reported `version` (WaitedRequests::version).
  bool unchangedSince(std::uint32_t version) const noexcept {
    std::atomic_thread_fence(std::memory_order_acquire);
    return seq_.load(std::memory_order_relaxed) == version;
  }

 private:
  friend struct LayoutAccess;  // ExportedState.cpp: offsets of the fields

  [[gnu::always_inline]] bool claim() noexcept {
    if (exclusive_) return true;
    bool expected = false;
    return owned_.compare_exchange_strong(expected, true, std::memory_order_acquire, std::memory_order_relaxed);
  }

  static Fields fieldsOf(const MpiCallRecord& c) noexcept {
    return {c.function, c.peerRole, c.hasTag, c.peer, c.tag, c.comm, c.collCall, c.entryNs, c.seq};
  }

  /// Adds one to the seqlock word, ordered after the stores before it and
  /// before the stores after it; only the thread that owns the record
  /// writes the word. On x86-64 one memory-destination add (no lock prefix:
  /// the writer is alone; its "memory" clobber is the compiler barrier the
  /// release fences were, and the CPU keeps stores in order), elsewhere a
  /// relaxed load and a store between release fences.
  [[gnu::always_inline]] void bumpVersion() noexcept {
#if defined(__x86_64__)
    asm volatile("addl $1, %0" : "+m"(seq_) : : "memory");
#else
    std::atomic_thread_fence(std::memory_order_release);
    seq_.store(seq_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
#endif
  }

  /// The `kind_` word of `function` and `role`.
  static constexpr std::uint64_t kindOf(MpiFunction function, PeerRole role) noexcept {
    return static_cast<std::uint64_t>(function) | static_cast<std::uint64_t>(role) << 32;
  }

  template <bool kWithRequests>
  [[gnu::always_inline]] void write(const Fields& c, std::uint64_t requests, std::int32_t count) noexcept {
    bumpVersion();
    kind_.store(kindOf(c.function, c.peerRole), std::memory_order_relaxed);
    hasTag_.store(c.hasTag ? 1u : 0u, std::memory_order_relaxed);
    peer_.store(c.peer, std::memory_order_relaxed);
    tag_.store(c.tag, std::memory_order_relaxed);
    comm_.store(c.comm, std::memory_order_relaxed);
    collCall_.store(c.collCall, std::memory_order_relaxed);
    entryNs_.store(c.entryNs, std::memory_order_relaxed);
    callSeq_.store(c.seq, std::memory_order_relaxed);
    if constexpr (kWithRequests) {
      requests_.store(requests, std::memory_order_relaxed);
      requestCount_.store(count, std::memory_order_relaxed);
    }
    bumpVersion();
  }

  /// Set before the runtime is announced: at most one thread is inside MPI
  /// at a time (provided level below MPI_THREAD_MULTIPLE), so the record is
  /// never contended and claim() skips its compare-and-swap.
  bool exclusive_ = false;
  std::atomic<bool> owned_{false};
  /// The seqlock word ("call.version"): odd while a writer is inside.
  std::atomic<std::uint32_t> seq_{0};
  /// MpiFunction in the low half ("call.function"), PeerRole in the high
  /// half ("call.peer_role"): one store publishes both (kindOf).
  std::atomic<std::uint64_t> kind_{0};
  std::atomic<std::uint32_t> hasTag_{0};     ///< 0 or 1
  std::atomic<std::int32_t> peer_{0};
  std::atomic<std::int32_t> tag_{0};
  std::atomic<std::uint64_t> comm_{0};
  std::atomic<std::uint64_t> collCall_{0};
  std::atomic<std::int64_t> entryNs_{0};
  std::atomic<std::uint64_t> callSeq_{0};
  /// Address of the MPI_Wait*/Test* request array; 0 outside those calls.
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::int32_t> requestCount_{0};
};

}  // namespace mpidbg::rt
