#include "GdbServerHandler.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "Runtime.hpp"
#include "TypedHandler.hpp"
#include "ccs/proto/GdbServerProtocol.hpp"
#include "mpidbg/ScopedFd.hpp"
#include "mpidbg/Text.hpp"
#include "runtime/HostName.hpp"

extern char** environ;

namespace mpidbg::rt {
namespace {

namespace proto = ccs::proto;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

/// Bound for gdbserver to print "Listening on port N" after it was started.
constexpr milliseconds kListenTimeout{10000};
/// gdbserver's stderr kept for error messages (the tail).
constexpr std::size_t kMaxStderrBytes = 16384;
/// The descriptor the child passes exec's errno back on.
constexpr int kExecErrorFd = 3;

/// A started gdbserver, as the handler replies it.
struct Listening {
  std::uint16_t port = 0;
  pid_t serverPid = 0;
};

/// The last non-empty line of `text`.
std::string lastLine(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  const std::size_t nl = text.rfind('\n');
  return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

/// TracerPid of this process (/proc/self/status); 0 when not traced.
pid_t tracerPid() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("TracerPid:")) continue;
    return static_cast<pid_t>(std::atoi(line.c_str() + 10));
  }
  return 0;
}

/// The command name of `pid` (/proc/PID/comm), or "unknown".
std::string commOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  if (!std::getline(in, name) || name.empty()) return "unknown";
  return name;
}

/// `name` when it has a '/', else the first executable regular file `name` in PATH.
Expected<std::string> findExecutable(const std::string& name) {
  auto executable = [](const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    if (executable(name)) return name;
    return fail("gdbserver '" + name + "' (MPIDBG_GDBSERVER) is not an executable file");
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const std::size_t colon = dirs.find(':');
    const std::string dir(dirs.substr(0, colon));
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (executable(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return fail(name + " not found in PATH on " + thisHostName("this host") +
              "; install gdbserver there or set MPIDBG_GDBSERVER");
}

bool isWildcard(std::string_view host) { return host.empty() || host == "0.0.0.0" || host == "::"; }

/// gdbserver's COMM argument for listening on `host` with a port it picks.
std::string listenArgument(const std::string& host) {
  if (isWildcard(host)) return ":0";
  if (host.find(':') != std::string::npos) return "[" + host + "]:0";
  return host + ":0";
}

/// This process's environment for gdbserver, without the runtime in
/// LD_PRELOAD (gdbserver must not load it, nor the MPI library it links).
std::vector<std::string> childEnvironment() {
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view item = *entry;
    if (!item.starts_with("LD_PRELOAD=")) {
      env.emplace_back(item);
      continue;
    }
    std::string kept;
    std::string_view list = item.substr(11);
    while (!list.empty()) {
      const std::size_t end = list.find_first_of(": ");
      const std::string_view lib = list.substr(0, end);
      const std::size_t slash = lib.rfind('/');
      const std::string_view base = slash == std::string_view::npos ? lib : lib.substr(slash + 1);
      if (!lib.empty() && !base.starts_with("libmpidbg-rt")) kept += (kept.empty() ? "" : ":") + std::string(lib);
      if (end == std::string_view::npos) break;
      list.remove_prefix(end + 1);
    }
    if (!kept.empty()) env.push_back("LD_PRELOAD=" + kept);
  }
  return env;
}

/// "Listening on port N" in gdbserver's stderr text.
std::optional<std::uint16_t> listeningPort(std::string_view text) {
  constexpr std::string_view kMarker = "Listening on port ";
  const std::size_t at = text.find(kMarker);
  if (at == std::string_view::npos) return std::nullopt;
  const std::size_t digits = at + kMarker.size();
  const std::size_t end = text.find_first_not_of("0123456789", digits);
  if (end == std::string_view::npos || end == digits) return std::nullopt;  // line not complete yet
  const long port = std::strtol(std::string(text.substr(digits, end - digits)).c_str(), nullptr, 10);
  if (port <= 0 || port > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(port);
}

/// In the forked child: only async-signal-safe calls until execve.
[[noreturn]] void execChild(const char* path, char* const* argv, char* const* envp, int stderrFd,
                            int execFd, pid_t parent) {
  // Die with the watcher thread that forked us (it lives until we are reaped),
  // i.e. with the rank.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  // Plain signal state for gdbserver: the watcher blocked every signal, and
  // the application may ignore some.
  sigset_t none;
  sigemptyset(&none);
  ::pthread_sigmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
  // Move our pipes above the standard descriptors before rearranging them.
  stderrFd = ::fcntl(stderrFd, F_DUPFD, 10);
  execFd = ::fcntl(execFd, F_DUPFD_CLOEXEC, 10);
  if (stderrFd < 0 || execFd < 0) ::_exit(127);
  const int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, 0);
    ::dup2(null, 1);
  }
  ::dup2(stderrFd, 2);
  ::dup2(execFd, kExecErrorFd);
  ::fcntl(kExecErrorFd, F_SETFD, FD_CLOEXEC);
  // Nothing else of the rank (its CCS sockets, MPI's descriptors) goes along.
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, kExecErrorFd + 1, ~0U, 0) != 0)
#endif
    for (int fd = kExecErrorFd + 1; fd < 4096; ++fd) ::close(fd);
  ::execve(path, argv, envp);
  const int error = errno;
  [[maybe_unused]] const ssize_t ignored = ::write(kExecErrorFd, &error, sizeof error);
  ::_exit(127);
}

