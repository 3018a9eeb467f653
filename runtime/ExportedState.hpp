#pragma once

// The runtime's exported state root and layout table: what the mqs DLL (and
// any reader of a live process or core file) starts from. The contract is
// common/include/mpidbg/StateLayout.h; this file holds the writer's side.

#include <atomic>
#include <cstdint>

#include "mpidbg/StateLayout.h"

namespace mpidbg::rt {

class Runtime;

/// File name of the message-queue DLL, expected beside libmpidbg-rt.so.
inline constexpr const char* kMqsLibraryName = "libmpidbg-mqs.so";
/// Bytes of the exported MPIR_dll_name array, NUL included.
inline constexpr std::size_t kDllNameBytes = 4096;

/// The state root (StateLayout.h type "root"; exported as `mpidbg_state`).
/// Addresses are target addresses (taddr, 8 bytes). Everything except the
/// atomics is written once, by publishState(), before `magic` is stored with
/// release; readers check `magic` first.
struct StateRoot {
  std::atomic<std::uint64_t> magic{0};  ///< MPIDBG_LAYOUT_MAGIC once attached
  std::int32_t worldRank = -1;
  std::int32_t worldSize = 0;
  std::atomic<std::uint32_t> phase{MPIDBG_PHASE_NOT_INITIALIZED};  ///< enum mpidbg_phase
  std::int32_t threadLevel = 0;  ///< provided thread level
  /// Intercepted MPI calls since MPI_Init (Runtime::countCall: one relaxed
  /// increment per call, the fast path's only shared write).
  std::atomic<std::uint64_t> callCount{0};
  std::uint64_t comms = 0;  ///< CommRecord[commCapacity]
  std::uint32_t commCapacity = 0;
  std::uint64_t ops = 0;    ///< OpRecord[opCapacity]
  std::uint32_t opCapacity = 0;
  std::uint64_t history = 0;  ///< CollHistoryRecord[historyCapacity]
  std::uint32_t historyCapacity = 0;
  std::atomic<std::uint64_t> historyNext{0};  ///< records ever appended to the history
  std::uint64_t call = 0;  ///< the CurrentCall
  std::uint64_t functionNames = 0;  ///< char[functionCount][functionNameLen]
  std::uint32_t functionCount = 0;
  std::uint32_t functionNameLen = 0;
  /// Operations not recorded because the op table was full ("op_overflow").
  std::atomic<std::uint64_t> opOverflow{0};
  /// The call clock's conversion to CLOCK_MONOTONIC nanoseconds
  /// ("clock_tick_base", "clock_ns_base", "clock_ns_per_tick_q32"; see
  /// CallClock.hpp): identity until calibrateCallClock() chose the counter.
  std::int64_t clockTickBase = 0;
  std::int64_t clockNsBase = 0;
  std::uint64_t clockNsPerTickQ32 = std::uint64_t{1} << 32;
};

/// The state root's storage: a hidden symbol, so the runtime's own accesses
/// are PC-relative (the exported name `mpidbg_state` is an alias of it and
/// would go through the GOT).
extern "C" StateRoot mpidbg_rt_state __attribute__((visibility("hidden")));

/// The state root.
inline StateRoot& stateRoot() noexcept { return mpidbg_rt_state; }

/// Fills the root with the addresses of `rt`'s structures, rank, size and
/// thread level, sets the phase to running, and finally publishes the magic
/// (release). Call once, before the runtime is announced as attached.
void publishState(Runtime& rt, std::int32_t threadLevel) noexcept;

/// Sets root.phase (release).
inline void setPhase(mpidbg_phase phase) noexcept {
  stateRoot().phase.store(static_cast<std::uint32_t>(phase), std::memory_order_release);
}

}  // namespace mpidbg::rt
