#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debugger/core/mqs/ElfObject.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core::mqs {

class CoreFile;

/// One ELF object mapped into the target, with its load bias (process
/// address = link-time address + bias).
struct LoadedObject {
  std::shared_ptr<const ElfObject> object;  ///< the file's symbols and types
  std::uint64_t bias = 0;                   ///< process address - link-time address
  std::uint64_t start = 0;                  ///< address of its file-offset-0 mapping
};

/// A C type found in the DWARF of a loaded object (an mqs_type for the mqs
/// callbacks). Valid as long as the SymbolSource that returned it.
struct TypeRef {
  Dwarf_Die die;                      ///< the type's DIE (typedefs not yet looked through)
  const ElfObject* object = nullptr;  ///< the object whose DWARF holds it
};

/// Symbols and types of one target: the main executable and every ELF object
/// mapped into it. Built from /proc/PID/maps (live process) or a core's
/// NT_FILE note; the bias of each file comes from its mapping of file offset
/// 0. Lookups search the main executable first, then the other objects in
/// address order, global definitions before weak ones before locals (an
/// approximation of the dynamic linker's order: exact for names defined
/// once, which is all the mqs DLLs look up). Not thread-safe (findType
/// stores its results).
class SymbolSource {
 public:
  /// The objects mapped into live process `pid` (/proc/PID/maps; deleted
  /// files are read through /proc/PID/map_files). The main executable is
  /// /proc/PID/exe. Errors: the process is gone or its maps unreadable, or
  /// the executable cannot be loaded.
  static Expected<SymbolSource> fromProcess(pid_t pid);
  /// The objects named by `core`'s NT_FILE note, read from this host's
  /// files (which must be the ones the dumped process ran). The main
  /// executable is core.executable().
  static Expected<SymbolSource> fromCore(CoreFile& core);
  /// Builds from a ready list; objects[0] is the main executable.
  static SymbolSource fromObjects(std::vector<LoadedObject> objects);

  /// The main executable (the mqs "image").
  const LoadedObject& executable() const { return objects_.front(); }
  /// Every loaded object, the main executable first.
  const std::vector<LoadedObject>& objects() const { return objects_; }

  /// Process address of function `name`, or nullopt.
  std::optional<std::uint64_t> findFunction(std::string_view name) const;
  /// Process address of data symbol `name` (any defined symbol with an
  /// address), or nullopt.
  std::optional<std::uint64_t> findSymbol(std::string_view name) const;
  /// The type `name` from the first object whose DWARF has it (the main
  /// executable first), or nullptr. Objects without DWARF are skipped.
  const TypeRef* findType(std::string_view name);
  /// Why findType cannot work in some objects: "no DWARF in X" for each
  /// object without DWARF, "; "-joined (for messages).
  std::string missingDwarf() const;

 private:
  std::optional<std::uint64_t> find(std::string_view name, SymbolKind kind) const;

  std::vector<LoadedObject> objects_;
  std::vector<std::unique_ptr<TypeRef>> types_;
};

}  // namespace mpidbg::core::mqs
