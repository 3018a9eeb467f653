#include "debugger/core/OutputRelay.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace mpidbg::core {

namespace relayproc {

// Everything below runs in the forked relay: async-signal-safe calls only
// (mpidbg has threads; the fork has just the one), no allocation.

constexpr char kErase[] = "\r\033[K";

/// Writes all of `data` to `fd`; false once a write fails (not EINTR).
bool writeAll(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

/// Closes descriptors `first` to `last`.
void closeRange(unsigned first, unsigned last) {
  if (::close_range(first, last, 0) == 0) return;
  for (unsigned fd = first; fd <= std::min(last, 65535U); ++fd) ::close(static_cast<int>(fd));
}

/// Closes every descriptor but the `count` (>= 0) in `keep`.
void closeAllBut(int* keep, int count) {
  std::sort(keep, keep + count);
  unsigned next = 0;  // the lowest descriptor not yet handled
  for (int i = 0; i < count; ++i) {
    const auto fd = static_cast<unsigned>(keep[i]);
    if (fd > next) closeRange(next, fd - 1);
    next = std::max(next, fd + 1);
  }
  closeRange(next, ~0U);
}

struct State {
  char line[4096];          ///< the progress line
  std::size_t lineSize = 0;  ///< 0: none
  bool drawn = false;        ///< the line is on the screen
  bool atLineStart = true;   ///< the job's last output ended with '\n'
  bool screenBroken = false;  ///< writing to stdout failed: discard from now on
  bool errBroken = false;
};

void erase(State& s) {
  if (s.drawn && !s.screenBroken) s.screenBroken = !writeAll(STDOUT_FILENO, kErase, sizeof kErase - 1);
  s.drawn = false;
}

void draw(State& s) {
  if (s.lineSize == 0 || !s.atLineStart || s.screenBroken) return;
  s.screenBroken = !writeAll(STDOUT_FILENO, kErase, sizeof kErase - 1) ||
                   !writeAll(STDOUT_FILENO, s.line, s.lineSize);
  s.drawn = !s.screenBroken;
}

/// Handles one control message (without its '\n').
void handle(State& s, const char* msg, std::size_t size) {
  if (size >= 5 && std::memcmp(msg, "show ", 5) == 0) {
    erase(s);
    s.lineSize = std::min(size - 5, sizeof s.line - 1);
    std::memcpy(s.line, msg + 5, s.lineSize);
    draw(s);
  } else if (size == 5 && std::memcmp(msg, "clear", 5) == 0) {
    erase(s);
    s.lineSize = 0;
  }
}

[[noreturn]] void run(int out, int err, int control) {
  ::setpgid(0, 0);
  struct sigaction ignore{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  for (int sig : {SIGINT, SIGPIPE, SIGHUP, SIGTERM, SIGTTOU, SIGQUIT, SIGTSTP}) ::sigaction(sig, &ignore, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  int keep[] = {STDOUT_FILENO, STDERR_FILENO, out, err < 0 ? out : err, control};
  closeAllBut(keep, 5);

  State s;
  static char buf[65536];
  char msgs[8192];
  std::size_t msgSize = 0;
  while (out >= 0 || err >= 0) {
    pollfd fds[3] = {{out, POLLIN, 0}, {err, POLLIN, 0}, {control, POLLIN, 0}};  // negative fds are skipped
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        ::close(fds[i].fd);
        (i == 0 ? out : err) = -1;
        continue;
      }
      erase(s);
      if (i == 0) {
        if (!s.screenBroken) s.screenBroken = !writeAll(STDOUT_FILENO, buf, static_cast<std::size_t>(n));
      } else if (!s.errBroken) {
        s.errBroken = !writeAll(STDERR_FILENO, buf, static_cast<std::size_t>(n));
      }
      s.atLineStart = buf[n - 1] == '\n';
      draw(s);
    }
    if (control >= 0 && fds[2].revents != 0) {
      const ssize_t n = ::read(control, msgs + msgSize, sizeof msgs - msgSize);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {  // mpidbg is gone: just copy from now on
        ::close(control);
        control = -1;
        s.lineSize = 0;
        s.drawn = false;
        continue;
      }
      msgSize += static_cast<std::size_t>(n);
      std::size_t begin = 0;
      for (std::size_t i = 0; i < msgSize; ++i) {
        if (msgs[i] != '\n') continue;
        handle(s, msgs + begin, i - begin);
        writeAll(control, ".", 1);
        begin = i + 1;
      }
      if (begin == 0 && msgSize == sizeof msgs) {  // a line too long: handle what fits
        handle(s, msgs, msgSize);
        writeAll(control, ".", 1);
        begin = msgSize;
      }
      std::memmove(msgs, msgs + begin, msgSize - begin);
      msgSize -= begin;
    }
  }
  ::_exit(0);
}

}  // namespace relayproc

Expected<std::unique_ptr<OutputRelay>> OutputRelay::start(bool relayStderr) {
  int out[2] = {-1, -1}, err[2] = {-1, -1}, control[2] = {-1, -1};
  auto closeAll = [&] {
    for (int fd : {out[0], out[1], err[0], err[1], control[0], control[1]})
      if (fd >= 0) ::close(fd);
  };
  if (::pipe2(out, O_CLOEXEC) != 0 || (relayStderr && ::pipe2(err, O_CLOEXEC) != 0)) {
    const int e = errno;
    closeAll();
    return fail(std::string("cannot make a pipe for the job's output: ") + std::strerror(e));
  }
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, control) != 0) {
    const int e = errno;
    closeAll();
    return fail(std::string("cannot make the output relay's control socket: ") + std::strerror(e));
  }
  std::fflush(stdout);  // nothing buffered may be written twice
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    closeAll();
    return fail(std::string("cannot start the output relay: ") + std::strerror(e));
  }
  if (pid == 0) relayproc::run(out[0], err[0], control[1]);
  ::close(out[0]);
  if (err[0] >= 0) ::close(err[0]);
  ::close(control[1]);
  std::unique_ptr<OutputRelay> relay(new OutputRelay());
  relay->pid_ = pid;
  relay->control_ = control[0];
  relay->jobOut_ = out[1];
  relay->jobErr_ = err[1];
  return relay;
}

OutputRelay::~OutputRelay() {
  closeJobEnds();
  if (control_ >= 0) ::close(control_);
  int status = 0;
  if (pid_ > 0) ::waitpid(pid_, &status, WNOHANG);
}

void OutputRelay::closeJobEnds() {
  for (int* fd : {&jobOut_, &jobErr_})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
}

bool OutputRelay::show(const std::string& text) {
  std::string line = text;
  std::replace(line.begin(), line.end(), '\n', ' ');
  return send("show " + line + "\n");
}

bool OutputRelay::clear() { return send("clear\n"); }

bool OutputRelay::send(const std::string& message) {
  if (control_ < 0) return false;
  bool ok = true;
  for (std::size_t done = 0; ok && done < message.size();) {
    const ssize_t n = ::send(control_, message.data() + done, message.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (ok) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd fd{control_, POLLIN, 0};
    const int r = left.count() > 0 ? ::poll(&fd, 1, static_cast<int>(left.count())) : 0;
    if (r < 0 && errno == EINTR) continue;  // Ctrl-C during a wait: the answer is on its way
    char answer = 0;
    ok = r > 0 && ::read(control_, &answer, 1) == 1 && answer == '.';
    if (ok) return true;
  }
  ::close(control_);  // no answer: the relay is gone or stuck; it copies on without a progress line
  control_ = -1;
  return false;
}

}  // namespace mpidbg::core
