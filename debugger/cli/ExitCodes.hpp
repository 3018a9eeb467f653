#pragma once

namespace mpidbg::cli {

/// mpidbg's exit codes (docs/commands.md, "Exit codes"). Otherwise, when the
/// job ran to its end by itself and every command succeeded, the launcher's
/// own exit code is passed through (0 for a job that succeeded).
enum ExitCode : int {
  kExitOk = 0,
  /// A command failed (unknown command, bad rank set, gdb could not attach...).
  kExitCommandFailed = 65,
  /// Bad mpidbg options or no launcher command (EX_USAGE).
  kExitUsage = 64,
  /// The job could not be started or never registered (EX_UNAVAILABLE).
  kExitLaunchFailed = 69,
  /// --hang-timeout: no rank made MPI progress for the timeout; the report was
  /// written and the job killed. 124 is what timeout(1) returns when its
  /// command timed out, which CI tools already read as "timed out". A job
  /// that itself exits 124 is told apart by the report (and the stderr line).
  kExitHang = 124,
  /// --hang-timeout: interrupted with Ctrl-C (128 + SIGINT); the job was
  /// killed, no report written.
  kExitInterrupted = 130,
};

}  // namespace mpidbg::cli
