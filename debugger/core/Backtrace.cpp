#include "debugger/core/Backtrace.hpp"

#include <poll.h>
#include <unistd.h>

#include "debugger/gdbmi/ChildProcess.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::core {

std::vector<std::string> parseBacktrace(std::string_view text) {
  std::vector<std::string> frames;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.size() < 2 || line[0] != '#') continue;
    std::size_t i = 1;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
    if (i == 1) continue;
    line = trim(line.substr(i));
    // "0x00007f... in func (...) at file:line": drop the program counter.
    if (line.starts_with("0x")) {
      const std::size_t in = line.find(" in ");
      if (in == std::string_view::npos) continue;
      line = trim(line.substr(in + 4));
    }
    if (!line.empty()) frames.emplace_back(line);
  }
  return frames;
}

Expected<std::vector<std::string>> oneShotBacktrace(const std::string& gdbPath, pid_t pid, int depth,
                                                    std::chrono::milliseconds timeout) {
  auto child = gdbmi::ChildProcess::spawn(
      {gdbPath, "-nx", "-q", "-batch", "-p", std::to_string(pid), "-ex", "bt " + std::to_string(depth)}, "gdb");
  if (!child) return std::unexpected(child.error());
  std::string out, err;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool outOpen = true, errOpen = true;
  while (outOpen || errOpen) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      child->kill();
      return fail("gdb did not print a backtrace of pid " + std::to_string(pid) + " within " +
                  std::to_string(timeout.count() / 1000) + " s");
    }
    pollfd fds[2] = {{outOpen ? child->stdoutFd() : -1, POLLIN, 0}, {errOpen ? child->stderrFd() : -1, POLLIN, 0}};
    if (::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 200))) < 0) continue;
    char buf[4096];
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? out : err).append(buf, static_cast<std::size_t>(n));
      } else if (n == 0) {
        (i == 0 ? outOpen : errOpen) = false;
      }
    }
  }
  child->waitExit(std::chrono::milliseconds(2000));
  auto frames = parseBacktrace(out);
  if (frames.empty()) {
    std::string why = std::string(trim(err));
    if (const std::size_t nl = why.rfind('\n'); nl != std::string::npos) why = why.substr(nl + 1);
    return fail("gdb printed no frame for pid " + std::to_string(pid) + (why.empty() ? "" : ": " + why));
  }
  return frames;
}

}  // namespace mpidbg::core
