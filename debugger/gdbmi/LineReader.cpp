#include "debugger/gdbmi/LineReader.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace mpidbg::gdbmi {

bool LineReader::takeLine(std::string& line) {
  const std::size_t nl = buffer_.find('\n', scanned_);
  if (nl == std::string::npos) {
    scanned_ = buffer_.size();
    if (buffer_.size() < kMaxLine && !(outClosed_ && !buffer_.empty())) return false;
    const std::size_t take = std::min(buffer_.size(), kMaxLine);
    line = buffer_.substr(0, take);
    buffer_.erase(0, take);
    scanned_ = 0;
    return true;
  }
  line = buffer_.substr(0, nl);
  buffer_.erase(0, nl + 1);
  scanned_ = 0;
  return true;
}

void LineReader::drainStderr() {
  if (errFd_ < 0) return;
  char chunk[4096];
  while (true) {
    const ssize_t n = ::read(errFd_, chunk, sizeof chunk);
    if (n > 0) {
      stderr_.append(chunk, static_cast<std::size_t>(n));
      if (stderr_.size() > kStderrTail) stderr_.erase(0, stderr_.size() - kStderrTail);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errFd_ = -1;  // closed: stop polling it
    return;
  }
}

std::expected<std::string, LineReader::Failure> LineReader::readLine(Clock::time_point deadline) {
  std::string line;
  while (true) {
    if (takeLine(line)) return line;
    if (outClosed_) return std::unexpected(Failure::Closed);
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      // One last non-blocking look, so a zero timeout still sees ready data.
      pollfd p{outFd_, POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0) return std::unexpected(Failure::Timeout);
    } else {
      pollfd fds[2] = {{outFd_, POLLIN, 0}, {errFd_, POLLIN, 0}};
      const int rc =
          ::poll(fds, errFd_ >= 0 ? 2 : 1, static_cast<int>(std::min<long long>(left, 1000)));
      if (rc < 0 && errno != EINTR) {
        outClosed_ = true;
        continue;
      }
      if (errFd_ >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) drainStderr();
      if (rc <= 0 || !(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    }
    char chunk[65536];
    const ssize_t n = ::read(outFd_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
    } else if (n == 0) {
      drainStderr();
      outClosed_ = true;
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      outClosed_ = true;
    }
  }
}

}  // namespace mpidbg::gdbmi
