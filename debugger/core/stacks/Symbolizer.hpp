#pragma once

// Front-end symbolization of the frames ranks send as (module, offset)
// (ccs/proto/StackProtocol.hpp), with elfutils libdw over the module files as the
// front end sees them (offline: nothing is read from the ranks' memory).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ccs/proto/StackProtocol.hpp"

namespace mpidbg::core::stacks {

/// Where a frame's name came from.
enum class SymbolSource {
  Dwarf,   ///< DWARF debug information: function, file and line, inlined frames
  Symtab,  ///< the ELF symbol table (.symtab or .dynsym): a name and an offset into the symbol
  Pseudo,  ///< a pseudo module without a file ("[vdso]"): the module's name is the function
  None,    ///< nothing: the function is "??", only module and offset are known
};

/// One source-level frame. A machine frame whose pc lies in inlined code
/// gives several of these (the inlined functions, then the function that
/// holds the code).
struct SymbolFrame {
  /// Demangled function name ("solve", "ns::Solver::step(int)"); "??" when
  /// unknown; the pseudo module's own name ("[vdso]") for SymbolSource::Pseudo.
  std::string function;
  std::string file;  ///< source file as DWARF names it (often absolute); empty when unknown
  int line = 0;      ///< 1-based source line; 0 when unknown
  /// The module's path as the rank reported it; empty when the pc lay in no
  /// known module.
  std::string module;
  /// The pc as the rank sent it: relative to the module's load bias (an
  /// address in the ELF file's vaddr space), or absolute when module is empty.
  std::uint64_t offset = 0;
  /// For SymbolSource::Symtab: how far the looked-up address lies past the
  /// symbol's start, in bytes. 0 otherwise.
  std::uint64_t symbolOffset = 0;
  /// True when this frame's code was inlined into the next (outer) frame of
  /// the same pc; the outer frame's line is then the inlined call's site.
  bool inlined = false;
  SymbolSource source = SymbolSource::None;

  bool operator==(const SymbolFrame&) const = default;
};

/// The symbolization of one (module, offset, exact) triple.
struct Symbolized {
  /// Innermost first: inlined frames (inlined == true), then the function
  /// holding the code. Never empty: at worst one "??" frame.
  std::vector<SymbolFrame> frames;
  /// Empty, or one sentence about the module file that a user can act on:
  /// "cannot open /opt/app/libx.so: No such file or directory",
  /// "/opt/app/a.out was rebuilt since rank loaded it: build-id 12ab... in the
  /// rank, 34cd... in the file (names may be wrong)". A mismatch is flagged
  /// but the frame is still symbolized from the file.
  std::string warning;
};

/// Turns (module, offset, exact) frames into function names, source lines and
/// inlined frames, with libdw's offline reporting (Dwfl over the module
/// files, standard separate-debuginfo lookup: .gnu_debuglink, build-id paths
/// under /usr/lib/debug).
///
/// Each module file is opened once (on first use, kept until destruction) and
/// each distinct (module path, build-id, offset, exact) is looked up once:
/// later calls return the cached result, so a job of many ranks running the
/// same binary costs one lookup per distinct pc.
///
/// Infallible by contract: missing files, files that are not ELF, files
/// whose build-id differs from the rank's, and offsets outside any function
/// give a "??" frame (or a frame from the file, flagged) plus a warning,
/// never an error or a crash.
///
/// Not thread-safe: use one Symbolizer per thread, or guard it with a mutex.
/// References returned by symbolize() stay valid until the Symbolizer is
/// destroyed.
class Symbolizer {
 public:
  /// An empty symbolizer: no file is opened before the first symbolize().
  Symbolizer();
  /// Closes every module file opened.
  ~Symbolizer();
  /// Owns libdwfl sessions: not copyable.
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  /// Symbolizes a pc of `module` (path and build-id as the rank reported
  /// them; an empty path means the pc lies in no known module and `offset`
  /// is absolute). `offset` is pc minus the module's load bias. `exact`
  /// false means a return address: the lookup is done at offset - 1 so a
  /// call ending a function is attributed to the call's line. A path in
  /// brackets ("[vdso]") names a pseudo module without a file: the frame's
  /// function is that name.
  const Symbolized& symbolize(const ccs::proto::StackModule& module, std::uint64_t offset,
                              bool exact);

  /// Symbolizes one frame of `stacks`: its module index resolved in
  /// stacks.modules (an index outside it is treated as "no module").
  const Symbolized& symbolize(const ccs::proto::RankStacks& stacks,
                              const ccs::proto::StackFrame& frame);

  /// How many module files have been opened (or tried) so far.
  std::size_t modulesOpened() const { return files_.size(); }
  /// How many lookups were done so far (cache misses of symbolize()).
  std::size_t lookups() const { return cache_.size(); }

 private:
  struct ModuleFile;
  ModuleFile& file(const std::string& path);
  Symbolized lookup(const ccs::proto::StackModule& module, std::uint64_t offset, bool exact);

  std::map<std::string, std::unique_ptr<ModuleFile>> files_;
  std::map<std::tuple<std::string, std::string, std::uint64_t, bool>, Symbolized> cache_;
};

/// `name` demangled when it is a mangled C++ (Itanium ABI) name; otherwise
/// `name` unchanged.
std::string demangle(const std::string& name);

}  // namespace mpidbg::core::stacks