/// How a read from gdbserver's stderr ended.
enum class ReadEnd { Data, Closed, Timeout };

/// Appends what `fd` has to `text` (keeping its tail), waiting until `deadline`.
ReadEnd readSome(int fd, std::string& text, std::optional<Clock::time_point> deadline) {
  while (true) {
    int waitMs = -1;
    if (deadline) {
      const auto left = std::chrono::duration_cast<milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) return ReadEnd::Timeout;
      waitMs = static_cast<int>(std::min<long long>(left, 1000));
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, waitMs);
    if (ready < 0 && errno != EINTR) return ReadEnd::Closed;
    if (ready <= 0) continue;
    char buffer[1024];
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) return ReadEnd::Closed;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > kMaxStderrBytes) text.erase(0, text.size() - kMaxStderrBytes);
    return ReadEnd::Data;
  }
}

/// Reaps `pid` (already reaped elsewhere, e.g. by an application's wait(-1), is fine).
std::string reap(pid_t pid) {
  int status = 0;
  pid_t got;
  do got = ::waitpid(pid, &status, 0);
  while (got < 0 && errno == EINTR);
  if (got != pid) return "ended";
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended";
}

/// One gdbserver from fork to reaping, run on its own (detached) thread:
/// that thread is gdbserver's parent for PR_SET_PDEATHSIG and lives until
/// gdbserver is reaped.
class GdbServerWatch {
 public:
  GdbServerWatch(int rank, std::string path, std::vector<std::string> argv,
                 milliseconds connectTimeout)
      : rank_(rank), path_(std::move(path)), argv_(std::move(argv)), env_(childEnvironment()),
        connectTimeout_(connectTimeout) {}

  std::future<Expected<Listening>> result() { return promise_.get_future(); }

  /// Starts gdbserver, reports its port (or why not) through result(), then
  /// watches it until it ends.
  void run() noexcept {
    ::pthread_setname_np(::pthread_self(), "mpidbg-gdbwatch");  // shown by gdb's info threads
    try {
      watch();
    } catch (const std::exception& e) {
      log(std::string("gdbserver watch failed: ") + e.what());
      answer(fail(std::string("gdbserver watch failed: ") + e.what()));
    } catch (...) {
      answer(fail("gdbserver watch failed"));
    }
  }

 private:
  void log(const std::string& line) const { tell(rank_, line); }

  void answer(Expected<Listening> value) {
    if (answered_) return;
    answered_ = true;
    promise_.set_value(std::move(value));
  }

  void watch() {
    int stderrPipe[2];
    int execPipe[2];
    if (::pipe2(stderrPipe, O_CLOEXEC) != 0) return answer(fail(std::string("cannot make a pipe: ") + std::strerror(errno)));
    ScopedFd stderrRead(stderrPipe[0]), stderrWrite(stderrPipe[1]);
    if (::pipe2(execPipe, O_CLOEXEC) != 0) return answer(fail(std::string("cannot make a pipe: ") + std::strerror(errno)));
    ScopedFd execRead(execPipe[0]), execWrite(execPipe[1]);

    std::vector<char*> argv, envp;
    for (auto& a : argv_) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env_) envp.push_back(e.data());
    envp.push_back(nullptr);

    const pid_t parent = ::getpid();
    const pid_t child = ::fork();
    if (child < 0) return answer(fail(std::string("cannot fork gdbserver: ") + std::strerror(errno)));
    if (child == 0) execChild(path_.c_str(), argv.data(), envp.data(), stderrWrite.get(), execWrite.get(), parent);
    stderrWrite.reset();
    execWrite.reset();
    // Under Yama ptrace_scope 1 only a named tracer may attach to its own
    // parent; without Yama this fails with EINVAL, which is fine.
    ::prctl(PR_SET_PTRACER, static_cast<unsigned long>(child), 0, 0, 0);

