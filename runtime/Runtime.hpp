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
#include "PollWatch.hpp"
#include "WildcardLog.hpp"
#include "WindowEpochs.hpp"
#include "WindowLocks.hpp"
#include "ccs/proto/RankProtocol.hpp"
#include "ccs/tree/Forwarder.hpp"
#include "ccs/transport/Server.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::rt {

class Runtime;

/// The attached runtime of this process; nullptr while inert (before MPI_Init,
/// without MPIDBG_FRONTEND, or after a failed start). Set once, never cleared:
/// the object is deliberately never destroyed, so exit handlers and the helper
/// thread can use it until the process is gone.
extern std::atomic<Runtime*> gAttached;

/// Runtime::tell on the attached runtime; without one, on stderr as rank
/// `rank`'s ("mpidbg-rt: rank N: TEXT").
void tell(std::int32_t rank, const std::string& text) noexcept;

/// The process's current-call record (Runtime::currentCall) and collective
/// history (Runtime::history). Static and constant-initialized, so the MPI
/// fast path (CallScope.hpp) addresses them PC-relative instead of through
/// a runtime pointer; one runtime goes live per process. Defined in
/// Runtime.cpp.
extern CurrentCall gCurrentCall __attribute__((visibility("hidden")));
extern CollHistory gCollHistory __attribute__((visibility("hidden")));

