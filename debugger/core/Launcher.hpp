#pragma once

#include <csignal>
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// How a process ended, as waitpid reported it.
struct ExitStatus {
  bool signaled = false;
  int code = 0;    ///< exit code when !signaled
  int signal = 0;  ///< terminating signal when signaled
  /// "exited with code 0" / "killed by signal 9 (Killed)".
  std::string describe() const;
};

/// Records `pids`, the ranks of the owned launcher's job that run on this
/// host (the first 4096), for endOwnedJob; replaces an earlier set. Cleared
/// when the launcher is released or ends.
void setOwnedRanks(const std::vector<pid_t>& pids) noexcept;

/// What a SIGTERM/SIGHUP handler does before the debugger exits: SIGTERM to
/// the owned launcher's process group and to each owned rank (ranks live in
/// process groups of their own, and the launcher's proxies, signalled with
/// it, may die before they pass the signal on). Nothing when no launcher is
/// owned. Async-signal-safe.
void endOwnedJob() noexcept;

/// The MPI a launcher command belongs to, which decides the runtime to
/// preload and how the environment reaches the ranks.
enum class LauncherFamily {
  Hydra,    ///< MPICH's mpiexec (mpiexec.hydra, mpiexec.mpich): forwards the environment
  OpenMpi,  ///< Open MPI's mpirun/mpiexec (orterun): forwards only what -x names
  Slurm,    ///< srun: forwards the environment (--export=ALL)
  Other,
};

/// The family of `argv[0]`, looked up in PATH and followed through its
/// symlinks (Debian's /usr/bin/mpirun -> /etc/alternatives/mpirun ->
/// mpirun.openmpi -> orterun): a resolved name orterun/prterun or containing
/// "openmpi" is Open MPI; mpiexec.hydra/.mpich or "hydra" is Hydra; srun is
/// Slurm. Other for an empty argv or anything else.
LauncherFamily launcherFamily(const std::vector<std::string>& argv);

/// The MPI the program of launcher command `argv` is linked against: the
/// first argument after argv[0] that names an ELF executable (as given, or
/// looked up in PATH) decides, by its DT_NEEDED entries: libmpi.so.40 ->
/// OpenMpi, libmpich.so -> Hydra (MPICH). Other when no such program is
/// found or it names neither (a script, a static binary).
LauncherFamily programMpi(const std::vector<std::string>& argv);

/// The runtime library for `argv`: `mpichRuntime` (libmpidbg-rt.so), or
/// libmpidbg-rt-ompi.so beside it when the program is linked against Open
/// MPI (programMpi) or, when that cannot be told, when the launcher is Open
/// MPI's (launcherFamily). Thus `srun --mpi=pmix ./ompi_app` gets the Open
/// MPI runtime too.
std::string runtimeFor(const std::vector<std::string>& argv, const std::string& mpichRuntime);

/// `argv` as it must run so that the ranks see the variables `names`:
/// Open MPI's launcher gets "-x NAME" for each, right after argv[0] (it
/// passes no other environment to remote or local ranks); other launchers
/// forward the environment and `argv` is returned unchanged.
std::vector<std::string> withForwardedEnv(const std::vector<std::string>& argv, LauncherFamily family,
                                          const std::vector<std::string>& names);

/// The launcher process (mpiexec, srun, mpirun, ...) of a job that mpidbg
/// starts. It runs in its own process group so terminal Ctrl-C reaches only
/// the debugger; its stdin is /dev/null (the prompt keeps the terminal), its
/// stdout and stderr are the debugger's unless start() is given others.
class Launcher {
 public:
  /// Starts `argv` (argv[0] looked up in PATH) with the debugger's environment
  /// plus `extraEnv` (NAME, VALUE pairs; they replace existing names).
  /// Errors: empty argv, or argv[0] not found / not executable ("cannot run
  /// 'mpiexecc': No such file or directory"). `outputFd` >= 0: the
  /// launcher's stdout goes there instead (the write end of a pipe the
  /// debugger reads: Charm++ programs tell the debugger of breakpoints and
  /// freezes on stdout; OutputRelay copies it to the terminal); `errorFd`
  /// >= 0: its stderr likewise. The caller keeps and closes its descriptors.
  static Expected<std::unique_ptr<Launcher>> start(
      const std::vector<std::string>& argv,
      const std::vector<std::pair<std::string, std::string>>& extraEnv, int outputFd = -1,
      int errorFd = -1);
  /// Terminates the launcher if still running (see terminate).
  ~Launcher();
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  pid_t pid() const { return pid_; }
  /// Reaps the launcher without blocking; returns its status once it has
  /// ended (and on every later call). Thread-safe.
  std::optional<ExitStatus> poll();
  /// Forgets the launcher without ending it (detach): it runs on, and the
  /// destructor no longer terminates it.
  void release();
  /// Sends `signal` (SIGTERM unless told) to the launcher's process group,
  /// waits up to `grace` for it to end, then SIGKILLs the group and reaps.
  /// Idempotent.
  void terminate(std::chrono::milliseconds grace, int signal = SIGTERM);

 private:
  Launcher() = default;
  pid_t pid_ = -1;
  std::mutex mutex_;  ///< guards status_ (the event thread and commands both poll)
  std::optional<ExitStatus> status_;
};

}  // namespace mpidbg::core
