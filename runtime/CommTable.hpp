#pragma once

// The communicator registry's table (CommRegistry.hpp): slots, lookup, names,
// uids and snapshots, without MPI (handles arrive as handle keys), so that
// tests/unit/runtime exercises it without an MPI library.

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ccs/proto/QueueProtocol.hpp"
#include "ccs/proto/RankProtocol.hpp"

namespace mpidbg::rt {

/// A handle (MPI_Comm, MPI_Request, MPI_Datatype) as the exported state and
/// the wire carry it: MPICH's 32-bit integer handles zero-extended (so "comm
/// 0x84000001" prints as MPICH shows it), pointer handles (Open MPI) as
/// their address.
template <typename Handle>
inline std::uint64_t handleKey(Handle h) noexcept {
  if constexpr (std::is_pointer_v<Handle>)
    return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(h));
  else
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(h));
}

/// What the registry stores about a communicator besides its counters.
struct CommInfo {
  std::int32_t size = 0;
  std::int32_t localRank = 0;
  std::int32_t rootWorldRank = -1;  ///< world rank of local rank 0; -1 if not in WORLD
  std::string_view name;            ///< at most 63 bytes are kept
  /// World rank of each local rank (-1 for a process outside
  /// MPI_COMM_WORLD); empty when unknown.
  std::vector<std::int32_t> worldRanks;
  /// The communicator's identity across the job (CommRecord::uid); 0 when
  /// unknown.
  std::uint64_t uid = 0;
};

/// The uid of MPI_COMM_WORLD: every process's world is the same communicator.
inline constexpr std::uint64_t kWorldUid = 0x776f726c64;  // "world"

/// The uid of a communicator made by a constructor call on `parentUid`
/// (MPI_Comm_dup, MPI_Cart_create, ...: CommWrappers.cpp): `child` is the
/// 1-based number of that call among the parent's interposed constructor
/// calls in this process
/// (CommRecord::children) and `worldRanks` the new communicator's members.
/// Every member makes the same calls on the parent in the same order (MPI's
/// rule for collectives), so every member computes the same value, and
/// different colors of one MPI_Comm_split get different member lists. 0
/// (unknown) when the parent's is or the members are unknown; never 0
/// otherwise. A 64-bit mix (splitmix64's finalizer), not a cryptographic hash.
std::uint64_t childUid(std::uint64_t parentUid, std::uint64_t child,
                       const std::vector<std::int32_t>& worldRanks) noexcept;

/// One communicator slot (StateLayout.h type "comm"). Plain standard-layout
/// record of atomics, so the helper thread and the mqs DLL (from outside the
/// process) can read it without locks.
struct CommRecord {
  enum State : std::uint32_t { Empty = 0, Filling = 1, Live = 2, Tombstone = 3 };
  /// Slot state; Live is published with a release store.
  std::atomic<std::uint32_t> state{Empty};
  /// Seqlock over handle/size/ranks/name: odd while a writer changes them.
  std::atomic<std::uint32_t> version{0};
  std::atomic<std::uint64_t> handle{0};
  std::atomic<std::int32_t> size{0};
  std::atomic<std::int32_t> localRank{0};
  std::atomic<std::int32_t> rootWorldRank{0};
  /// Name, 63 bytes and a NUL, in 8 little words (memcpy'd in and out).
  std::array<std::atomic<std::uint64_t>, 8> nameWords{};
  /// Collective calls entered / left per class (mqs_comm_class order);
  /// active = entries != exits. Relaxed increments on the MPI fast path.
  std::array<std::atomic<std::uint64_t>, ccs::proto::kCollClassCount> entries{};
  std::array<std::atomic<std::uint64_t>, ccs::proto::kCollClassCount> exits{};
  /// World rank of each local rank: `size` int32 values (seqlocked with the
  /// fields above); nullptr when unknown. The array belongs to the slot and
  /// is NEVER freed: a re-registration of the slot rewrites it in place when
  /// it is big enough, else installs a bigger one (capacity rounded up to a
  /// power of two) and deliberately leaks the old one, so a reader racing
  /// with MPI_Comm_free or a re-registration (the helper thread, or the mqs
  /// DLL reading a live process) never touches freed memory; the seqlock
  /// tells it to retry. The leak is bounded by twice the largest size per slot.
  std::atomic<std::int32_t*> worldRanks{nullptr};
  /// Collective calls issued on this communicator, every class and the
  /// communicators made from it (the interposed constructors:
  /// CommWrappers.cpp), in issue order; the n-th such call has sequence
  /// number n. Relaxed increments.
  std::atomic<std::uint64_t> collSeq{0};
  /// The communicator's identity across the job (CommInfo::uid; seqlocked
  /// with the fields above): kWorldUid, childUid() of its parent, or 0 when
  /// unknown (communicators the runtime did not see being made, whose
  /// handle, root and size must stand in for it).
  std::atomic<std::uint64_t> uid{0};
  // ---- runtime-private (not in the layout table) ----
  /// Interposed constructor calls (CommWrappers.cpp) made on this
  /// communicator, the failed and MPI_COMM_NULL ones included: the `child`
  /// of childUid(). Reset by a registration.
  std::atomic<std::uint64_t> children{0};
  /// `handle` while the slot is Live, else kNoKey: set after the Live store
  /// and cleared before the slot leaves Live, so that one compare with a
  /// handle key answers "live and this communicator" (the collective fast
  /// path's cache check, CallScope.hpp).
  std::atomic<std::uint64_t> liveKey{kNoKey};
  /// liveKey of a slot that is not Live: no handle key (MPICH's are 32-bit,
  /// Open MPI's are addresses) has every bit set.
  static constexpr std::uint64_t kNoKey = ~std::uint64_t{0};
  /// True when the slot is live and holds the communicator of handle key
  /// `key` (commKey): one load and one compare of liveKey.
  bool holds(std::uint64_t key) const noexcept { return liveKey.load(std::memory_order_acquire) == key; }
  /// Bumped by every registration of the slot: an operation that remembers
  /// (record, generation) can tell whether the slot still holds its
  /// communicator.
  std::atomic<std::uint32_t> generation{0};
  /// The slot's world-rank array (published through worldRanks) and the
  /// elements it can hold; writers only, under the registry mutex.
  std::int32_t* worldRanksStorage = nullptr;
  std::uint32_t worldRanksCapacity = 0;
};

