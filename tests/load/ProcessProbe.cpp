// /proc/PID/fd and /proc/PID/status of a server under load.
#include "ProcessProbe.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace mpidbg::load {

Expected<ProcessSample> sampleProcess(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid);
  ProcessSample sample;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir + "/fd", ec);
  if (ec) return fail("cannot list " + dir + "/fd: " + ec.message());
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return fail("cannot list " + dir + "/fd: " + ec.message());
    ++sample.fds;
  }
  std::ifstream status(dir + "/status");
  if (!status) return fail("cannot read " + dir + "/status: " + std::strerror(errno));
  for (std::string line; std::getline(status, line);) {
    if (!line.starts_with("VmRSS:")) continue;
    sample.rssKiB = std::strtoull(line.c_str() + 6, nullptr, 10);  // "VmRSS:   1234 kB"
    return sample;
  }
  return fail(dir + "/status has no VmRSS line (a zombie?)");
}

Expected<ProcessSample> sampleWhenSettled(pid_t pid, std::optional<std::size_t> target,
                                          std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  auto last = sampleProcess(pid);
  if (!last) return last;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto next = sampleProcess(pid);
    if (!next) return next;
    const bool settled =
        target ? next->fds <= *target && last->fds <= *target : next->fds == last->fds;
    last = next;
    if (settled || std::chrono::steady_clock::now() >= deadline) return last;
  }
}

}  // namespace mpidbg::load
