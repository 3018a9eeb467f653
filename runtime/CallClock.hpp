#pragma once

// The clock of the current-call record's entry time (issue 4): the x86-64
// time-stamp counter when it is invariant (constant_tsc and nonstop_tsc), so
// a call's time stamp costs one rdtsc instead of a clock_gettime; else
// CLOCK_MONOTONIC nanoseconds. The conversion to CLOCK_MONOTONIC is exported
// in the state root (StateLayout.h root.clock_*), so outside readers of
// "call.entry_ns" can convert too.

#include <time.h>

#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace mpidbg::rt {

/// True once calibrateCallClock() chose the time-stamp counter. Written once
/// at attach, before the runtime is announced (gAttached, release).
extern bool gCallClockTsc __attribute__((visibility("hidden")));

/// Nanoseconds of CLOCK_MONOTONIC (vDSO; no system call).
inline std::int64_t monotonicNow() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/// The current time in call-clock ticks: time-stamp counter ticks, or
/// CLOCK_MONOTONIC nanoseconds when the counter is not used. Convert with
/// callClockToNs().
inline std::int64_t callClockNow() noexcept {
#if defined(__x86_64__)
  if (gCallClockTsc) [[likely]]
    return static_cast<std::int64_t>(__rdtsc());
#endif
  return monotonicNow();
}

/// Chooses the call clock and, for the time-stamp counter, measures its rate
/// against CLOCK_MONOTONIC (about 5 ms); fills the state root's clock fields.
/// Call once, at attach, before the runtime is announced. Never fails: without
/// an invariant counter (or off x86-64) the clock is CLOCK_MONOTONIC.
void calibrateCallClock() noexcept;

/// CLOCK_MONOTONIC nanoseconds of `ticks` (a callClockNow() value), by the
/// exported conversion: root.clock_ns_base + (ticks - root.clock_tick_base)
/// * root.clock_ns_per_tick_q32 / 2^32.
std::int64_t callClockToNs(std::int64_t ticks) noexcept;

}  // namespace mpidbg::rt