    int execError = 0;
    ssize_t got;
    do got = ::read(execRead.get(), &execError, sizeof execError);
    while (got < 0 && errno == EINTR);
    if (got == static_cast<ssize_t>(sizeof execError)) {
      reap(child);
      return answer(fail("cannot run " + path_ + ": " + std::strerror(execError)));
    }

    std::string text;
    const auto listenDeadline = Clock::now() + kListenTimeout;
    std::optional<std::uint16_t> port;
    while (!(port = listeningPort(text))) {
      const ReadEnd end = readSome(stderrRead.get(), text, listenDeadline);
      if (end == ReadEnd::Closed) {
        const std::string how = reap(child);
        const std::string why = lastLine(text);
        return answer(fail("gdbserver " + how + " before listening" + (why.empty() ? "" : ": " + why)));
      }
      if (end == ReadEnd::Timeout) {
        ::kill(child, SIGKILL);
        reap(child);
        return answer(fail("gdbserver printed no 'Listening on port' within " +
                           std::to_string(kListenTimeout.count() / 1000) + " s" +
                           (text.empty() ? "" : " (it said: " + lastLine(text) + ")")));
      }
    }
    answer(Listening{*port, child});

    // No gdb connecting in time (front end gone, connect failed): stop it.
    const auto connectDeadline = Clock::now() + connectTimeout_;
    while (text.find("Remote debugging from host") == std::string::npos) {
      const ReadEnd end = readSome(stderrRead.get(), text, connectDeadline);
      if (end == ReadEnd::Closed) {
        reap(child);
        return;
      }
      if (end == ReadEnd::Timeout) {
        ::kill(child, SIGKILL);
        reap(child);
        log("no gdb connected to gdbserver (pid " + std::to_string(child) + ", port " + std::to_string(*port) +
            ") within " + std::to_string(connectTimeout_.count()) + " ms; stopped it");
        return;
      }
    }
    // Connected: `--once` ends gdbserver when gdb disconnects (or the rank dies).
    text.clear();
    while (readSome(stderrRead.get(), text, std::nullopt) != ReadEnd::Closed) text.clear();
    reap(child);
  }

  int rank_;
  std::string path_;
  std::vector<std::string> argv_;
  std::vector<std::string> env_;
  milliseconds connectTimeout_;
  std::promise<Expected<Listening>> promise_;
  bool answered_ = false;
};

/// Runs `watch` on a new detached thread that takes no asynchronous signals
/// (they stay with the application's threads, as for the helper thread).
void startWatchThread(std::shared_ptr<GdbServerWatch> watch) {
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigdelset(&all, sig);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  try {
    std::thread([watch] { watch->run(); }).detach();
  } catch (...) {
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    throw;
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

proto::GdbServerReply serve(const std::string& bindHost, const Runtime& rt, const proto::GdbServerRequest& request) {
  proto::GdbServerReply reply;
  const pid_t self = ::getpid();
  if (const pid_t tracer = tracerPid(); tracer != 0) {
    reply.error = "the process is already traced by process " + std::to_string(tracer) + " (" +
                  commOf(tracer) + "); detach that tracer first";
    return reply;
  }
  const char* configured = std::getenv("MPIDBG_GDBSERVER");
  auto path = findExecutable(configured && *configured ? configured : "gdbserver");
  if (!path) {
    reply.error = path.error().message;
    return reply;
  }
  auto watch = std::make_shared<GdbServerWatch>(
      rt.rank(), *path, std::vector<std::string>{*path, "--once", "--multi", listenArgument(bindHost)},
      milliseconds(request.connectTimeoutMs));
  auto result = watch->result();
  startWatchThread(watch);
  // The watcher answers within kListenTimeout (it enforces that bound itself).
  if (result.wait_for(kListenTimeout + milliseconds(5000)) != std::future_status::ready) {
    reply.error = "gdbserver did not start within " + std::to_string(kListenTimeout.count() / 1000) + " s";
    return reply;
  }
  auto listening = result.get();
  if (!listening) {
    reply.error = listening.error().message;
    return reply;
  }
  reply.host = isWildcard(bindHost) ? "" : bindHost;
  reply.port = listening->port;
  reply.pid = static_cast<std::int32_t>(self);
  reply.serverPid = static_cast<std::int32_t>(listening->serverPid);
  return reply;
}

}  // namespace

void registerGdbServerHandler(ccs::Server& server, std::string bindHost, Runtime& runtime) {
  const Runtime* rt = &runtime;
  on<proto::GdbServerRequest, proto::GdbServerReply>(
      server, proto::kGdbServerHandler,
      [bindHost = std::move(bindHost), rt](const proto::GdbServerRequest& request) {
        return serve(bindHost, *rt, request);
      },
      [](std::string message) {
        proto::GdbServerReply reply;
        reply.error = std::move(message);
        return reply;
      });
}

}  // namespace mpidbg::rt