/// The table of the communicator registry of one rank (CommRegistry, which
/// adds what asks MPI): a fixed-capacity open-addressing table keyed by
/// handle. Lookups are lock-free (the MPI fast path); adds,
/// removes and renames take a mutex (communicator creation is not a fast
/// path). Freed slots become tombstones and are recycled by later adds.
class CommTable {
 public:
  /// Communicators a rank can have registered at once; later ones are not
  /// tracked (their collectives are not counted).
  static constexpr std::size_t kCapacity = 4096;

  constexpr CommTable() noexcept = default;
  CommTable(const CommTable&) = delete;
  CommTable& operator=(const CommTable&) = delete;

  /// The live record of `handle`, or nullptr. Lock-free; any thread.
  CommRecord* find(std::uint64_t handle) noexcept;

  /// Registers `handle` (replacing a live record with the same handle, whose
  /// counters restart at zero). nullptr when the table is full.
  CommRecord* add(std::uint64_t handle, const CommInfo& info) noexcept;

  /// Forgets `handle` (MPI_Comm_free). No-op for unknown handles.
  void remove(std::uint64_t handle) noexcept;

  /// Sets the name of a registered communicator (MPI_Comm_set_name),
  /// truncated to 63 bytes. No-op for unknown handles.
  void rename(std::uint64_t handle, std::string_view name) noexcept;

  /// The name of `handle`, or "comm 0x..." when it is not registered. Helper
  /// thread; allocates.
  std::string nameOf(std::uint64_t handle) const;

  /// A consistent copy of every live communicator (helper thread; allocates).
  std::vector<ccs::proto::CommState> snapshot() const;

  /// Like snapshot(), with each communicator's world ranks and collective
  /// sequence number (no operations; helper thread; allocates).
  std::vector<ccs::proto::CommQueues> queueSnapshot() const;

  /// The slot array (kCapacity records): exported as root.comms.
  const CommRecord* slots() const noexcept { return slots_.data(); }

 private:
  static std::size_t home(std::uint64_t handle) noexcept;
  /// Reads the seqlocked fields of `r`; false if it changed under us or is
  /// not live. With `worldRanks`, also copies the world-rank array.
  static bool readRecord(const CommRecord& r, ccs::proto::CommState& out,
                         std::vector<std::int32_t>* worldRanks = nullptr, std::uint64_t* collSeq = nullptr);
  /// Stores `ranks` in the slot's array (growing it as documented at
  /// CommRecord::worldRanks). Caller holds the mutex, inside a write section.
  static void storeWorldRanks(CommRecord& r, const std::vector<std::int32_t>& ranks) noexcept;

  std::array<CommRecord, kCapacity> slots_{};
  std::mutex writers_;
};

}  // namespace mpidbg::rt
