#pragma once

// The common practice stacks_bench compares `where` with: one
// `gdb -nx -q -batch -p PID -ex bt` per rank, run one after the other or a
// few at a time, each waited for.

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace mpidbg::bench {

/// One gdb run against one process.
struct GdbRun {
  pid_t pid = 0;
  double seconds = 0;     ///< wall time from spawn to reaped exit
  bool sawFrame = false;  ///< its standard output has a line starting with "#0"
  std::string error;      ///< why it could not run or exited badly; empty when fine
};

/// Several gdb runs and the wall time they took together.
struct GdbPass {
  double seconds = 0;        ///< wall time of the whole pass
  std::vector<GdbRun> runs;  ///< one per pid, in the order given
  /// Number of runs without error that printed frame #0.
  std::size_t good() const;
};

/// Runs `gdb -nx -q -batch -p PID -ex bt` once for `pid` (gdb found on PATH,
/// standard input and error on /dev/null, standard output captured in an
/// anonymous memory file and checked for "#0"). Waits for that child only
/// (waitpid on its pid), so other children of this process are not reaped.
/// Never throws for a failing gdb: the reason is in GdbRun::error.
GdbRun runGdbBacktrace(pid_t pid);

/// runGdbBacktrace for every pid of `pids`, at most `parallel` (>= 1) at a
/// time: worker threads each take the next pid until none is left.
GdbPass runGdbPass(const std::vector<pid_t>& pids, int parallel);

}  // namespace mpidbg::bench
