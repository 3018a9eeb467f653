#pragma once

#include <cstdint>

#include "CurrentCall.hpp"
#include "ccs/proto/ThreadLevelProtocol.hpp"

namespace mpidbg::ccs {
class Server;
}

namespace mpidbg::rt {

class Runtime;

/// MPI thread-level compliance, checked while the program runs (issue 12).
///
/// Fast path (CallScope.hpp fastEnter*): one compare of the calling thread's
/// thread pointer with gFastGate, which follows gThreadGate (and is closed
/// besides while the runtime is inert or armed). The gate holds the thread pointer of the
/// thread that initialized MPI while the provided level is below
/// MPI_THREAD_MULTIPLE and no call is inside the slow path; otherwise it is
/// kThreadGateClosed, so every other thread, every call made while another
/// thread is inside the slow path, and every call after MPI_Finalize takes
/// the slow path, where threadEnter() checks:
///   - SINGLE/FUNNELED: a call from a thread other than the initializing one
///     (needs MPI_THREAD_SERIALIZED);
///   - below MULTIPLE: two threads inside MPI at once (needs MULTIPLE; two
///     collectives on one communicator need MULTIPLE and distinct
///     communicators);
///   - MULTIPLE: two blocking collectives on one communicator at once;
///   - any level: a call after MPI_Finalize returned.
/// Detection is best effort (races between the checks are not locked out);
/// a violation is reported once per kind and call pair per rank as an Event
/// of kind violation, and stops the thread when a `break violation`
/// breakpoint is set (Control::violation).

/// The fast-path gate (see above). Written by the MPI_Init wrapper and the
/// slow path; read with one relaxed load. Defined in ThreadLevel.cpp.
extern std::uintptr_t gThreadGate __attribute__((visibility("hidden")));
/// The gate's value when the fast path must not run (no thread pointer is 1).
inline constexpr std::uintptr_t kThreadGateClosed = 1;

/// The calling thread's thread pointer (%fs base on x86-64): unique per
/// live thread, one instruction.
[[gnu::always_inline]] inline std::uintptr_t threadPointer() noexcept {
  return reinterpret_cast<std::uintptr_t>(__builtin_thread_pointer());
}

/// True when the calling thread may take the fast path as far as thread
/// levels go (it initialized MPI, the level is below MULTIPLE, nobody is in
/// the slow path, MPI is not finalized).
[[gnu::always_inline]] inline bool threadGateOpen() noexcept {
  return threadPointer() == __atomic_load_n(&gThreadGate, __ATOMIC_RELAXED);
}

/// The MPI fast path's gate (CallScope.hpp fastEnter*): gThreadGate's thread
/// pointer while, besides, the runtime allows the fast path (gFastRuntime is
/// set) and nothing is armed (mpidbg_rt_armed is 0); else kThreadGateClosed.
/// So one compare with the thread pointer answers "attached with the fast
/// path on, nothing armed, thread levels fine". Kept by refreshFastGate().
/// Defined in ThreadLevel.cpp.
extern std::uintptr_t gFastGate __attribute__((visibility("hidden")));

/// Recomputes gFastGate after one of its inputs changed (gThreadGate,
/// gFastRuntime, mpidbg_rt_armed); every writer of an input calls it after
/// its write (with sequentially consistent atomics). It opens the gate only
/// when every input allows it and then checks them again, closing it if one
/// changed meanwhile, so the gate never stays open over an input that
/// forbids it (a writer that closes an input closes the gate after; an
/// opener that stored before that close re-reads the input). Atomics only:
/// async-signal-safe.
void refreshFastGate() noexcept;

/// True when the calling thread may take the MPI fast path (gFastGate).
[[gnu::always_inline]] inline bool fastGateOpen() noexcept {
  return threadPointer() == __atomic_load_n(&gFastGate, __ATOMIC_ACQUIRE);
}

/// Bits of what threadEnter() did, for threadLeave().
enum ThreadToken : std::uint8_t {
  kThreadCounted = 1,     ///< counted inside MPI: threadLeave() must run
  kThreadSkipRecord = 2,  ///< another thread owns the current-call record: do not publish
  kThreadCommSlot = 4,    ///< MULTIPLE: holds its communicator's collective slot
};

/// Called by the MPI_Init / MPI_Init_thread wrappers on the initializing
/// thread once PMPI_Init* succeeded: remembers the thread (tid and thread
/// pointer) and the `requested` and `provided` levels, and opens the gate
/// when `provided` is below MPI_THREAD_MULTIPLE.
void noteMpiInit(int requested, int provided) noexcept;

/// Called by the MPI_Finalize wrapper when PMPI_Finalize succeeded: closes
/// the gate for good; later calls are reported.
void noteMpiFinalized() noexcept;

/// Set by the MPI_Init / MPI_Init_thread wrappers on entry, before PMPI_Init*
/// runs: from then on, an interposed call is not "before MPI_Init".
extern bool gMpiInitEntered __attribute__((visibility("hidden")));

/// An interposed call of `function`
/// made before MPI_Init (the runtime cannot be attached yet). Says so on
/// stderr at once ("mpidbg-rt: MPI lifecycle violated: thread 4312 (app)
/// called MPI_Barrier before MPI_Init"), since MPI itself usually aborts the
/// process in the call, and keeps it (once per function) for
/// reportCallsBeforeInit().
[[gnu::cold, gnu::noinline]] void noteCallBeforeInit(MpiFunction function) noexcept;

/// Once the runtime attached (MPI_Init returned): sends each call noted by
/// noteCallBeforeInit() as a violation event (for an MPI that let the call
/// return), and counts it.
void reportCallsBeforeInit(Runtime& rt) noexcept;

/// The slow path's check at the entry of an outermost interposed call of
/// `function` on communicator key `comm` (0: none); `collective` for
/// blocking collectives. Reports and (with `break violation`) stops at a
/// violation before counting the call. Returns ThreadToken bits. Never
/// throws; allocates only when reporting.
[[gnu::noinline]] std::uint8_t threadEnter(Runtime& rt, MpiFunction function, std::uint64_t comm,
                                           bool collective) noexcept;

/// The slow path's entry check: 0 (nothing checked, nothing to undo) while
/// the gate is open for the calling thread, i.e. the MPI_Init thread below
/// MPI_THREAD_MULTIPLE with nobody in the slow path (its published call
/// record is what another thread's check sees); else threadEnter(). Three
/// instructions when open.
[[gnu::always_inline]] inline std::uint8_t threadCheck(Runtime& rt, MpiFunction function, std::uint64_t comm,
                                                       bool collective) noexcept {
  if (threadGateOpen()) [[likely]]
    return 0;
  return threadEnter(rt, function, comm, collective);
}

/// The end of a call threadEnter() returned `token` for.
[[gnu::noinline]] void threadLeave(std::uint8_t token) noexcept;

/// The levels of this rank (requested, provided, required so far,
/// violations) for mpidbg/threadlevel; `rank` is stamped on the record.
ccs::proto::ThreadLevelInfo threadLevelInfo(std::int32_t rank) noexcept;

/// Registers the mpidbg/threadlevel handler (ccs/proto/ThreadLevelProtocol.hpp)
/// on `server`: one ThreadLevelInfo record and a `--` line.
void registerThreadLevelHandler(ccs::Server& server, Runtime& runtime);

}  // namespace mpidbg::rt
