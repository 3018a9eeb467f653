#pragma once

// The resources of a server process as /proc shows them (proc(5)).

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <optional>

#include "mpidbg/Error.hpp"

namespace mpidbg::load {

/// One look at a process.
struct ProcessSample {
  /// Entries of /proc/PID/fd: every open descriptor, sockets included.
  std::size_t fds = 0;
  /// Resident set size, the VmRSS line of /proc/PID/status, in KiB.
  std::size_t rssKiB = 0;
};

/// Reads /proc/PID/fd and /proc/PID/status. Errors: the process is gone or
/// not ours to read (EACCES), or the status file has no VmRSS line.
Expected<ProcessSample> sampleProcess(pid_t pid);

/// Samples `pid` every 50 ms until its fd count is `target` or lower and
/// stayed there for two samples, or `wait` passed; returns the last sample.
/// With no target, until two samples in a row agree. Errors: as sampleProcess.
Expected<ProcessSample> sampleWhenSettled(pid_t pid, std::optional<std::size_t> target,
                                          std::chrono::milliseconds wait);

}  // namespace mpidbg::load
