#pragma once

#include <chrono>
#include <cstddef>
#include <expected>
#include <string>

namespace mpidbg::gdbmi {

/// Reads newline-terminated lines from a child's non-blocking stdout with
/// poll(), never blocking past a deadline, while draining its stderr into a
/// bounded tail (so the child never stalls on a full stderr pipe). Does not
/// own the descriptors. One thread at a time.
class LineReader {
 public:
  /// Why readLine() returned no line.
  enum class Failure {
    Timeout,  ///< The deadline passed; buffered partial data is kept.
    Closed,   ///< End of file (or a read error) on stdout: the child is gone.
  };
  using Clock = std::chrono::steady_clock;

  /// Longest line kept whole; longer lines are returned in pieces of this size.
  static constexpr std::size_t kMaxLine = 64u << 20;
  /// Bytes of stderr kept (the most recent ones).
  static constexpr std::size_t kStderrTail = 4096;

  /// Reads from `outFd` (lines) and `errFd` (tail only; -1 for none).
  LineReader(int outFd, int errFd) : outFd_(outFd), errFd_(errFd) {}

  /// The next line without its "\n" (a final unterminated line is returned
  /// at end of file), or Failure::Timeout once `deadline` passes, or
  /// Failure::Closed at end of file with nothing left buffered.
  std::expected<std::string, Failure> readLine(Clock::time_point deadline);
  /// The last kStderrTail bytes the child wrote to stderr.
  const std::string& stderrTail() const { return stderr_; }

 private:
  bool takeLine(std::string& line);
  void drainStderr();

  int outFd_;
  int errFd_;
  bool outClosed_ = false;
  std::string buffer_;
  std::size_t scanned_ = 0;
  std::string stderr_;
};

}  // namespace mpidbg::gdbmi
