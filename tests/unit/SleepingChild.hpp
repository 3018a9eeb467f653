#pragma once

// A real process for tests that attach gdb: a `/bin/sleep 1000` child
// (small, so gdb attaches fast even on a loaded machine), killed and reaped
// when the object goes.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>

namespace mpidbg::test {

/// A `/bin/sleep 1000` child. The constructor returns once the exec has
/// happened (a close-on-exec pipe reads EOF then), so gdb never attaches to
/// the half-started child. The destructor SIGKILLs and reaps it.
class SleepingChild {
 public:
  SleepingChild() {
    int sync[2];
    REQUIRE(::pipe2(sync, O_CLOEXEC) == 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execl("/bin/sleep", "sleep", "1000", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(sync[1]);
    char byte;
    while (::read(sync[0], &byte, 1) < 0 && errno == EINTR) {
    }
    ::close(sync[0]);
  }
  ~SleepingChild() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  SleepingChild(const SleepingChild&) = delete;
  SleepingChild& operator=(const SleepingChild&) = delete;

  /// The child's process id.
  pid_t pid() const { return pid_; }
  /// True while the child has not exited (and is not a zombie we reaped).
  bool running() const { return ::waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  pid_t pid_ = -1;
};

}  // namespace mpidbg::test
