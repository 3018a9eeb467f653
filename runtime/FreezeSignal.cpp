// The stop itself: futex waits that are async-signal-safe, freeze (at the
// next safe point, or at once through a real-time signal to the thread that
// called MPI_Init), and the reporting of a freeze --now stop.
//
// Signal choice: SIGRTMIN+6 (signal 40 with glibc, whose SIGRTMIN is 34 after
// the two it keeps for itself). MPICH and Hydra use no real-time signal;
// MPIDBG_FREEZE_SIGNAL=N picks another one in [SIGRTMIN, SIGRTMAX]. If the
// application already handles the chosen signal, freeze --now is unavailable
// (and answered with an error) rather than taking it away.
#include <linux/futex.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "Control.hpp"
#include "Runtime.hpp"
#include "ccs/transport/Server.hpp"

namespace mpidbg::rt {

namespace proto = ccs::proto;

namespace {

/// Offset of the default freeze signal from SIGRTMIN.
constexpr int kFreezeSignalOffset = 6;
/// A waiter re-checks its word at least this often (a lost wake-up costs at
/// most this much).
constexpr long kWaitSliceNs = 100'000'000;

std::uint32_t* futexWord(const std::atomic<std::uint32_t>& word) noexcept {
  return reinterpret_cast<std::uint32_t*>(const_cast<std::atomic<std::uint32_t>*>(&word));
}

}  // namespace

SignalBlock::SignalBlock(int sig) noexcept : sig_(sig) {
  if (sig_ == 0) return;
  sigset_t set;
  sigset_t previous;
  sigemptyset(&set);
  sigaddset(&set, sig_);
  if (::pthread_sigmask(SIG_BLOCK, &set, &previous) != 0) {
    sig_ = 0;
    return;
  }
  wasBlocked_ = sigismember(&previous, sig_) == 1;
}

void SignalBlock::release() noexcept {
  if (sig_ == 0) return;
  if (!wasBlocked_) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig_);
    ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  }
  sig_ = 0;
}

void Control::waitWhileHeld(std::uint32_t generation) const noexcept {
  if (generation == 0) return;
  const int savedErrno = errno;
  while (hold_.load(std::memory_order_acquire) == generation) {
    timespec slice{0, kWaitSliceNs};
    ::syscall(SYS_futex, futexWord(hold_), FUTEX_WAIT_PRIVATE, generation, &slice, nullptr, 0);
  }
  errno = savedErrno;
}

