#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <pthread.h>

#include "BreakpointTable.hpp"
#include "CurrentCall.hpp"
#include "ThreadLevel.hpp"
#include "ccs/condition/Condition.hpp"
#include "ccs/proto/ControlProtocol.hpp"
#include "ccs/proto/RankProtocol.hpp"

namespace mpidbg::ccs {
class Server;
}

namespace mpidbg::rt {

class Runtime;

/// The armed word (exported to applications as mpidbg_control_armed, see
/// mpidbg/mpidbg.h): nonzero while any enabled breakpoint exists, a freeze or
/// step is pending, or the rank is stopped. The only thing the MPI fast path
/// and MPIDBG_ENTRY read: one relaxed load. Defined in EntryPoints.cpp.
extern "C" unsigned int mpidbg_rt_armed __attribute__((visibility("hidden")));

/// Bits of the armed word.
enum ArmBit : unsigned int {
  kArmBreakpoints = 1u,  ///< some enabled breakpoint
  kArmFreeze = 2u,       ///< freeze at the next safe point
  kArmStep = 4u,         ///< a step is counting safe points
  kArmHold = 8u,         ///< the rank is stopped: other threads hold at safe points
};

/// One relaxed load: true when safe points must take the slow path.
inline bool controlArmed() noexcept { return __atomic_load_n(&mpidbg_rt_armed, __ATOMIC_RELAXED) != 0; }

/// The one way to change the armed word: sets the bits of `set`, then keeps
/// only those of `keep`, then recomputes the MPI fast path's gate, which
/// must follow every change (refreshFastGate, ThreadLevel.hpp). Atomics
/// only: async-signal-safe.
inline void changeArmed(unsigned int set, unsigned int keep = ~0u) noexcept {
  if (set != 0) __atomic_fetch_or(&mpidbg_rt_armed, set, __ATOMIC_SEQ_CST);
  if (keep != ~0u) __atomic_fetch_and(&mpidbg_rt_armed, keep, __ATOMIC_SEQ_CST);
  refreshFastGate();
}

/// The slow path of an interposed MPI call while armed (CallScope): matches
/// breakpoints against `call` and its `count` (-1 unknown) and, for
/// MPI_Sendrecv*, `sendDest` (raw MPI rank; ignored otherwise); stops the
/// calling thread when a breakpoint fires or a freeze/step is due.
[[gnu::cold, gnu::noinline]] void reachMpiSafePoint(Runtime& rt, const MpiCallRecord& call, std::int64_t count,
                                                     int sendDest) noexcept;

/// "MPI_Bcast(root=0, count=16, comm=MPI_COMM_WORLD) call #3" (with the
/// collective call number when `collCall` > 0) or "entry NAME" when
/// `function` is None. Allocates.
std::string describeSafePoint(Runtime& rt, MpiFunction function, std::string_view entry,
                              const ccs::cond::CallArgs& args, std::uint64_t collCall);

/// The arguments of a published call record, without those it does not keep
/// (count; the send peer of MPI_Sendrecv*): for describing a freeze --now.
ccs::cond::CallArgs argsOfRecord(Runtime& rt, const MpiCallRecord& call) noexcept;

/// Blocks signal `sig` in the calling thread for a scope (nothing when sig is
/// 0): the freeze --now handler must not stop a thread that holds a lock the
/// helper thread needs (the control mutex, the event channel). A signal sent
/// meanwhile is delivered when the scope ends.
class SignalBlock {
 public:
  explicit SignalBlock(int sig) noexcept;
  ~SignalBlock() { release(); }
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;
  /// Restores the previous mask now (idempotent).
  void release() noexcept;

 private:
  int sig_ = 0;
  bool wasBlocked_ = false;
};

/// Execution control inside one rank (issue 4; wire in ccs/proto/ControlProtocol.hpp):
/// the breakpoint table (BreakpointTable, under the control mutex), freeze (at the next safe point, or at once by a
/// real-time signal), step, and the stop itself. Handlers run on the helper
/// thread; reach() runs on MPI threads and blocks them while stopped. One
/// instance per process (instance()), never destroyed.
class Control {
 public:
  /// Why the rank is stopped.
  enum class StopKind : std::uint8_t { None, Breakpoint, Freeze, Step, Now };

  /// The process-wide instance.
  static Control& instance() noexcept;

  Control(const Control&) = delete;
  Control& operator=(const Control&) = delete;

  /// Called once on the thread that called MPI_Init, before the helper thread
  /// runs: remembers that thread as the target of freeze --now, installs the
  /// freeze signal handler (SIGRTMIN+6, or MPIDBG_FREEZE_SIGNAL; skipped with
  /// a log line when the application has a handler for it), and has `server`
  /// watch the descriptor the handler uses to report its stop.
  void attach(Runtime& rt, ccs::Server& server) noexcept;

  // ---- helper thread (CCS handlers) ----
  /// Sets or replaces breakpoint `b.id`; the reply's error names an unknown
  /// function, a malformed condition or an argument the target lacks.
  ccs::proto::ControlReply set(const ccs::proto::Breakpoint& b);
  /// Deletes breakpoint `id`; error when it is not set.
  ccs::proto::ControlReply remove(std::int32_t id);
  /// Enables or disables breakpoint `id`; error when it is not set.
  ccs::proto::ControlReply enable(std::int32_t id, bool enabled);
  /// Every breakpoint, in id order, with its hit count.
  std::vector<ccs::proto::Breakpoint> list() const;
  /// Freezes at the next safe point, or (`now`) at once by signalling the
  /// main thread. `alreadyStopped` says the rank is held elsewhere (MPI_Init).
  ccs::proto::ControlReply freeze(bool now, bool alreadyStopped);
  /// Arms a step of `count` safe points and releases the current stop.
  void step(std::uint64_t count) noexcept;
  /// Cancels a pending freeze or step and releases the current stop.
  void resume() noexcept;
  /// Like resume(), but a breakpoint stop numbered above `seenStop` (one
  /// the front end had not heard of when it sent the continue: the stop
  /// crossed the continue on the wire) is kept (ccs::proto::ContinueRequest).
  void resumeSeen(std::uint32_t seenStop) noexcept;
  /// Forgets every breakpoint, cancels freeze/step, releases the stop (the
  /// front end detached or was lost).
  void detach() noexcept;

