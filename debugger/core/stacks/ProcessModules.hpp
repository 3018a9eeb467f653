#pragma once

// The ELF objects mapped into a live process, read from /proc/PID/maps: what
// turns a program counter that gdb printed into the (module, offset) frame a
// rank's runtime sends (ccs/proto/StackProtocol.hpp), so that stacks read through
// gdb are symbolized by the same Symbolizer as the runtime's captures and
// merge with them (issue 24 item 4: one stack, one group).

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/proto/StackProtocol.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core::stacks {

/// One executable mapping of a module: [start, end) in the process.
struct MappedRange {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::int32_t module = -1;  ///< index into ProcessModules::modules()
};

/// The modules of one process and where each lies. Built once per stack
/// read; immutable afterwards (any thread may call locate()).
class ProcessModules {
 public:
  /// The lowest page-aligned p_vaddr of a PT_LOAD segment of the ELF file
  /// at `path` (0 for PIE executables and shared libraries, 0x400000 for a
  /// typical non-PIE executable), or an error when the file cannot be read
  /// as ELF.
  using FirstLoadAddress = std::function<Expected<std::uint64_t>(const std::string& path)>;

  /// The modules of live process `pid` (/proc/PID/maps; ELF program headers
  /// read from the mapped files). Errors: the maps cannot be read ("cannot
  /// read /proc/12/maps: No such file or directory").
  static Expected<ProcessModules> read(pid_t pid);

  /// Parses `maps` (the text of /proc/PID/maps: "start-end perms offset dev
  /// inode path" per line). A file's load bias (dl_iterate_phdr's dlpi_addr)
  /// is the start of its file-offset-0 mapping minus `firstLoad(path)`; a
  /// file whose headers cannot be read, or with no offset-0 mapping, is left
  /// out (its pcs are in no module). "[vdso]" is a module of bias its start.
  /// Only executable mappings are ranges: a pc lies in code.
  static ProcessModules parse(std::string_view maps, const FirstLoadAddress& firstLoad);

  /// `pc` as a frame: the module whose executable mapping holds it and pc
  /// minus that module's load bias, or module -1 and the absolute pc.
  ccs::proto::StackFrame locate(std::uint64_t pc, bool exact) const;

  /// The modules, in order of first mapping (build-ids not read: empty).
  const std::vector<ccs::proto::StackModule>& modules() const { return modules_; }

 private:
  std::vector<ccs::proto::StackModule> modules_;
  std::vector<std::uint64_t> bias_;     ///< per module
  std::vector<MappedRange> ranges_;     ///< sorted by start
};

/// FirstLoadAddress from the file itself (libelf): the lowest PT_LOAD
/// p_vaddr rounded down to a page.
Expected<std::uint64_t> firstLoadAddressOf(const std::string& path);

}  // namespace mpidbg::core::stacks
