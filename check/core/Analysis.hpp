#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check/core/ProgramModel.hpp"
#include "check/core/ThreadLevel.hpp"

namespace mpidbg::check {

/// One kind of finding: its id (the `[...]` of a diagnostic, the SARIF rule
/// id) and a sentence for SARIF's rule description.
struct Category {
  std::string_view id;
  std::string_view description;
};

/// The categories `mpidbg check` reports, in this order (SARIF rule indexes).
inline constexpr Category kCategories[] = {
    {"mpidbg-thread-level",
     "An MPI call needs a higher MPI thread level than the program asks in MPI_Init_thread"},
    {"mpidbg-concurrent-collective",
     "Two collectives on the same communicator may run at once in different threads"},
    {"mpidbg-rank-dependent-collective",
     "A collective not every rank may call: a condition on its path depends on the rank"},
};

/// The index of category `id` in kCategories.
std::size_t categoryIndex(std::string_view id) noexcept;

/// How sure a finding is: a warning (may happen), an error (erroneous when it happens).
enum class Severity { Warning, Error };

/// One diagnostic at an MPI call site.
struct Finding {
  Severity severity = Severity::Warning;
  std::string_view category;          ///< a kCategories id
  SourceLoc loc;                      ///< the MPI call
  std::string function;               ///< the MPI function called there
  std::string message;                ///< one sentence, no category
  std::string word;                   ///< the call's parallelism word (letters P, S, M, B)
  std::optional<ThreadLevel> needed;  ///< thread-level findings: the level the call needs
  std::vector<SourceLoc> related;     ///< the other call, the condition, the call chain
};

/// The result of the analysis of one program.
struct CheckReport {
  std::vector<Finding> findings;                   ///< sorted by location
  std::size_t sites = 0;                           ///< MPI call sites seen
  ThreadLevel programNeeds = ThreadLevel::Single;  ///< the highest level any call needs
  std::optional<ThreadLevel> requested;            ///< from MPI_Init(_thread), when constant
  SourceLoc requestLoc;                            ///< that call (line 0: none seen)
  bool requestNotConstant = false;                 ///< MPI_Init_thread seen, level not a constant
  /// Some function has more call chains than the analysis walks (64): the
  /// calls along the others were not looked at.
  bool contextsCut = false;
  /// Further MPI_Init/MPI_Init_thread calls that ask another level than the
  /// first (requestLoc), whose level is used for every call: files of
  /// several programs checked together.
  std::vector<SourceLoc> otherRequests;
};

/// PARCOACH's analysis over `program` (no I/O): the parallelism word of every
/// MPI call site, with the words of call sites in other functions as prefix
/// (interprocedural, recursion cut at the first repeat); the level each needs
/// against the constant level the program asks; collectives that may run
/// concurrently (PARCOACH's Algorithm 2: after the last common parallel
/// region, different single/master/critical regions, or the whole team, at
/// the same barrier count); collectives under rank-dependent conditions.
CheckReport analyze(const ProgramModel& program);

}  // namespace mpidbg::check
