#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mpidbg/ScopedFd.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::gdbmi {

/// A child process with its stdin, stdout and stderr connected to the parent,
/// in its own process group (so a terminal Ctrl-C does not reach it).
/// Owns the process: the destructor SIGKILLs it if still running and reaps
/// it. Move-only. Not thread-safe; one owner drives it.
class ChildProcess {
 public:
  /// Starts `argv[0]` (searched in PATH when it has no '/') with `argv`.
  /// `name` is what messages call the program (e.g. "gdb").
  /// Its stdin is a stream socket (so writes never raise SIGPIPE), its
  /// stdout and stderr are pipes; the parent ends are close-on-exec and
  /// stdout/stderr are non-blocking. Error "cannot start <name>: <strerror>"
  /// when the program cannot be executed (e.g. not found) or argv is empty.
  static Expected<ChildProcess> spawn(const std::vector<std::string>& argv, std::string_view name);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  /// SIGKILLs and reaps the child if it has not been reaped yet.
  ~ChildProcess();

  /// The child's pid (also its process group id); -1 after a move.
  pid_t pid() const { return pid_; }
  /// Parent's end of the child's stdin (write with writeAll()).
  int stdinFd() const { return in_.get(); }
  /// Parent's end of the child's stdout (non-blocking).
  int stdoutFd() const { return out_.get(); }
  /// Parent's end of the child's stderr (non-blocking).
  int stderrFd() const { return err_.get(); }

  /// Writes all of `data` to the child's stdin, waiting at most `timeout`
  /// for buffer space. Error with strerror (e.g. "Broken pipe") or a
  /// timeout message; never raises SIGPIPE.
  Expected<void> writeAll(std::string_view data, std::chrono::milliseconds timeout);
  /// What a child printed until it closed stdout and stderr, or until the
  /// timeout.
  struct Output {
    std::string out;
    std::string err;
    bool timedOut = false;  ///< the timeout came first (the child is left as it is)
  };
  /// Reads the child's stdout and stderr until both reach end of file, for
  /// at most `timeout`. For short-lived helpers (a one-shot gdb, scontrol).
  Output readToEnd(std::chrono::milliseconds timeout);

  /// True while the child has not exited (reaps it with WNOHANG if it has).
  bool running();
  /// Waits up to `timeout` for the child to exit; true once it is reaped.
  bool waitExit(std::chrono::milliseconds timeout);
  /// SIGKILLs the child (if running) and reaps it. Idempotent.
  void kill();
  /// "exited (status N)", "killed by signal N" or "still running".
  std::string describeExit() const;
  /// The raw waitpid status once reaped.
  std::optional<int> exitStatus() const { return status_; }

 private:
  ChildProcess() = default;
  bool reap(bool block);

  pid_t pid_ = -1;
  std::optional<int> status_;
  bool reaped_ = false;
  ScopedFd in_;
  ScopedFd out_;
  ScopedFd err_;
};

}  // namespace mpidbg::gdbmi
