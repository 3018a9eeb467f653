#include "GdbBaseline.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "mpidbg/ScopedFd.hpp"

extern char** environ;

namespace mpidbg::bench {

namespace {

using Clock = std::chrono::steady_clock;

/// `d` in seconds.
double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

/// Everything written to `fd` (a memfd), read from offset 0.
std::string readAll(int fd) {
  std::string text;
  char buffer[4096];
  for (off_t at = 0;;) {
    const ssize_t got = ::pread(fd, buffer, sizeof buffer, at);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    at += got;
  }
  return text;
}

/// True when some line of `text` starts with "#0" (gdb's innermost frame).
bool hasFrameZero(const std::string& text) {
  return text.starts_with("#0") || text.find("\n#0") != std::string::npos;
}

/// Owns posix_spawn file actions.
struct SpawnActions {
  posix_spawn_file_actions_t actions;
  SpawnActions() { posix_spawn_file_actions_init(&actions); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
};

}  // namespace

std::size_t GdbPass::good() const {
  std::size_t n = 0;
  for (const auto& r : runs) n += (r.error.empty() && r.sawFrame) ? 1 : 0;
  return n;
}

GdbRun runGdbBacktrace(pid_t pid) {
  GdbRun run;
  run.pid = pid;
  ScopedFd out(::memfd_create("gdb-bt", MFD_CLOEXEC));
  if (!out.valid()) {
    run.error = std::string("memfd_create: ") + std::strerror(errno);
    return run;
  }
  SpawnActions spawn;
  posix_spawn_file_actions_addopen(&spawn.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&spawn.actions, out.get(), 1);
  posix_spawn_file_actions_addopen(&spawn.actions, 2, "/dev/null", O_WRONLY, 0);
  const std::string pidText = std::to_string(pid);
  std::vector<std::string> args = {"gdb", "-nx", "-q", "-batch", "-p", pidText, "-ex", "bt"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const auto start = Clock::now();
  pid_t child = 0;
  if (const int rc = posix_spawnp(&child, "gdb", &spawn.actions, nullptr, argv.data(), environ);
      rc != 0) {
    run.error = std::string("cannot start gdb: ") + std::strerror(rc);
    return run;
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  run.seconds = seconds(Clock::now() - start);
  run.sawFrame = hasFrameZero(readAll(out.get()));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    run.error = WIFEXITED(status) ? "gdb exited with code " + std::to_string(WEXITSTATUS(status))
                                  : "gdb ended by signal " + std::to_string(WTERMSIG(status));
  else if (!run.sawFrame)
    run.error = "gdb printed no frame #0";
  return run;
}

GdbPass runGdbPass(const std::vector<pid_t>& pids, int parallel) {
  GdbPass pass;
  pass.runs.resize(pids.size());
  std::atomic<std::size_t> next{0};
  const auto start = Clock::now();
  {
    std::vector<std::jthread> workers;
    for (int w = 0; w < std::max(parallel, 1); ++w)
      workers.emplace_back([&] {
        for (std::size_t i = next++; i < pids.size(); i = next++)
          pass.runs[i] = runGdbBacktrace(pids[i]);
      });
  }
  pass.seconds = seconds(Clock::now() - start);
  return pass;
}

}  // namespace mpidbg::bench
