#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/proto/StackProtocol.hpp"

namespace mpidbg::rt {

/// In-process stack capture for merged stack trees (ccs/proto/StackProtocol.hpp,
/// handler kStacksHandler). A request signals every application thread of the
/// rank with a real-time signal (SIGRTMIN+7 by default, MPIDBG_STACK_SIGNAL=N
/// picks another in [SIGRTMIN, SIGRTMAX]); each thread's handler unwinds
/// itself with libunwind into a preallocated slot (no allocation, no locks:
/// async-signal-safe work only) and posts completion through a futex. The
/// helper thread then maps the raw pcs to modules (dl_iterate_phdr, build ids
/// from the loaded PT_NOTE segments) outside any handler.
///
/// The runtime's own helper threads (the CCS server thread and the forwarding
/// workers it starts) are never signalled: the server thread names itself
/// kHelperThreadName through markHelperThread(), threads it creates inherit the
/// name, and threads with that name are skipped. One instance per process
/// (instance()), never destroyed: signal handlers may touch it at any time.
class StackCapture {
 public:
  /// The name (/proc/self/task/TID/comm) of the runtime's helper threads.
  static constexpr std::string_view kHelperThreadName = "mpidbg-helper";
  /// Most frames recorded per thread; deeper frames set ThreadStack::truncated.
  static constexpr std::size_t kMaxFrames = 128;
  /// Most threads captured per request; threads beyond get an error entry.
  static constexpr std::size_t kMaxThreads = 256;
  /// How long one request waits for all threads together, in milliseconds.
  static constexpr int kDeadlineMs = 1000;

  /// The process-wide instance.
  static StackCapture& instance() noexcept;

  StackCapture(const StackCapture&) = delete;
  StackCapture& operator=(const StackCapture&) = delete;

  /// Sets capture up before the first capture() (the CCS handler calls it on
  /// the helper thread each time; only the first call acts): picks the
  /// signal (refusing the freeze signal `freezeSignal` and a signal the
  /// application already handles, with a log line naming `rank`), sets up
  /// libunwind, preallocates the per-thread slots, installs the handler and
  /// unblocks the signal in the calling thread. When that fails, capture()
  /// answers every thread with the reason. Thread-safe.
  void attach(std::int32_t rank, int freezeSignal) noexcept;

  /// Marks the calling thread as a runtime helper thread: names it
  /// kHelperThreadName (threads it starts later inherit the name) and
  /// remembers its tid. Never captured afterwards.
  static void markHelperThread() noexcept;

  /// Captures the stacks of all application threads (main thread first, then
  /// by tid), waiting at most kDeadlineMs overall; a thread that does not
  /// answer (it blocks the signal, or is stopped) gets ThreadStack::error and
  /// no frames. Requests are serialised. Called on the helper thread (never
  /// from a signal handler); may throw std::bad_alloc (the CCS handler turns
  /// that into an error reply).
  ccs::proto::RankStacks capture(std::int32_t worldRank);

  /// For a violation report, on an MPI thread: the calling thread's own
  /// stack (unwound in place with libunwind; its innermost frames are this
  /// function and the runtime's callers, which the front end cuts at the MPI
  /// call) followed by the application threads among `others` (tids;
  /// signalled as capture() does; others are left out). Same module mapping
  /// and errors as capture(); attach() must have been called.
  ccs::proto::RankStacks captureSelfAnd(std::int32_t worldRank, const std::vector<std::int32_t>& others);

  /// The stack signal, or 0 when capture is unavailable.
  int signal() const noexcept { return signal_; }

 private:
  StackCapture() = default;
  /// capture() and captureSelfAnd(): the application threads (only those in
  /// `only` when given), and the calling thread first when `self`.
  ccs::proto::RankStacks captureTargets(std::int32_t worldRank, const std::vector<std::int32_t>* only, bool self);

  int signal_ = 0;
  bool attached_ = false;
  std::string unavailable_ = "the runtime did not set up stack capture";
  std::mutex mutex_;  ///< one capture at a time
  std::uint64_t generation_ = 0;
};

}  // namespace mpidbg::rt
