// The call clock (see CallClock.hpp).
#include "CallClock.hpp"

#include <cstdio>
#include <cstring>

#include "ExportedState.hpp"

namespace mpidbg::rt {

bool gCallClockTsc = false;

namespace {

/// True when /proc/cpuinfo's first "flags" line lists both constant_tsc and
/// nonstop_tsc (the counter runs at one rate in every P- and C-state).
bool invariantTsc() noexcept {
  std::FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (!f) return false;
  char line[8192];
  bool invariant = false;
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "flags", 5) != 0) continue;
    invariant = std::strstr(line, " constant_tsc") && std::strstr(line, " nonstop_tsc");
    break;
  }
  std::fclose(f);
  return invariant;
}

/// Spin time of the calibration, nanoseconds.
constexpr std::int64_t kCalibrationNs = 5'000'000;

}  // namespace

void calibrateCallClock() noexcept {
  StateRoot& root = stateRoot();
  root.clockTickBase = 0;
  root.clockNsBase = 0;
  root.clockNsPerTickQ32 = std::uint64_t{1} << 32;
#if defined(__x86_64__)
  if (!invariantTsc()) return;
  const std::int64_t ns0 = monotonicNow();
  const std::uint64_t tick0 = __rdtsc();
  std::int64_t ns1 = ns0;
  std::uint64_t tick1 = tick0;
  while (ns1 - ns0 < kCalibrationNs) {
    ns1 = monotonicNow();
    tick1 = __rdtsc();
  }
  if (tick1 <= tick0) return;
  const auto q32 = static_cast<std::uint64_t>((static_cast<unsigned __int128>(ns1 - ns0) << 32) / (tick1 - tick0));
  if (q32 == 0) return;
  root.clockTickBase = static_cast<std::int64_t>(tick1);
  root.clockNsBase = ns1;
  root.clockNsPerTickQ32 = q32;
  gCallClockTsc = true;
#endif
}

std::int64_t callClockToNs(std::int64_t ticks) noexcept {
  const StateRoot& root = stateRoot();
  const __int128 delta = static_cast<__int128>(ticks) - root.clockTickBase;
  return root.clockNsBase + static_cast<std::int64_t>((delta * static_cast<__int128>(root.clockNsPerTickQ32)) >> 32);
}

}  // namespace mpidbg::rt