void Control::release() noexcept {
  stopText_.clear();
  stopKind_.store(StopKind::None, std::memory_order_relaxed);
  hold_.store(0, std::memory_order_release);
  changeArmed(0, ~static_cast<unsigned int>(kArmHold));
  ::syscall(SYS_futex, futexWord(hold_), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

std::uint32_t Control::holdLocked(StopKind kind, std::string text) noexcept {
  std::uint32_t generation = generation_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (generation == 0) generation = generation_.fetch_add(1, std::memory_order_relaxed) + 1;
  std::uint32_t expected = 0;
  if (!hold_.compare_exchange_strong(expected, generation, std::memory_order_acq_rel)) return 0;
  stopText_ = std::move(text);
  stopKind_.store(kind, std::memory_order_relaxed);
  changeArmed(kArmHold);
  return generation;
}

void Control::onFreezeSignal(int) noexcept {
  // Async-signal-safe only: atomics, write(2), futex(2).
  Control& c = instance();
  if (!c.nowRequested_.exchange(false, std::memory_order_acq_rel)) return;  // stray or cancelled
  const int savedErrno = errno;
  std::uint32_t held = c.hold_.load(std::memory_order_acquire);
  if (held == 0) {
    std::uint32_t generation = c.generation_.fetch_add(1, std::memory_order_relaxed) + 1;
    if (generation == 0) generation = c.generation_.fetch_add(1, std::memory_order_relaxed) + 1;
    std::uint32_t expected = 0;
    if (c.hold_.compare_exchange_strong(expected, generation, std::memory_order_acq_rel)) {
      c.stopKind_.store(StopKind::Now, std::memory_order_relaxed);
      changeArmed(kArmHold);
      const std::uint64_t one = 1;
      if (c.stoppedFd_ >= 0) (void)!::write(c.stoppedFd_, &one, sizeof one);
      held = generation;
    } else {
      held = expected;
    }
  }
  errno = savedErrno;
  c.waitWhileHeld(held);
}

void Control::attach(Runtime& rt, ccs::Server& server) noexcept {
  if (attached_) return;
  attached_ = true;
  mainThread_ = ::pthread_self();
  int sig = SIGRTMIN + kFreezeSignalOffset;
  if (const char* chosen = std::getenv("MPIDBG_FREEZE_SIGNAL"); chosen && *chosen) {
    char* end = nullptr;
    const long n = std::strtol(chosen, &end, 10);
    if (*end == '\0' && n >= SIGRTMIN && n <= SIGRTMAX) sig = static_cast<int>(n);
    else std::fprintf(stderr, "mpidbg-rt: rank %d: ignoring MPIDBG_FREEZE_SIGNAL=%s (want %d..%d)\n", rt.rank(),
                      chosen, SIGRTMIN, SIGRTMAX);
  }
  struct sigaction previous {};
  ::sigaction(sig, nullptr, &previous);
  const bool inUse = (previous.sa_flags & SA_SIGINFO) ? previous.sa_sigaction != nullptr
                                                       : previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN;
  if (inUse) {
    nowUnavailable_ = "signal " + std::to_string(sig) + " (freeze --now) is handled by the application; "
                      "set MPIDBG_FREEZE_SIGNAL to a free real-time signal";
    std::fprintf(stderr, "mpidbg-rt: rank %d: %s\n", rt.rank(), nowUnavailable_.c_str());
    return;
  }
  stoppedFd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (stoppedFd_ < 0) {
    nowUnavailable_ = std::string("cannot create an eventfd: ") + std::strerror(errno);
    return;
  }
  struct sigaction action {};
  action.sa_handler = [](int s) { onFreezeSignal(s); };
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (::sigaction(sig, &action, nullptr) != 0) {
    nowUnavailable_ = "cannot install the freeze signal handler: " + std::string(std::strerror(errno));
    return;
  }
  sigset_t mine;
  sigemptyset(&mine);
  sigaddset(&mine, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &mine, nullptr);
  freezeSignal_ = sig;
  nowUnavailable_.clear();
  Runtime* runtime = &rt;
  server.watch(stoppedFd_, [this, runtime](short) { onNowStopped(*runtime); });
}

proto::ControlReply Control::freeze(bool now, bool alreadyStopped) {
  if (alreadyStopped || stopped()) return {true, "already stopped"};
  if (!now) {
    std::lock_guard lock(mutex_);
    freezePending_ = true;
    rearmLocked();
    return {true, {}};
  }
  if (freezeSignal_ == 0) return {false, "freeze --now is not available in this rank: " + nowUnavailable_};
  nowRequested_.store(true, std::memory_order_release);
  if (const int rc = ::pthread_kill(mainThread_, freezeSignal_); rc != 0) {
    nowRequested_.store(false, std::memory_order_relaxed);
    return {false, "cannot signal the rank's main thread: " + std::string(std::strerror(rc))};
  }
  return {true, {}};
}

void Control::onNowStopped(Runtime& rt) noexcept {
  std::uint64_t count = 0;
  while (::read(stoppedFd_, &count, sizeof count) > 0) {
  }
  try {
    proto::Event event;
    {
      std::lock_guard lock(mutex_);
      if (!stopped() || stopKind_.load() != StopKind::Now || !stopText_.empty()) return;
      if (const auto call = rt.currentCall().read()) {
        const std::string described =
            describeSafePoint(rt, call->function, {}, argsOfRecord(rt, *call), call->collCall);
        event.where = described + " (freeze --now)";
        stopText_ = "frozen (--now) in " + described;
      } else {
        event.where = "application code (freeze --now)";
        stopText_ = "frozen (--now) in application code";
      }
      // Numbered like the other stops, so that a front end knows which stop
      // the event is (a status showed the number already).
      event.stop = hold_.load(std::memory_order_acquire);
    }
    event.kind = proto::Event::Kind::Stopped;
    event.text = "freeze --now";
    rt.events().send(rt.rank(), event);
  } catch (...) {
    // Out of memory: the rank stays frozen; status says "frozen (--now)".
  }
}

}  // namespace mpidbg::rt
