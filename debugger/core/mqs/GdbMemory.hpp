#pragma once

#include <chrono>

#include "debugger/core/mqs/TargetMemory.hpp"

namespace mpidbg::gdbmi {
class Session;
}

namespace mpidbg::core::mqs {

/// The memory of the process a gdb/MI Session holds, read with
/// `-data-read-memory-bytes ADDR COUNT` (GDB manual, "GDB/MI Data
/// Manipulation"), for when gdb is the only access (a remote rank through
/// gdbserver, or ptrace rules that allow only gdb). The target must be
/// stopped. Reads larger than 64 KiB are split. The Session must outlive
/// this object and is driven from the calling thread.
class GdbMemory final : public TargetMemory {
 public:
  /// Reads through `session` (attached and stopped); each MI command is
  /// bounded by `timeout`.
  explicit GdbMemory(gdbmi::Session& session,
                     std::chrono::milliseconds timeout = std::chrono::milliseconds(5000))
      : session_(session), timeout_(timeout) {}

  /// Errors: gdb's own message ("cannot read 8 bytes at 0x0 through gdb:
  /// Cannot access memory at address 0x0"), a reply that does not cover the
  /// range, malformed hex, or the Session's transport errors.
  Expected<void> read(std::uint64_t addr, std::span<std::byte> out) override;
  /// "gdb (pid P)" or "gdb".
  std::string describe() const override;

 private:
  Expected<void> readChunk(std::uint64_t addr, std::span<std::byte> out);

  gdbmi::Session& session_;
  std::chrono::milliseconds timeout_;
};

}  // namespace mpidbg::core::mqs
