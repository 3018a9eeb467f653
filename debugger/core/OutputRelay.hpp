#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// The relay between a launched job's output and the terminal (issue 24
/// item 9). When mpidbg's stdout is a terminal, the launcher writes to pipes
/// instead of the terminal, and a relay PROCESS (a fork of mpidbg) copies
/// them to mpidbg's stdout (and stderr), so that a transient progress line
/// ("waiting for the job to stop or block... 4 s") is cleared before any job
/// output appears instead of running into it.
///
/// The relay outlives mpidbg when the job does: it runs in a process group of
/// its own (terminal Ctrl-C does not reach it), ignores SIGINT, SIGPIPE,
/// SIGHUP, SIGTERM (and SIGTTOU), keeps no descriptor but its own, and exits
/// when every job pipe reaches end of file (every writer gone). When a write
/// to the terminal fails it drains and discards, so the job never blocks on a
/// full pipe nor gets SIGPIPE.
///
/// Control protocol (a socketpair; mpidbg writes, the relay answers):
///   "show TEXT\n"  TEXT (one line, at most 4095 bytes kept) is the progress
///                  line: drawn as "\r\033[K" TEXT, without a newline, when
///                  the job's last output ended a line (else kept until it does).
///   "clear\n"      the progress line is erased ("\r\033[K") if drawn, and
///                  forgotten.
/// The relay answers each message with one byte "." once it has handled it,
/// so after the answer to "clear" the screen has no progress line and mpidbg
/// may print. On job output the relay erases a drawn progress line, copies
/// the bytes, and redraws the line only when the bytes ended with '\n'. At
/// end of file on the control socket (mpidbg exited) it forgets the progress
/// line and just copies.
class OutputRelay {
 public:
  /// Makes the job's pipes and the control socket and forks the relay.
  /// `relayStderr`: the job's stderr goes through the relay too (to mpidbg's
  /// stderr); otherwise jobStderr() is -1 and the launcher inherits stderr.
  /// Errors: "cannot make a pipe for the job's output: ...", "cannot start
  /// the output relay: ..." (nothing is left open or running then).
  static Expected<std::unique_ptr<OutputRelay>> start(bool relayStderr);
  /// Closes the control socket (the relay forgets the progress line and
  /// copies on) and any job pipe ends still held, and reaps the relay if it
  /// has ended (WNOHANG: never waits; a relay serving a job that outlives
  /// mpidbg carries on).
  ~OutputRelay();
  OutputRelay(const OutputRelay&) = delete;
  OutputRelay& operator=(const OutputRelay&) = delete;

  /// The write end to give the launcher as its stdout (close-on-exec; -1
  /// after closeJobEnds).
  int jobStdout() const { return jobOut_; }
  /// The write end for the launcher's stderr, or -1 (see start).
  int jobStderr() const { return jobErr_; }
  /// Closes mpidbg's copies of the job's write ends: call once the launcher
  /// has them (or could not start), so that the relay sees end of file when
  /// the job's last writer is gone.
  void closeJobEnds();
  /// Shows `text` (newlines become blanks) as the progress line and waits for
  /// the relay's answer. False when the relay does not answer within 2 s or
  /// is gone: the control socket is closed then, and every later call returns
  /// false (the caller writes its progress itself).
  bool show(const std::string& text);
  /// Erases the progress line and waits for the relay's answer; false as for
  /// show().
  bool clear();
  /// The relay process's id.
  pid_t pid() const { return pid_; }

 private:
  OutputRelay() = default;
  /// Sends one message and waits for its answer.
  bool send(const std::string& message);
  pid_t pid_ = -1;
  int control_ = -1;  ///< mpidbg's end of the control socketpair
  int jobOut_ = -1;
  int jobErr_ = -1;
};

}  // namespace mpidbg::core
