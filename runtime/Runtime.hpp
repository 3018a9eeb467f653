#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "CollHistory.hpp"
#include "CommRegistry.hpp"
#include "CurrentCall.hpp"
#include "EventChannel.hpp"
#include "ExportedState.hpp"
#include "OpTable.hpp"
#include "ccs/RankProtocol.hpp"
#include "ccs/Forwarder.hpp"
#include "ccs/Server.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::rt {

class Runtime;

/// The attached runtime of this process; nullptr while inert (before MPI_Init,
/// without MPIDBG_FRONTEND, or after a failed start). Set once, never cleared:
/// the object is deliberately never destroyed, so exit handlers and the helper
/// thread can use it until the process is gone.
extern std::atomic<Runtime*> gAttached;

/// mpidbg's runtime inside one MPI rank (../shared/DESIGN.md, "The runtime"):
/// the communicator registry, the current-call record, the pending-operation
/// table and collective history (all exported through the state root,
/// ExportedState.hpp), the CCS server served by one helper thread, the event
/// channel to the front end, and the freeze.
class Runtime {
 public:
  /// The attached runtime or nullptr: one atomic load, the whole cost of a
  /// wrapper when no debugger is attached.
  static Runtime* attached() noexcept { return gAttached.load(std::memory_order_acquire); }

  /// Called by the MPI_Init / MPI_Init_thread wrappers once PMPI_Init* has
  /// succeeded. Inert without MPIDBG_FRONTEND. Otherwise reads MPIDBG_KEY_FILE,
  /// MPIDBG_STOP_AT_INIT (default 1) and MPIDBG_CCS_BIND (default 127.0.0.1),
  /// starts the CCS server and helper thread, registers with the front end, and
  /// (when stopping at init) blocks until continue or until the front end is
  /// lost. On any failure prints one line "mpidbg-rt: rank N: <reason>; running
  /// without the debugger" to stderr and stays inert. Never throws.
  static void startAfterInit(int providedThreadLevel) noexcept;

  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  /// World rank and size, as PMPI_Comm_rank/size reported at MPI_Init.
  std::int32_t rank() const noexcept { return rank_; }
  std::int32_t size() const noexcept { return size_; }

  CommRegistry& comms() noexcept { return comms_; }
  CurrentCall& currentCall() noexcept { return call_; }
  OpTable& ops() noexcept { return ops_; }
  CollHistory& history() noexcept { return history_; }
  EventChannel& events() noexcept { return events_; }

  /// Counts one intercepted MPI call (root.call_count); returns the count
  /// including it.
  std::uint64_t countCall() noexcept {
    return stateRoot().callCount.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  /// Intercepted MPI calls since MPI_Init.
  std::uint64_t mpiCalls() const noexcept { return stateRoot().callCount.load(std::memory_order_relaxed); }

  /// The coarse state reported by mpidbg/status: Frozen while held, InMpi when
  /// `call` is set, Finalized after MPI_Finalize returned, else Running.
  ccs::proto::RankState state(bool inCall) const noexcept;

  /// Lets a frozen rank go (mpidbg/continue, or the front end lost). Idempotent.
  void resume() noexcept;
  /// Records that MPI_Finalize returned (phase finalized) and reports it on
  /// the event channel.
  void markFinalized() noexcept;

 private:
  Runtime(std::int32_t rank, std::int32_t size, std::int32_t threadLevel);

  /// Everything that can fail, in order: key, registry, server, channel, registration.
  Expected<void> start(const std::string& frontend);
  /// Installs the CCS forwarding tree (mpidbg/forward and broadcast routing)
  /// on the server, with the merge rule of every mpidbg handler.
  Expected<void> installForwarder(const ccs::Security& security);
  /// Starts the helper thread with every signal blocked in it.
  void launchHelper();
  /// The helper thread: poll the server (and the event channel) forever.
  void helperLoop() noexcept;
  /// The front end went away: go quiet and let a frozen rank run.
  void onFrontendLost() noexcept;
  /// Blocks the calling (MPI) thread while frozen.
  void waitWhileFrozen() noexcept;

  std::int32_t rank_;
  std::int32_t size_;
  std::int32_t threadLevel_;
  CommRegistry comms_;
  CurrentCall call_;
  OpTable ops_{stateRoot().opOverflow};
  CollHistory history_;
  EventChannel events_;
  std::unique_ptr<ccs::Server> server_;
  std::unique_ptr<ccs::Forwarder> forwarder_;
  std::atomic<bool> frozen_{false};
  std::atomic<bool> finalized_{false};
  /// Set by the channel watch callback; handled after pollOnce returns.
  bool channelClosed_ = false;
};

}  // namespace mpidbg::rt
