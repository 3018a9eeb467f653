#pragma once

#include <sys/types.h>

#include "debugger/core/mqs/TargetMemory.hpp"
#include "mpidbg/ScopedFd.hpp"

namespace mpidbg::core::mqs {

/// The memory of a live process on this host, read with process_vm_readv(2).
/// Works whether the process runs, is stopped by SIGSTOP, or is held by
/// gdb/ptrace (reads of a running process may be torn). Where
/// process_vm_readv refuses a range (a page without read permission), the
/// read is retried through /proc/PID/mem, which the kernel serves with
/// ptrace-like access. Needs the same permission as ptrace-attaching (same
/// user and kernel.yama.ptrace_scope allowing it, or CAP_SYS_PTRACE).
class ProcessMemory final : public TargetMemory {
 public:
  /// Reads `pid`; nothing is opened until the first read.
  explicit ProcessMemory(pid_t pid) : pid_(pid) {}

  /// Errors: "cannot read N bytes at 0x... of pid P: <strerror>".
  Expected<void> read(std::uint64_t addr, std::span<std::byte> out) override;
  /// "pid P".
  std::string describe() const override;
  /// The process read.
  pid_t pid() const { return pid_; }

 private:
  Expected<void> readProcMem(std::uint64_t addr, std::span<std::byte> out);

  pid_t pid_;
  ScopedFd memFd_;  ///< /proc/PID/mem, opened on first need
};

}  // namespace mpidbg::core::mqs
