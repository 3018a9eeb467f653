#pragma once

// Small helpers shared by scale_bench's modes: timing, medians, growth per
// doubling, CPU time.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace mpidbg::bench {

/// The clock every scale_bench timing uses.
using Clock = std::chrono::steady_clock;

/// `d` in milliseconds.
inline double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

/// The median of `v` (the upper one for an even count; 0 when empty).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// How much a latency grows per doubling of the job between two sizes:
/// (t2/t1)^(1/log2(n2/n1)). 1.0 is flat, 2.0 linear in the ranks. NaN when a
/// time or size is not positive or the sizes are equal.
inline double growthPerDoubling(double n1, double t1, double n2, double t2) {
  if (n1 <= 0 || n2 <= 0 || t1 <= 0 || t2 <= 0 || n1 == n2) return std::nan("");
  return std::pow(t2 / t1, 1.0 / std::log2(n2 / n1));
}

/// CPU time (user + system) of this process so far, all threads, in
/// milliseconds (getrusage RUSAGE_SELF; children are not included).
inline double processCpuMs() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto toMs = [](const timeval& t) { return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3; };
  return toMs(usage.ru_utime) + toMs(usage.ru_stime);
}

}  // namespace mpidbg::bench
