#pragma once

// The memory baseline of scale_bench: the same MPI job started by the
// launcher alone, with no runtime preloaded and no debugger.
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::bench {

/// A job started as `argv` (e.g. {"mpiexec.mpich", "-n", "16", PROGRAM}) in
/// its own process group, with LD_PRELOAD and every MPIDBG_* variable removed
/// from the environment. Owns the job: the destructor kills the process group
/// and every rank found, then reaps the launcher. Move-only in effect (held
/// by unique_ptr; copying is deleted).
class PlainJob {
 public:
  /// Starts the launcher. Errors: it could not be spawned.
  static Expected<std::unique_ptr<PlainJob>> start(const std::vector<std::string>& argv);
  ~PlainJob();
  PlainJob(const PlainJob&) = delete;
  PlainJob& operator=(const PlainJob&) = delete;

  /// Waits until `count` processes whose command name is `name` (the first
  /// 15 bytes, as /proc/PID/comm holds it) descend from the launcher and have
  /// reached a steady state: over the last `window` every one of them used
  /// CPU (an MPICH rank blocked in MPI busy-polls; one still in the PMI
  /// exchange of MPI_Init sleeps) and their total VmRSS moved by under 1 %.
  /// Returns their pids. Errors: the launcher ended, or `timeout` passed
  /// (saying how many were found).
  Expected<std::vector<pid_t>> waitSteady(std::string_view name, std::size_t count,
                                          std::chrono::milliseconds window,
                                          std::chrono::milliseconds timeout);

 private:
  explicit PlainJob(pid_t launcher) : launcher_(launcher) {}
  pid_t launcher_;
  bool reaped_ = false;  ///< the launcher was waited for already
  std::vector<pid_t> ranks_;
};

/// Pids of the descendants of `root` whose /proc/PID/comm is `name`
/// (truncated to 15 bytes like the kernel does), from one scan of /proc.
std::vector<pid_t> descendantsNamed(pid_t root, std::string_view name);

}  // namespace mpidbg::bench
