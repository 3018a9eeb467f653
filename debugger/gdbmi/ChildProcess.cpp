#include "debugger/gdbmi/ChildProcess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

extern char** environ;

namespace mpidbg::gdbmi {
namespace {

bool setNonBlocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

/// posix_spawn attributes and file actions, destroyed on scope exit.
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

}  // namespace

Expected<ChildProcess> ChildProcess::spawn(const std::vector<std::string>& argv,
                                           std::string_view name) {
  const std::string what = "cannot start " + std::string(name) + ": ";
  if (argv.empty() || argv.front().empty()) return fail(what + "empty command");
  int stdinPair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, stdinPair) != 0) {
    return fail(what + std::strerror(errno));
  }
  ScopedFd inParent(stdinPair[0]), inChild(stdinPair[1]);
  int outPipe[2];
  if (::pipe2(outPipe, O_CLOEXEC) != 0) return fail(what + std::strerror(errno));
  ScopedFd outChild(outPipe[1]), outParent(outPipe[0]);
  int errPipe[2];
  if (::pipe2(errPipe, O_CLOEXEC) != 0) return fail(what + std::strerror(errno));
  ScopedFd errChild(errPipe[1]), errParent(errPipe[0]);
  if (!setNonBlocking(inParent.get()) || !setNonBlocking(outParent.get()) ||
      !setNonBlocking(errParent.get())) {
    return fail(what + std::strerror(errno));
  }

  SpawnSetup setup;
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setflags(&setup.attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&setup.attr, 0);
  posix_spawnattr_setsigmask(&setup.attr, &none);
  posix_spawnattr_setsigdefault(&setup.attr, &all);
  posix_spawn_file_actions_adddup2(&setup.actions, inChild.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, outChild.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, errChild.get(), STDERR_FILENO);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &setup.actions, &setup.attr, args.data(), environ);
  if (rc != 0) return fail(what + std::strerror(rc));

  ChildProcess child;
  child.pid_ = pid;
  child.in_ = std::move(inParent);
  child.out_ = std::move(outParent);
  child.err_ = std::move(errParent);
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      status_(std::exchange(other.status_, std::nullopt)),
      reaped_(std::exchange(other.reaped_, false)),
      in_(std::move(other.in_)),
      out_(std::move(other.out_)),
      err_(std::move(other.err_)) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    kill();
    pid_ = std::exchange(other.pid_, -1);
    status_ = std::exchange(other.status_, std::nullopt);
    reaped_ = std::exchange(other.reaped_, false);
    in_ = std::move(other.in_);
    out_ = std::move(other.out_);
    err_ = std::move(other.err_);
  }
  return *this;
}

ChildProcess::~ChildProcess() { kill(); }

Expected<void> ChildProcess::writeAll(std::string_view data, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!data.empty()) {
    const ssize_t n = ::send(in_.get(), data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      return fail(std::string("cannot write to the process: ") + std::strerror(errno));
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return fail("cannot write to the process: timed out");
    pollfd p{in_.get(), POLLOUT, 0};
    ::poll(&p, 1, static_cast<int>(left.count()));
  }
  return {};
}

bool ChildProcess::reap(bool block) {
  if (pid_ <= 0 || reaped_) return true;
  int status = 0;
  while (true) {
    const pid_t r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
    if (r == pid_) {
      status_ = status;
      reaped_ = true;
      return true;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {  // ECHILD: someone else reaped it; the status is lost.
      reaped_ = true;
      return true;
    }
    return false;
  }
}

bool ChildProcess::running() { return !reap(false); }

bool ChildProcess::waitExit(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!reap(false)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void ChildProcess::kill() {
  if (pid_ <= 0 || reaped_) return;
  if (!reap(false)) {
    ::kill(pid_, SIGKILL);
    reap(true);
  }
}

std::string ChildProcess::describeExit() const {
  if (!reaped_) return "still running";
  if (!status_) return "exited (status unknown)";
  if (WIFEXITED(*status_)) return "exited (status " + std::to_string(WEXITSTATUS(*status_)) + ")";
  if (WIFSIGNALED(*status_)) return "killed by signal " + std::to_string(WTERMSIG(*status_));
  return "stopped";
}

ChildProcess::Output ChildProcess::readToEnd(std::chrono::milliseconds timeout) {
  Output output;
  bool outOpen = out_.valid(), errOpen = err_.valid();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (outOpen || errOpen) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      output.timedOut = true;
      break;
    }
    pollfd fds[2] = {{outOpen ? out_.get() : -1, POLLIN, 0}, {errOpen ? err_.get() : -1, POLLIN, 0}};
    if (::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 200))) < 0) continue;
    char buf[4096];
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) (i == 0 ? output.out : output.err).append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || (errno != EAGAIN && errno != EINTR)) (i == 0 ? outOpen : errOpen) = false;
    }
  }
  return output;
}

}  // namespace mpidbg::gdbmi
