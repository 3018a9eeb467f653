#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "debugger/core/mqs/DwarfTypes.hpp"
#include "debugger/core/mqs/ElfSupport.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core::mqs {

/// What a symbol lookup wants.
enum class SymbolKind : std::uint8_t {
  Function,  ///< STT_FUNC, STT_GNU_IFUNC
  Data,      ///< anything defined with an address: objects, untyped, common, functions
};

/// Symbol binding classes in the order lookups prefer them.
enum class SymbolBinding : std::uint8_t { Global, Weak, Local };

/// One ELF executable or shared library on disk: its symbols (.symtab, then
/// .dynsym, with libelf) and, on demand, its DWARF types. Values are link-time
/// addresses; add the load bias of a mapping to get a process's address.
/// Thread-safe after open().
class ElfObject {
 public:
  /// Opens the ELF file at `path` (reading from `openPath` when that differs,
  /// e.g. /proc/PID/map_files/... for a deleted file). Objects are shared
  /// through a small cache keyed by path, device, inode, size and mtime.
  /// Errors: cannot open, not ELF, not an executable or shared object.
  static Expected<std::shared_ptr<const ElfObject>> load(const std::string& path,
                                                         const std::string& openPath = {});

  ElfObject(const ElfObject&) = delete;
  ElfObject& operator=(const ElfObject&) = delete;

  /// The path as given to load().
  const std::string& path() const { return path_; }
  /// ELFCLASS32 or ELFCLASS64.
  int elfClass() const { return elfClass_; }
  /// True for ELFDATA2MSB.
  bool bigEndian() const { return bigEndian_; }
  /// ET_EXEC or ET_DYN.
  int elfType() const { return elfType_; }
  /// Page-aligned p_vaddr of the first PT_LOAD (the one mapped from file
  /// offset 0): load bias = address of the offset-0 mapping - this.
  std::uint64_t firstLoadAddress() const { return firstLoad_; }

  /// Link-time value of `name` of `kind` and `binding`, from .symtab, else
  /// .dynsym; undefined, absolute-less and TLS symbols are never returned.
  /// A versioned name ("environ@@GLIBC_2.2.5") also answers its bare name.
  std::optional<std::uint64_t> lookup(std::string_view name, SymbolKind kind,
                                      SymbolBinding binding) const;

  /// The object's DWARF types, or nullptr when it has none (reported once
  /// through `whyNoDwarf()`).
  DwarfTypes* dwarf() const;
  /// Why dwarf() is nullptr ("no DWARF in /usr/lib/.../libmpi.so.40").
  std::string whyNoDwarf() const;

 private:
  struct Symbol {
    std::uint64_t value = 0;
    unsigned char type = 0;
    SymbolBinding binding = SymbolBinding::Local;
  };
  using SymbolIndex = std::unordered_map<std::string, std::vector<Symbol>>;

  ElfObject() = default;
  void indexSymbols() const;
  void indexTable(unsigned sectionType, SymbolIndex& index) const;

  std::string path_;
  OpenElf file_;
  int elfClass_ = 0;
  bool bigEndian_ = false;
  int elfType_ = 0;
  std::uint64_t firstLoad_ = 0;

  mutable std::once_flag symbolsOnce_;
  mutable SymbolIndex symtab_;
  mutable SymbolIndex dynsym_;
  mutable std::once_flag dwarfOnce_;
  mutable std::unique_ptr<DwarfTypes> dwarf_;
  mutable std::string noDwarf_;
};

}  // namespace mpidbg::core::mqs
