#pragma once

#include <atomic>
#include <deque>
#include <mutex>
#include <string>

namespace mpidbg::cli {

/// Where the debugger's text goes. Results go to stdout, errors to stderr as
/// "error: ...". Asynchronous notices (from the event thread) are queued and
/// printed by the main thread between commands, during waits, and at the
/// prompt, so they never tear a line the user is typing.
class Console {
 public:
  /// Prints `text` to stdout (adding a newline when missing).
  void print(const std::string& text);
  /// Prints "error: <message>" to stderr.
  void error(const std::string& message);
  /// Queues a notice; thread-safe.
  void notice(const std::string& line);
  /// Prints queued notices to stdout; returns how many. Main thread only.
  int drainNotices();
  /// True when notices are waiting.
  bool hasNotices() const;
  /// Transient progress on a terminal (rewritten in place); nothing otherwise.
  void progress(const std::string& line);
  /// Clears a progress line, if one is shown.
  void endProgress();
  /// True when stdout is a terminal.
  bool interactive() const;

 private:
  mutable std::mutex mutex_;
  std::deque<std::string> notices_;
  bool progressShown_ = false;
};

/// Set by the SIGINT handler; commands that wait poll it and give up.
extern std::atomic<bool> g_interrupted;

/// Installs the SIGINT handler that sets g_interrupted (Ctrl-C interrupts a
/// waiting command, never the debugger) and ignores SIGPIPE.
void installSignalHandlers();

}  // namespace mpidbg::cli
