#pragma once

#include <elfutils/libdw.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "debugger/core/mqs/ElfSupport.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core::mqs {

/// The C types described by the DWARF of one ELF object (libdw), for the mqs
/// callbacks mqs_find_type / mqs_field_offset / mqs_sizeof. Types are indexed
/// by name on the first lookup (top-level DIEs of every unit; a complete
/// definition wins over a declaration). Thread-safe.
class DwarfTypes {
 public:
  /// DWARF of `elf` (the object at `path`), or of its separate debug file
  /// (/usr/lib/debug/.build-id/xx/yyyy.debug, then .gnu_debuglink beside the
  /// object and under /usr/lib/debug). `elf` must outlive the result.
  /// Error "no DWARF in <path>" when there is none (a stripped library).
  static Expected<std::unique_ptr<DwarfTypes>> open(Elf* elf, const std::string& path);

  DwarfTypes(const DwarfTypes&) = delete;
  DwarfTypes& operator=(const DwarfTypes&) = delete;
  ~DwarfTypes();

  /// The type called `name`: a typedef or base type, or a structure, union
  /// or enumeration tag; "struct X", "union X" and "enum X" name tags only.
  /// nullptr when absent. The DIE stays valid as long as this object.
  const Dwarf_Die* find(std::string_view name);

  /// Byte offset of member `field` in the structure or union `type`
  /// (typedefs and qualifiers are looked through; members of anonymous
  /// structures and unions are found too), or -1.
  static int fieldOffset(const Dwarf_Die& type, std::string_view field);
  /// sizeof(`type`) in bytes, or -1 when DWARF does not say.
  static int byteSize(const Dwarf_Die& type);

 private:
  DwarfTypes() = default;
  void buildIndex();

  OpenElf debugFile_;  ///< the separate debug file, when DWARF came from one
  Dwarf* dwarf_ = nullptr;
  std::once_flag indexOnce_;
  std::unordered_map<std::string, Dwarf_Die> names_;  ///< typedefs, base types
  std::unordered_map<std::string, Dwarf_Die> tags_;   ///< struct/union/enum tags
};

}  // namespace mpidbg::core::mqs
