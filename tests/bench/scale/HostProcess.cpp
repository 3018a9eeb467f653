#include "HostProcess.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>

namespace mpidbg::bench {
namespace {

/// Writes all of `text` to `fd` (retrying short writes and EINTR).
void writeAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

/// The child: starts the endpoints, reports them on `reportFd` ("peer PE
/// HOST PORT" lines, then "ready", or one "error MESSAGE" line), serves until
/// EOF on `controlFd`. Returns the exit code.
int runChild(const HostOptions& options, int reportFd, int controlFd) {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  pthread_setattr_default_np(&attr);
  pthread_attr_destroy(&attr);

  auto host = EndpointHost::start(options);
  if (!host) {
    writeAll(reportFd, "error " + host.error().message + "\n");
    return 1;
  }
  std::string report;
  for (const auto& p : (*host)->peers())
    report += "peer " + std::to_string(p.pe) + " " + p.host + " " + std::to_string(p.port) + "\n";
  writeAll(reportFd, report + "ready\n");
  ::close(reportFd);
  for (char sink[64];;) {
    const ssize_t n = ::read(controlFd, sink, sizeof sink);
    if (n > 0 || (n < 0 && errno == EINTR)) continue;
    break;  // EOF: the parent is done with this host
  }
  return 0;
}

}  // namespace

Expected<std::unique_ptr<HostProcess>> HostProcess::spawn(const HostOptions& options,
                                                          const std::vector<int>& closeInChild) {
  int report[2], control[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return fail(std::string("pipe: ") + std::strerror(errno));
  ScopedFd reportRead(report[0]), reportWrite(report[1]);
  if (::pipe2(control, O_CLOEXEC) != 0) return fail(std::string("pipe: ") + std::strerror(errno));
  ScopedFd controlRead(control[0]), controlWrite(control[1]);
  const pid_t pid = ::fork();
  if (pid < 0) return fail(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    for (int fd : closeInChild) ::close(fd);
    ::close(reportRead.release());
    ::close(controlWrite.release());
    // A forked copy of the bench: never return into the parent's code.
    ::_exit(runChild(options, reportWrite.release(), controlRead.release()));
  }
  return std::unique_ptr<HostProcess>(
      new HostProcess(pid, std::move(reportRead), std::move(controlWrite)));
}

HostProcess::~HostProcess() {
  control_.reset();
  report_.reset();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Expected<std::vector<ccs::PeerEntry>> HostProcess::readPeers() {
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(report_.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.ends_with("ready\n") || (text.starts_with("error ") && text.ends_with("\n"))) break;
  }
  if (text.starts_with("error ")) return fail(text.substr(6, text.size() - 7));
  if (!text.ends_with("ready\n")) return fail("the host process ended without reporting");
  std::vector<ccs::PeerEntry> peers;
  std::istringstream in(text);
  for (std::string word; in >> word && word == "peer";) {
    ccs::PeerEntry p;
    unsigned port = 0;
    in >> p.pe >> p.host >> port;
    p.port = static_cast<std::uint16_t>(port);
    peers.push_back(p);
  }
  return peers;
}

}  // namespace mpidbg::bench
