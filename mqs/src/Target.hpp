#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "Errors.hpp"
#include "mpi_interface.h"

namespace mpidbg::mqs {

/// One target process seen through the debugger's process callbacks: the
/// only way the DLL touches target memory. Integers are converted with
/// mqs_target_to_host_fp; a debugger that gives no converter is taken to
/// debug a target of the host's byte order (the usual case: same machine).
class Target {
 public:
  /// Largest single read the DLL asks for; bigger claims are corrupt state.
  static constexpr std::size_t kMaxRead = 64u << 20;

  Target(mqs_process* process, const mqs_process_callbacks* callbacks) noexcept
      : process_(process), callbacks_(callbacks) {}

  mqs_process* process() const noexcept { return process_; }

  /// Copies out.size() bytes from target address `address` (in pieces of at
  /// most 1 MiB). Errors: kErrBadAddress for address 0 or a range that wraps,
  /// kErrCapacity beyond kMaxRead, kErrFetchFailed when the debugger cannot
  /// read it. An empty `out` always succeeds.
  Result<void> fetch(mqs_taddr_t address, std::span<std::byte> out) const;

  /// fetch() into a new buffer of `size` bytes.
  Result<std::vector<std::byte>> fetchBytes(mqs_taddr_t address, std::size_t size) const;

  /// The unsigned integer of `size` bytes (1, 2, 4 or 8; else 0) at `in`,
  /// converted from target byte order.
  std::uint64_t toUnsigned(const std::byte* in, std::size_t size) const noexcept;

  /// As toUnsigned, sign-extended from `size` bytes.
  std::int64_t toSigned(const std::byte* in, std::size_t size) const noexcept;

 private:
  mqs_process* process_;
  const mqs_process_callbacks* callbacks_;
};

/// The text in `bytes` up to the first NUL (or all of it when there is
/// none), at most `limit` bytes, with every byte outside printable ASCII
/// replaced by '?': target strings are hostile and end up on a terminal.
std::string cleanText(std::span<const std::byte> bytes, std::size_t limit);

/// Copies `text` into `out[size]`, truncated, always NUL-terminated.
void copyText(const std::string& text, char* out, std::size_t size) noexcept;

}  // namespace mpidbg::mqs
