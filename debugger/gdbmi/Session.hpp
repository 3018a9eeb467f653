#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debugger/gdbmi/ChildProcess.hpp"
#include "debugger/gdbmi/LineReader.hpp"
#include "debugger/gdbmi/Record.hpp"
#include "debugger/gdbmi/Reply.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::gdbmi {

/// How to start gdb for a Session.
struct SessionOptions {
  /// The gdb executable; searched in PATH when it has no '/'.
  std::string gdbPath = "gdb";
  /// Extra arguments after `--interpreter=mi3 -nx -q`.
  std::vector<std::string> extraArgs;
  /// Bound for the first `(gdb)` prompt and for each setup command.
  std::chrono::milliseconds startTimeout{10000};
};

/// One `gdb --interpreter=mi3 -nx -q` child process driven over MI.
/// Owns the process: the destructor sends -gdb-exit (which detaches from an
/// attached process), waits briefly, then SIGKILLs and reaps gdb. Every call
/// is bounded by its timeout. Not thread-safe: one thread drives a session
/// at a time (different sessions may be driven concurrently).
class Session {
 public:
  /// Starts gdb in its own process group, waits for its first prompt, and
  /// sets pagination off, confirm off, width 0, height 0 and (if this gdb
  /// knows it) debuginfod off. Errors: "cannot start gdb <path>: <strerror>"
  /// when gdb cannot be executed; "gdb exited (status N) ..." / timeouts
  /// when it does not come up; a setup command's ^error message.
  static Expected<std::unique_ptr<Session>> start(const SessionOptions& options = {});

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  /// Sends `miCommand` (an MI command such as "-stack-list-frames", without
  /// token or newline) with a fresh numeric token and reads until the result
  /// record with that token, collecting stream text and async records. An
  /// ^error is a Reply (isError()); Error only for a command containing a
  /// newline, a write failure, `timeout` passing ("gdb did not answer ...
  /// within N ms"; a late answer is skipped later), or gdb exiting ("gdb
  /// exited (status N)", "gdb killed by signal N"), after which every call
  /// fails with that message.
  Expected<Reply> command(std::string_view miCommand, std::chrono::milliseconds timeout);

  /// Runs a CLI command through `-interpreter-exec console "<cmd>"` and
  /// returns its console stream text ("" if it printed nothing). ^error ->
  /// Error with gdb's message; otherwise as command().
  Expected<std::string> console(std::string_view cliCommand, std::chrono::milliseconds timeout);

  /// Ends the text of consoleUntilStopped() when it interrupted the target.
  static constexpr std::string_view kInterruptedNote = "mpidbg interrupted it";
  /// Like console(), for a command that may set the target running
  /// (`continue`, `next`, `step`, `finish`, `until`, ...): when gdb answers
  /// ^running, also waits up to `runTimeout` for the target to stop again and
  /// returns the console text of the command and of the stop together
  /// ("Continuing.\n\nThread 1 hit Breakpoint 1, ..."), so nothing of it is
  /// left for a later command. A target still running after `runTimeout` is
  /// interrupted (SIGINT to the main thread of the attached process on this
  /// host, as gdb's Ctrl-C) and the text ends with a line saying so; Error "still running
  /// after N ms" when it cannot be (a target behind a gdbserver) or does not
  /// stop within 5 s of the interrupt.
  Expected<std::string> consoleUntilStopped(std::string_view cliCommand, std::chrono::milliseconds timeout,
                                            std::chrono::milliseconds runTimeout);

  /// `-target-attach PID`, then waits (within the same `timeout`) for the
  /// `*stopped` record so the target is stopped and ready for commands.
  /// Error "cannot attach to pid N: <gdb's message>" (e.g. "ptrace: No such
  /// process.") on ^error.
  Expected<void> attach(pid_t pid, std::chrono::milliseconds timeout);

  /// `-target-select extended-remote HOST:PORT` (an IPv6 HOST is bracketed):
  /// connects this gdb to a gdbserver, e.g. one started with `--multi` by a
  /// rank's runtime (ccs/proto/GdbServerProtocol.hpp), so that attach(pid) then
  /// attaches through it. Waits for ^connected within `timeout`; when that
  /// gdbserver already debugs a process (started with `--attach`), also waits
  /// (same `timeout`) for the `*stopped` record of that process. Error
  /// "cannot connect to gdbserver at HOST:PORT: <gdb's message>" (e.g.
  /// "Connection refused.") on ^error, a timeout or gdb exiting.
  Expected<void> connectRemote(const std::string& host, std::uint16_t port,
                               std::chrono::milliseconds timeout);

  /// `-target-detach`: lets the attached process run on. Error carries
  /// gdb's message on ^error.
  Expected<void> detach(std::chrono::milliseconds timeout);

  /// Returns the first unconsumed exec/status/notify async record with class
  /// `asyncClass` (e.g. "stopped"), reading more output for up to `timeout`.
  /// Records read meanwhile stay queued for takeEvents() / the next Reply.
  Expected<Record> waitForAsync(std::string_view asyncClass, std::chrono::milliseconds timeout);

  /// Async records that arrived outside any command and were not consumed by
  /// waitForAsync(); clears the queue. (command() also hands them over in
  /// Reply::asyncs, first.)
  std::vector<Record> takeEvents();

  /// True while the gdb process has not exited (non-blocking waitpid).
  bool alive();
  /// Why gdb ended ("gdb killed by signal 9", "gdb exited with status 1: <its
  /// last stderr line>"); call only once alive() is false. Reaps gdb if needed.
  Error exitReason() { return gdbGone(); }
  /// gdb's process id (also its process group id).
  pid_t gdbPid() const { return gdb_.pid(); }
  /// The pid attached by attach(), until detach().
  std::optional<pid_t> attachedPid() const { return attached_; }
  /// True when the last exec record seen was `*stopped` (target halted).
  bool targetStopped() const { return stopped_; }
  /// True when an attached target was last seen `*running`.
  bool targetRunning() const { return attached_.has_value() && !stopped_; }
  /// The most recent stderr output of gdb (bounded), for diagnostics.
  const std::string& stderrTail() const { return reader_.stderrTail(); }

 private:
  explicit Session(ChildProcess gdb);
  Expected<Record> readRecord(LineReader::Clock::time_point deadline,
                              std::string_view timeoutMessage);
  void noteAsync(const Record& record);
  Error gdbGone();

  ChildProcess gdb_;
  LineReader reader_;
  std::uint64_t nextToken_ = 1;
  std::optional<std::string> deadMessage_;
  std::vector<Record> events_;
  /// `-interpreter-exec console CLI-COMMAND`; an ^error becomes an Error
  /// with gdb's message (console() and consoleUntilStopped()).
  Expected<Reply> consoleReply(std::string_view cliCommand, std::chrono::milliseconds timeout);
  /// Reads until the next `*stopped` record or `deadline`, appending
  /// console text to `text`; false on the deadline, Error when gdb is gone.
  Expected<bool> readUntilStopped(LineReader::Clock::time_point deadline, std::string& text);

  std::optional<pid_t> attached_;
  bool stopped_ = false;
  /// connectRemote() succeeded: attached_ is a pid on the gdbserver's host.
  bool remote_ = false;
};

}  // namespace mpidbg::gdbmi
