#include "debugger/core/mqs/ElfSupport.hpp"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace mpidbg::core::mqs {

std::string elfError() {
  const char* text = ::elf_errmsg(-1);
  return text ? text : "unknown libelf error";
}

Expected<OpenElf> openElf(const std::string& path) {
  static std::once_flag versionOnce;
  std::call_once(versionOnce, [] { ::elf_version(EV_CURRENT); });
  OpenElf out;
  out.fd.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!out.fd.valid()) return fail("cannot open " + path + ": " + std::strerror(errno));
  out.elf.reset(::elf_begin(out.fd.get(), ELF_C_READ_MMAP, nullptr));
  if (!out.elf) return fail("cannot read " + path + ": " + elfError());
  if (::elf_kind(out.elf.get()) != ELF_K_ELF) return fail(path + " is not an ELF file");
  return out;
}

}  // namespace mpidbg::core::mqs
