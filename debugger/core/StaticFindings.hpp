#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// One finding of `mpidbg check --format json` (docs/check.md, "Output
/// formats"): the MPI call it is about, its category
/// (`mpidbg-thread-level`, `mpidbg-concurrent-collective`,
/// `mpidbg-rank-dependent-collective`), and its sentence.
struct StaticFinding {
  std::string file;  ///< as the check printed it: relative to where it ran, or absolute
  unsigned line = 0;
  unsigned column = 0;
  std::string severity;  ///< "warning" or "error"
  std::string category;
  std::string function;  ///< the MPI function called there
  std::string message;
  std::vector<std::string> related;  ///< "file:line:col": the other call, the condition, the call chain

  /// "coll_deadlock.c:19": the file's last component and the line, the form
  /// of the run's call sites (mpiCallSites, the violation stacks).
  std::string site() const;
  /// Whether the runtime's thread-level checks can see this finding happen
  /// (thread-level and concurrent-collective categories).
  bool threadCategory() const;
};

/// The findings a run is joined to (`mpidbg --check FILE`).
struct StaticFindings {
  std::string path;  ///< the file they were read from
  std::vector<StaticFinding> findings;
  /// The indexes of the findings at `site` ("x.c:19", or "x.c:19 in main" as
  /// call sites are written: the text after the first blank is ignored),
  /// matched by the file's last component and the line; only the thread
  /// categories when `threadOnly`, only rank-dependent collectives when not.
  std::vector<std::size_t> at(std::string_view site, bool threadOnly) const;
};

/// Reads the JSON `mpidbg check --format json` writes. Errors name the file
/// and what is wrong: unreadable, not JSON, no `findings` array, a finding
/// without `file`, `line`, `category` or `message`.
Expected<StaticFindings> loadStaticFindings(const std::string& path);

}  // namespace mpidbg::core
