// Handing a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) on from
// one of the runtime's hooks (EventChannel.cpp reports it to the front end,
// Record.cpp flushes the decision log) to the disposition the hook replaced,
// so that the application's or the MPI library's handler, or the default
// action, sees the signal as it came.
#pragma once

#include <array>
#include <csignal>

namespace mpidbg::rt {

/// The signals both hooks catch, the ones that end a process by default
/// after a fault or abort().
inline constexpr std::array<int, 5> kFatalSignals{SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

/// Restores `previous` as the disposition of `sig` and hands the signal on
/// to it; async-signal-safe; call last in an SA_SIGINFO handler.
///
/// A fault of the instruction itself (`info->si_code` > 0: the kernel's
/// SEGV_MAPERR, BUS_ADRALN, FPE_INTDIV, ILL_ILLOPC, ...) is not sent again:
/// the handler returns, the instruction runs again and faults again, and
/// the previous disposition gets the kernel's own siginfo (fault address,
/// code). Any other signal (abort()'s SI_TKILL, kill(2)'s SI_USER, a
/// sigqueue) is queued to the calling thread again with the same siginfo
/// (rt_tgsigqueueinfo(2)), or raised plainly where the kernel refuses that;
/// it is blocked until the handler returns, so the previous disposition
/// runs right after. Re-raising every signal plainly made a SIGSEGV arrive
/// at the next handler as SI_TKILL from our own pid: Open MPI printed
/// "Signal code: (-6)" and no failing address.
void passOnFatalSignal(int sig, const siginfo_t* info, const struct sigaction& previous) noexcept;

}  // namespace mpidbg::rt
