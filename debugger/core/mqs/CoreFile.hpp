#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "debugger/core/mqs/ElfSupport.hpp"
#include "debugger/core/mqs/TargetMemory.hpp"

namespace mpidbg::core::mqs {

/// One file mapping of the dumped process, from the core's NT_FILE note
/// (Linux fs/binfmt_elf.c fill_files_note; gdb's gcore writes the same).
struct FileMapping {
  std::uint64_t start = 0;       ///< first address
  std::uint64_t end = 0;         ///< one past the last address
  std::uint64_t fileOffset = 0;  ///< bytes into the file where `start` maps
  std::string path;
};

/// An ELF core file (from the kernel or gdb's `gcore`) as target memory.
/// Memory is the PT_LOAD segments. What the core does not hold is read from
/// the file named in NT_FILE when it is a read-only file mapping, and is an
/// error otherwise: the tail of a read-only segment with p_filesz < p_memsz
/// (the kernel's dump of unmodified file pages), and an address with no
/// segment at all (gcore leaves out unmodified read-only file mappings)
/// when it falls in a PT_LOAD without PF_W of that (ELF) file. Everything read from the core is
/// bounds-checked (a corrupt core gives errors, never a crash).
class CoreFile final : public TargetMemory {
 public:
  /// Opens and indexes `path`. Errors: cannot open, not ELF, not ET_CORE,
  /// malformed program headers or notes.
  static Expected<std::unique_ptr<CoreFile>> open(const std::string& path);

  CoreFile(const CoreFile&) = delete;
  CoreFile& operator=(const CoreFile&) = delete;

  /// Errors name the address, the core and why: "address 0x10 is not in
  /// core /tmp/c", "... is in a writable mapping the core does not hold",
  /// "cannot read <file> behind 0x...: ...".
  Expected<void> read(std::uint64_t addr, std::span<std::byte> out) override;
  /// "core <path>".
  std::string describe() const override;

  /// The path given to open().
  const std::string& path() const { return path_; }
  /// ELFCLASS32 or ELFCLASS64 of the dumped process.
  int elfClass() const { return elfClass_; }
  /// True for an ELFDATA2MSB core.
  bool bigEndian() const { return bigEndian_; }
  /// NT_FILE entries in note order (empty when the core has no NT_FILE).
  const std::vector<FileMapping>& fileMappings() const { return files_; }
  /// Value of auxiliary-vector entry `type` (AT_ENTRY, AT_EXECFN, ...) from
  /// NT_AUXV, if present.
  std::optional<std::uint64_t> auxv(std::uint64_t type) const;
  /// pr_pid of NT_PRPSINFO (64-bit cores), if present.
  std::optional<int> pid() const { return pid_; }

  /// The dumped program: the NT_FILE file mapped at AT_ENTRY, else the
  /// absolute AT_EXECFN string, else the first NT_FILE entry. Error when
  /// none of these is available.
  Expected<std::string> executable();

 private:
  struct Segment {
    std::uint64_t vaddr = 0;
    std::uint64_t fileSize = 0;
    std::uint64_t memSize = 0;
    std::uint64_t offset = 0;
    bool writable = false;
  };

  CoreFile() = default;
  Expected<void> parseNotes(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& notes);
  Expected<void> parseFileNote(std::span<const std::byte> desc);
  std::uint64_t word(std::span<const std::byte> bytes, std::size_t index) const;
  Expected<void> readFromCore(std::uint64_t offset, std::span<std::byte> out);
  Expected<void> readFromMappedFile(std::uint64_t addr, std::span<std::byte> out);
  Expected<void> readOmitted(std::uint64_t addr, std::span<std::byte> out);

  /// A PT_LOAD of a mapped ELF file, by file offsets.
  struct FileLoad {
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
    bool writable = false;
  };

  std::string path_;
  OpenElf file_;
  std::uint64_t fileSize_ = 0;
  int elfClass_ = 0;
  bool bigEndian_ = false;
  std::vector<Segment> segments_;  ///< sorted by vaddr
  std::vector<FileMapping> files_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> auxv_;
  std::optional<int> pid_;
  std::map<std::string, ScopedFd> mappedFiles_;  ///< opened on demand
  /// PT_LOADs of mapped files, read on demand (empty: not ELF).
  std::map<std::string, std::optional<std::vector<FileLoad>>> fileLoads_;
};

}  // namespace mpidbg::core::mqs