/// The attached runtime when the MPI fast path may run at all (the call
/// clock is the time-stamp counter, the current-call record is exclusive:
/// thread level below MPI_THREAD_MULTIPLE, no idle waiting), else nullptr.
/// Set once, when the runtime goes live, and never cleared; an input of
/// gFastGate (ThreadLevel.hpp), which is open only once it is set. Defined
/// in Control.cpp.
extern Runtime* gFastRuntime __attribute__((visibility("hidden")));

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
  /// succeeded. Inert without MPIDBG_FRONTEND or MPIDBG_LISTEN.
  ///
  /// Launched (MPIDBG_FRONTEND=HOST:PORT): reads MPIDBG_KEY_FILE,
  /// MPIDBG_STOP_AT_INIT (default 1) and MPIDBG_CCS_BIND (default loopback, or
  /// the address that reaches a front end on another host),
  /// starts the CCS server and helper thread, registers with the front end, and
  /// (when stopping at init) blocks until continue or until the front end is
  /// lost.
  ///
  /// Listening (MPIDBG_LISTEN=1, no MPIDBG_FRONTEND; issue 9): collective over
  /// MPI_COMM_WORLD. The session key comes from MPIDBG_KEY_FILE, else rank 0
  /// makes one and broadcasts it (PMPI_Bcast); every rank starts its CCS
  /// server and the endpoints are gathered to rank 0 (PMPI_Gather), which
  /// writes the attach file (ccs/proto/AttachProtocol.hpp) to MPIDBG_ATTACH_FILE or
  /// $TMPDIR/mpidbg-UID/job-PID.attach (directory 0700, file 0600) and says
  /// where on stderr. The job runs on; `mpidbg attach FILE` later makes every
  /// rank register (attachFrontend), and a detached or lost front end leaves
  /// it listening again.
  ///
  /// Charm-compatible (MPIDBG_CHARM=1, or MPIDBG_CCS_SECURITY=sha1; issue
  /// 26): listening as above, and every rank also serves Charm++'s clients
  /// (CharmCompat.hpp) on a listener of its own, in Charm++'s plain mode or,
  /// with MPIDBG_CHARM_KEY_FILE (a Charm++ ++server-auth key file), its
  /// SHA-1 mode; rank 0 on MPIDBG_CHARM_PORT when given. The endpoints are
  /// exchanged with PMPI_Allgather, so any rank relays a request to any PE
  /// and merges broadcasts (ccs/tree/Forwarder.hpp); rank 0 announces its
  /// listener on stdout as Charm++ does ("ccs: Server IP = ..., Server port
  /// = ... $").
  ///
  /// On any failure prints one line "mpidbg-rt: rank N: <reason>; running
  /// without the debugger" to stderr and stays inert. Never throws.
  static void startAfterInit(int providedThreadLevel) noexcept;

  /// Listening mode only (the mpidbg/attach handler, on the helper thread):
  /// registers with the front end's event hub at `frontend` ("HOST:PORT") as
  /// a launched rank does at MPI_Init. Errors: the job was launched by
  /// mpidbg, a front end is attached already, a bad endpoint, the hub cannot
  /// be reached or sends no challenge.
  Expected<void> attachFrontend(const std::string& frontend);

  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  /// World rank and size, as PMPI_Comm_rank/size reported at MPI_Init.
  std::int32_t rank() const noexcept { return rank_; }
  std::int32_t size() const noexcept { return size_; }

  CommRegistry& comms() noexcept { return comms_; }
  CurrentCall& currentCall() noexcept { return call_; }
  OpTable& ops() noexcept { return ops_; }
  CollHistory& history() noexcept { return history_; }
  WildcardLog& wildcards() noexcept { return wildcards_; }
  WindowLocks& windowLocks() noexcept { return windowLocks_; }
  /// The PSCW epochs this rank opened (the PSCW wrappers write them).
  WindowEpochs& windowEpochs() noexcept { return windowEpochs_; }
  /// The rank's MPI_Test* streak (polling).
  PollWatch& polls() noexcept { return polls_; }
  EventChannel& events() noexcept { return events_; }

  /// A diagnostic of the runtime: to the front end as a Notice event while
  /// one listens, else on stderr as "mpidbg-rt: rank N: TEXT". Any thread
  /// but signal handlers (it allocates).
  void tell(const std::string& text) noexcept;

  /// Counts one intercepted MPI call (root.call_count); returns the count
  /// including it.
  static std::uint64_t countCall() noexcept {
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

  /// Launched mode: server (startServer), then the registration (registerWith).
  Expected<void> start(const std::string& frontend);
  /// The communicator registry, the CCS server with every handler and the
  /// forwarding tree, secured with `key` unless plain CCS was asked for.
  /// `frontendHost` is the front end's address (MPIDBG_FRONTEND's host; empty
  /// for a listening job): a non-loopback one makes the server bind the
  /// address the route to it leaves from (startup::bindAddress, StartupSettings.hpp).
  Expected<void> startServer(const std::vector<std::uint8_t>& key, const std::string& frontendHost = {});
  /// Connects the event channel to `frontend`, answers its challenge with
  /// the registration (MAC with the session key), arms the exit and signal
  /// reports (once per process) and watches the channel for the front end's
  /// loss. Events stay off until the registration is sent.
  Expected<void> registerWith(const ccs::Endpoint& frontend);
  /// A started runtime goes live: helper thread, call clock, fast path,
  /// exported state, then gAttached (the wrappers start using it) and the
  /// report of calls made before MPI_Init. Returns it, never to be deleted.
  /// Throws what starting the helper thread throws.
  static Runtime* goLive(std::unique_ptr<Runtime> rt, int providedThreadLevel);
  /// Listening mode, from startAfterInit: key, server, endpoint gather, attach file
  /// (ListeningJob.cpp, with startCharmListener and adoptCharmPeers).
  static void startListening(int providedThreadLevel, std::int32_t rank, std::int32_t size) noexcept;
  /// Installs the CCS forwarding tree (mpidbg/forward and broadcast routing)
  /// on the server, with the merge rule of every mpidbg handler.
  Expected<void> installForwarder(const ccs::Security& security);
  /// Charm-compatible mode: adds the listener for Charm++'s clients to the
  /// server (MPIDBG_CHARM_KEY_FILE, MPIDBG_CHARM_PORT on rank 0) and their
  /// handlers. Returns its port. Errors: an unreadable key file, sha1
  /// without one, a bad or busy port.
  Expected<std::uint16_t> startCharmListener();
  /// Charm-compatible mode, after the allgather: the PE table of every rank
  /// whose record parses (`records`: `size` endpoint records), for relaying;
  /// rank 0 announces its listener.
  void adoptCharmPeers(const std::vector<char>& records, std::int32_t size);
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
  /// The process's registry, record, table and history (static, see
  /// Runtime.cpp: the registry's and the table's 1.9 MiB of slots cost
  /// memory only as slots are used; one Runtime goes live per process).
  CommRegistry& comms_;
  CurrentCall& call_;
  OpTable& ops_;
  CollHistory& history_;
  WildcardLog wildcards_;
  WindowLocks windowLocks_;
  WindowEpochs windowEpochs_;
  PollWatch polls_;
  EventChannel events_;
  std::unique_ptr<ccs::Server> server_;
  std::unique_ptr<ccs::Forwarder> forwarder_;
  /// Charm-compatible mode: this rank's listener for Charm++'s clients, and
  /// whether it is SHA-1 authenticated.
  ccs::Endpoint charmEndpoint_;
  bool charmSecure_ = false;
  std::atomic<bool> frozen_{false};
  std::atomic<bool> finalized_{false};
  /// Set by the channel watch callback; handled after pollOnce returns.
  bool channelClosed_ = false;
  /// The helper thread watches the event channel (a front end is attached).
  bool watching_ = false;
  /// Started with MPIDBG_LISTEN: front ends attach and detach at will.
  bool listening_ = false;
  /// armProcessHooks ran (it must run once per process).
  bool hooksArmed_ = false;
  /// The session key (TLS PSK, registration MAC).
  std::vector<std::uint8_t> key_;
  /// Rank 0 of a listening job: the attach file it wrote, removed at
  /// MPI_Finalize ("" otherwise).
  std::string attachFile_;
};

}  // namespace mpidbg::rt