  /// Also prints Charm++'s stop notices on stdout (CharmCompat.hpp): "CPD:
  /// <rank> BP <target>" at a breakpoint, "CPD: <rank> Freeze <pid>" at a
  /// freeze, as a Charm++ PE under +cpd does; its clients watch for them.
  void setCharmNotices(bool on) noexcept { charmNotices_.store(on, std::memory_order_relaxed); }

  /// The freeze --now signal, or 0 when unavailable.
  int freezeSignal() const noexcept { return freezeSignal_; }

  /// True while the rank is stopped by a breakpoint, freeze or step.
  bool stopped() const noexcept { return hold_.load(std::memory_order_acquire) != 0; }
  /// The status line of the current stop ("breakpoint 1 at ..."); empty
  /// when not stopped. With `number`, also the stop's number (its
  /// generation, as the stop's event carries it in ccs::proto::Event::stop),
  /// 0 when not stopped; read under the same lock.
  std::string stopText(Runtime& rt, std::uint32_t* number = nullptr) const;

  // ---- MPI threads ----
  /// A safe point with arguments `args` at MPI function `function` (or, when
  /// `function` is None, at entry point `entry`); `collCall` is the
  /// collective call number (0 for others). May block until resumed.
  void reach(Runtime& rt, MpiFunction function, std::string_view entry, const ccs::cond::CallArgs& args,
             std::uint64_t collCall) noexcept;
  /// A thread-level violation described by `text` (ThreadLevel.hpp) on the
  /// calling thread: counts a hit on each enabled `break violation`
  /// breakpoint and, when one fires, stops the thread there (stop text
  /// "thread-level violation (breakpoint N): TEXT", a breakpoint event whose
  /// place is "thread-level violation: TEXT") until resumed. Waits first
  /// while the rank is stopped. Violation breakpoints do not arm the fast
  /// path: they cost nothing until a violation happens.
  void violation(Runtime& rt, const std::string& text) noexcept;
  /// Replay diverged (Record.hpp) in the MPI call described by `call` for
  /// the reason `text`: stops the calling thread there until resumed (stop
  /// text "replay diverged in CALL: TEXT"; a stop event at `call` whose text
  /// is "replay diverged: TEXT"). Waits first while the rank is stopped.
  void divergence(Runtime& rt, const std::string& call, const std::string& text) noexcept;

 private:
  Control() = default;

  /// Waits while the rank is stopped, then locks `lock` (on mutex_) with
  /// the rank running.
  void lockWhenRunning(std::unique_lock<std::mutex>& lock) const noexcept;
  /// Stops the calling thread at a safe point: holds the rank with `text` as
  /// its stop reason, releases `lock`, sends `event` (numbered with the
  /// stop), unblocks the freeze signal and waits until continued. When
  /// freeze --now stopped the rank first, holds with it without an event.
  /// `charmNotice` ("BP MPI_Recv", "Freeze 1234"), when not empty, is
  /// printed as Charm++'s stop notice once the stop is published.
  void stopHere(Runtime& rt, StopKind kind, std::string text, ccs::proto::Event event,
                std::unique_lock<std::mutex>& lock, SignalBlock& block, const std::string& charmNotice = {}) noexcept;
  /// Recomputes the armed bits other than kArmHold. Caller holds mutex_.
  void rearmLocked() noexcept;
  /// Ends the current stop (if any) and wakes every waiting thread. Caller
  /// holds mutex_.
  void release() noexcept;
  /// Blocks while hold_ == generation (futex; async-signal-safe).
  void waitWhileHeld(std::uint32_t generation) const noexcept;
  /// Starts a stop of `kind`; returns its generation, or 0 when freeze
  /// --now stopped the rank first. Caller holds mutex_.
  std::uint32_t holdLocked(StopKind kind, std::string text) noexcept;
  /// The freeze --now handler reported its stop: publish text and event.
  void onNowStopped(Runtime& rt) noexcept;
  static void onFreezeSignal(int sig) noexcept;

  mutable std::mutex mutex_;
  BreakpointTable breakpoints_;
  bool freezePending_ = false;
  std::uint64_t stepRemaining_ = 0;
  std::string stopText_;

  /// 0 = running; else the generation of the current stop (futex word).
  std::atomic<std::uint32_t> hold_{0};
  std::atomic<std::uint32_t> generation_{0};
  std::atomic<StopKind> stopKind_{StopKind::None};
  std::atomic<bool> nowRequested_{false};
  std::atomic<bool> charmNotices_{false};
  int freezeSignal_ = 0;    ///< 0 = freeze --now unavailable
  std::string nowUnavailable_ = "the runtime is not attached";  ///< why
  int stoppedFd_ = -1;      ///< eventfd written by the signal handler
  pthread_t mainThread_{};
  bool attached_ = false;
};

}  // namespace mpidbg::rt
