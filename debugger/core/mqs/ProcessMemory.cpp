#include "debugger/core/mqs/ProcessMemory.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mpidbg::core::mqs {

namespace {

std::string failure(pid_t pid, std::uint64_t addr, std::size_t size, int err) {
  return fmt::format("cannot read {} bytes at {:#x} of pid {}: {}", size, addr, pid,
                     std::strerror(err));
}

}  // namespace

std::string ProcessMemory::describe() const { return fmt::format("pid {}", pid_); }

Expected<void> ProcessMemory::read(std::uint64_t addr, std::span<std::byte> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    iovec local{out.data() + done, out.size() - done};
    iovec remote{reinterpret_cast<void*>(static_cast<std::uintptr_t>(addr + done)),
                 out.size() - done};
    const ssize_t n = ::process_vm_readv(pid_, &local, 1, &remote, 1, 0);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const int err = n < 0 ? errno : EFAULT;
    if (err == ESRCH) return fail(failure(pid_, addr, out.size(), err));
    // A page process_vm_readv will not read (no PROT_READ, or a kernel
    // without the call): /proc/PID/mem may still serve it.
    if (auto rest = readProcMem(addr + done, out.subspan(done)); !rest) {
      return fail(failure(pid_, addr, out.size(), err) + "; " + rest.error().message);
    }
    return {};
  }
  return {};
}

Expected<void> ProcessMemory::readProcMem(std::uint64_t addr, std::span<std::byte> out) {
  if (!memFd_.valid()) {
    const std::string path = fmt::format("/proc/{}/mem", pid_);
    memFd_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!memFd_.valid()) return fail(fmt::format("{}: {}", path, std::strerror(errno)));
  }
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(memFd_.get(), out.data() + done, out.size() - done,
                              static_cast<off_t>(addr + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(fmt::format("/proc/{}/mem: {}", pid_, std::strerror(errno)));
    if (n == 0) return fail(fmt::format("/proc/{}/mem: end of memory", pid_));
    done += static_cast<std::size_t>(n);
  }
  return {};
}

}  // namespace mpidbg::core::mqs
