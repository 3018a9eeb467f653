#include "debugger/core/Launcher.hpp"

#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>

#include <cstdlib>
#include <optional>
#include <filesystem>
#include <string_view>

#include <atomic>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

extern char** environ;

namespace mpidbg::core {

namespace {
/// The process group of the launcher mpidbg started and still owns (not
/// released or ended), or 0.
std::atomic<pid_t> gOwnedGroup{0};
/// The owned job's ranks on this host (setOwnedRanks), for endOwnedJob: a
/// fixed array, so that a signal handler can read it.
constexpr std::size_t kMaxOwnedRanks = 4096;
std::array<std::atomic<pid_t>, kMaxOwnedRanks> gOwnedRanks{};
std::atomic<std::size_t> gOwnedRankCount{0};

/// The launcher is no longer owned: neither it nor its ranks are ended by
/// endOwnedJob.
void disown() noexcept {
  gOwnedGroup.store(0);
  gOwnedRankCount.store(0);
}
}  // namespace

void setOwnedRanks(const std::vector<pid_t>& pids) noexcept {
  gOwnedRankCount.store(0);
  const std::size_t n = std::min(pids.size(), kMaxOwnedRanks);
  for (std::size_t i = 0; i < n; ++i) gOwnedRanks[i].store(pids[i]);
  gOwnedRankCount.store(n);
}

void endOwnedJob() noexcept {
  const pid_t group = gOwnedGroup.load();
  if (group <= 0) return;
  ::kill(-group, SIGTERM);
  const std::size_t n = gOwnedRankCount.load();
  for (std::size_t i = 0; i < n; ++i)
    if (const pid_t pid = gOwnedRanks[i].load(); pid > 0) ::kill(pid, SIGTERM);
}

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
    const std::vector<std::pair<std::string, std::string>>& extraEnv, int outputFd, int errorFd) {
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
  if (outputFd >= 0) posix_spawn_file_actions_adddup2(&actions, outputFd, STDOUT_FILENO);
  if (errorFd >= 0) posix_spawn_file_actions_adddup2(&actions, errorFd, STDERR_FILENO);
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
  if (gOwnedGroup.load() == pid_) disown();
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

void Launcher::terminate(std::chrono::milliseconds grace, int signal) {
  if (pid_ > 0 && gOwnedGroup.load() == pid_) disown();
  if (pid_ < 0 || poll()) return;
  ::kill(-pid_, signal);
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

namespace {

/// `name` as the shell would run it: itself when it has a slash, else the
/// first executable of that name in PATH; "" when none.
std::string resolveCommand(const std::string& name) {
  if (name.empty()) return {};
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : std::string();
  const char* search = std::getenv("PATH");
  std::string_view dirs = search ? search : "/usr/bin:/bin";
  while (!dirs.empty()) {
    const auto colon = dirs.find(':');
    const std::string candidate = std::string(dirs.substr(0, colon)) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
  }
  return {};
}

}  // namespace

LauncherFamily launcherFamily(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0].empty()) return LauncherFamily::Other;
  namespace fs = std::filesystem;
  std::string path = resolveCommand(argv[0]);
  if (path.empty()) path = argv[0];  // not found: judged by the name alone
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(path, ec);
  // The name as typed can tell where the resolved one cannot (a copy, a wrapper).
  for (const std::string& name : {ec ? std::string() : resolved.filename().string(), fs::path(argv[0]).filename().string()}) {
    if (name == "orterun" || name == "prterun" || name.find("openmpi") != std::string::npos) return LauncherFamily::OpenMpi;
    if (name.find("hydra") != std::string::npos || name == "mpiexec.mpich" || name == "mpirun.mpich")
      return LauncherFamily::Hydra;
    if (name == "srun") return LauncherFamily::Slurm;
  }
  return LauncherFamily::Other;
}

std::vector<std::string> withForwardedEnv(const std::vector<std::string>& argv, LauncherFamily family,
                                          const std::vector<std::string>& names) {
  if (family != LauncherFamily::OpenMpi || argv.empty()) return argv;
  std::vector<std::string> out{argv[0]};
  for (const std::string& name : names) {
    out.push_back("-x");
    out.push_back(name);
  }
  out.insert(out.end(), argv.begin() + 1, argv.end());
  return out;
}

namespace {

/// The DT_NEEDED names of ELF file `path`; nullopt when it is not a readable
/// dynamically linked ELF file.
std::optional<std::vector<std::string>> neededLibraries(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::vector<std::string>> out;
  if (::elf_version(EV_CURRENT) != EV_NONE) {
    if (Elf* elf = ::elf_begin(fd, ELF_C_READ, nullptr); elf && ::elf_kind(elf) == ELF_K_ELF) {
      for (Elf_Scn* scn = nullptr; (scn = ::elf_nextscn(elf, scn)) != nullptr;) {
        GElf_Shdr shdr;
        if (!::gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_DYNAMIC) continue;
        Elf_Data* data = ::elf_getdata(scn, nullptr);
        if (!data || shdr.sh_entsize == 0) continue;
        out.emplace();
        for (std::size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; ++i) {
          GElf_Dyn dyn;
          if (!::gelf_getdyn(data, static_cast<int>(i), &dyn)) break;
          if (dyn.d_tag != DT_NEEDED) continue;
          if (const char* name = ::elf_strptr(elf, shdr.sh_link, dyn.d_un.d_val)) out->push_back(name);
        }
      }
      ::elf_end(elf);
    } else if (elf) {
      ::elf_end(elf);
    }
  }
  ::close(fd);
  return out;
}

}  // namespace

LauncherFamily programMpi(const std::vector<std::string>& argv) {
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i].empty() || argv[i][0] == '-') continue;
    const std::string path = resolveCommand(argv[i]);
    if (path.empty()) continue;
    const auto needed = neededLibraries(path);
    if (!needed) continue;
    for (const std::string& lib : *needed) {
      if (lib.starts_with("libmpi.so.40")) return LauncherFamily::OpenMpi;
      if (lib.starts_with("libmpich.so")) return LauncherFamily::Hydra;
    }
    return LauncherFamily::Other;  // the first ELF program decides
  }
  return LauncherFamily::Other;
}

std::string runtimeFor(const std::vector<std::string>& argv, const std::string& mpichRuntime) {
  LauncherFamily mpi = programMpi(argv);
  if (mpi == LauncherFamily::Other && launcherFamily(argv) == LauncherFamily::OpenMpi) mpi = LauncherFamily::OpenMpi;
  if (mpi != LauncherFamily::OpenMpi) return mpichRuntime;
  return (std::filesystem::path(mpichRuntime).parent_path() / "libmpidbg-rt-ompi.so").string();
}

}  // namespace mpidbg::core
