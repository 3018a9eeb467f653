#include "debugger/core/Launcher.hpp"

#include <atomic>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

extern char** environ;

namespace mpidbg::core {

namespace {
/// The launcher group ownedLauncherGroup() reports.
std::atomic<pid_t> gOwnedGroup{0};
}  // namespace

pid_t ownedLauncherGroup() noexcept { return gOwnedGroup.load(); }

std::string ExitStatus::describe() const {
  if (signaled)
    return "killed by signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
  return "exited with code " + std::to_string(code);
}

namespace {

ExitStatus fromWaitStatus(int status) {
  ExitStatus s;
  if (WIFSIGNALED(status)) {
    s.signaled = true;
    s.signal = WTERMSIG(status);
  } else {
    s.code = WEXITSTATUS(status);
  }
  return s;
}

}  // namespace

Expected<std::unique_ptr<Launcher>> Launcher::start(
    const std::vector<std::string>& argv,
    const std::vector<std::pair<std::string, std::string>>& extraEnv) {
  if (argv.empty()) return fail("no launcher command given (usage: mpidbg -- mpiexec -n 4 ./app)");

  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : extraEnv) env[name] = value;
  std::vector<std::string> envStrings;
  for (const auto& [name, value] : env) envStrings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& s : envStrings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (auto& s : args) argp.push_back(s.data());
  argp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, argp[0], &actions, &attr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return fail("cannot run '" + argv[0] + "': " + std::strerror(rc));

  std::unique_ptr<Launcher> launcher(new Launcher());
  launcher->pid_ = pid;
  gOwnedGroup.store(pid);
  return launcher;
}

Launcher::~Launcher() { terminate(std::chrono::milliseconds(2000)); }

void Launcher::release() {
  std::lock_guard lock(mutex_);
  if (gOwnedGroup.load() == pid_) gOwnedGroup.store(0);
  pid_ = -1;
}

std::optional<ExitStatus> Launcher::poll() {
  std::lock_guard lock(mutex_);
  if (status_ || pid_ < 0) return status_;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) status_ = fromWaitStatus(status);
  return status_;
}

void Launcher::terminate(std::chrono::milliseconds grace) {
  if (pid_ > 0 && gOwnedGroup.load() == pid_) gOwnedGroup.store(0);
  if (pid_ < 0 || poll()) return;
  ::kill(-pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    if (poll()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-pid_, SIGKILL);  // whatever is left of the group (proxies)
  std::lock_guard lock(mutex_);
  if (!status_) {
    int status = 0;
    if (::waitpid(pid_, &status, 0) == pid_) status_ = fromWaitStatus(status);
  }
}

}  // namespace mpidbg::core
