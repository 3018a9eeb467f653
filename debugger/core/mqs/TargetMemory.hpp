#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "mpidbg/Error.hpp"

namespace mpidbg::core::mqs {

/// Read access to the address space of one target (a live rank, a rank held
/// by gdb, or a core file). Implementations never crash on a bad address:
/// every failure is an Error naming the address, the length and the reason.
/// Not thread-safe; one reader at a time.
class TargetMemory {
 public:
  virtual ~TargetMemory() = default;

  /// Fills all of `out` with the target's bytes at [addr, addr + out.size()).
  /// Partial reads are errors ("cannot read 16 bytes at 0x1000 of pid 42:
  /// Bad address"); `out` is then unspecified.
  virtual Expected<void> read(std::uint64_t addr, std::span<std::byte> out) = 0;

  /// What is being read, for messages: "pid 42", "core /tmp/core.42", ...
  virtual std::string describe() const = 0;
};

/// Reads a NUL-terminated string of at most `maxBytes` bytes (NUL excluded)
/// at `addr`, in chunks that stop at page ends so a string near the end of a
/// mapping is still readable. Error when no NUL is found within `maxBytes`
/// or memory fails before the NUL.
Expected<std::string> readCString(TargetMemory& memory, std::uint64_t addr,
                                  std::size_t maxBytes = 4096);

}  // namespace mpidbg::core::mqs
