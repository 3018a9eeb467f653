#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/RankProtocol.hpp"

namespace mpidbg::rt {

/// A communicator handle as the wire carries it (MPICH handles are 32-bit ints;
/// the value is kept unsigned so "comm 0x84000001" prints as MPICH shows it).
inline std::uint64_t commKey(MPI_Comm comm) noexcept {
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(comm));
}

/// What the registry stores about a communicator besides its counters.
struct CommInfo {
  std::int32_t size = 0;
  std::int32_t localRank = 0;
  std::int32_t rootWorldRank = -1;  ///< world rank of local rank 0; -1 if not in WORLD
  std::string_view name;            ///< at most 63 bytes are kept
};

/// Asks MPI (PMPI_* only; call on an MPI thread, never the helper thread)
/// for the size, this rank's rank and the world rank of rank 0 of `comm`,
/// through PMPI_Comm_group + PMPI_Group_translate_ranks (groups freed).
/// Errors leave the corresponding fields at their defaults.
CommInfo describeComm(MPI_Comm comm) noexcept;

/// The default name of a communicator: "MPI_COMM_WORLD", "MPI_COMM_SELF", or
/// "comm 0x%x" of the handle, written into `out` (NUL-terminated).
void defaultCommName(MPI_Comm comm, std::array<char, 64>& out) noexcept;

/// One communicator slot. Plain standard-layout record of atomics, so the
/// helper thread (and later the mqs DLL) can read it without locks.
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
};

/// The communicator registry of one rank: a fixed-capacity open-addressing
/// table keyed by handle. Lookups are lock-free (the MPI fast path); adds,
/// removes and renames take a mutex (communicator creation is not a fast
/// path). Freed slots become tombstones and are recycled by later adds.
class CommRegistry {
 public:
  /// Communicators a rank can have registered at once; later ones are not
  /// tracked (their collectives are not counted).
  static constexpr std::size_t kCapacity = 4096;

  CommRegistry() = default;
  CommRegistry(const CommRegistry&) = delete;
  CommRegistry& operator=(const CommRegistry&) = delete;

  /// The live record of `handle`, or nullptr. Lock-free; any thread.
  CommRecord* find(std::uint64_t handle) noexcept;

  /// Registers `handle` (replacing a live record with the same handle, whose
  /// counters restart at zero). nullptr when the table is full.
  CommRecord* add(std::uint64_t handle, const CommInfo& info) noexcept;

  /// The record of `comm`, registering it first (describeComm, default name)
  /// if this rank has not seen it: communicators made by calls the runtime
  /// does not interpose. Calls PMPI: MPI threads only.
  CommRecord* findOrRegister(MPI_Comm comm) noexcept;

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

 private:
  static std::size_t home(std::uint64_t handle) noexcept;
  /// Reads the seqlocked fields of `r`; false if it changed under us or is not live.
  static bool readRecord(const CommRecord& r, ccs::proto::CommState& out);

  std::array<CommRecord, kCapacity> slots_{};
  std::mutex writers_;
};

}  // namespace mpidbg::rt
