#pragma once

// Small RAII and setup helpers over elfutils' libelf, shared by the ELF
// object, DWARF and core-file readers of the mqs host.

#include <libelf.h>

#include <memory>
#include <string>

#include "mpidbg/Error.hpp"
#include "mpidbg/ScopedFd.hpp"

namespace mpidbg::core::mqs {

/// Calls elf_end on destruction.
struct ElfEnd {
  void operator()(Elf* elf) const { ::elf_end(elf); }
};
/// An owned libelf descriptor.
using ElfPtr = std::unique_ptr<Elf, ElfEnd>;

/// An open ELF file: the descriptor and libelf's handle over it (read-only,
/// mmapped). `elf` must be destroyed before `fd`, which the member order
/// guarantees.
struct OpenElf {
  ScopedFd fd;
  ElfPtr elf;
};

/// Opens `path` read-only and starts libelf on it (elf_version is set on
/// first use). Errors: "cannot open <path>: <strerror>", "<path> is not an
/// ELF file" (archives and other kinds are refused).
Expected<OpenElf> openElf(const std::string& path);

/// libelf's last error as text.
std::string elfError();

}  // namespace mpidbg::core::mqs
