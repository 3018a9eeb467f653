#include "FatalSignal.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace mpidbg::rt {

void passOnFatalSignal(int sig, const siginfo_t* info, const struct sigaction& previous) noexcept {
  const int savedErrno = errno;
  ::sigaction(sig, &previous, nullptr);
  if (info && info->si_code > 0 && sig != SIGABRT) {
    errno = savedErrno;
    return;  // the faulting instruction runs again
  }
  siginfo_t copy{};
  if (info) copy = *info;
  if (!info || ::syscall(SYS_rt_tgsigqueueinfo, ::getpid(), ::syscall(SYS_gettid), sig, &copy) != 0) ::raise(sig);
  errno = savedErrno;
}

}  // namespace mpidbg::rt
