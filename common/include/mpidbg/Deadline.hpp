#pragma once

#include <algorithm>
#include <chrono>

namespace mpidbg {

/// The time from now until `deadline` on the steady clock, in whole
/// milliseconds, never negative: 0 once the deadline has passed.
inline std::chrono::milliseconds timeLeft(std::chrono::steady_clock::time_point deadline) {
  return std::max(std::chrono::milliseconds(0),
                  std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
}

}  // namespace mpidbg
