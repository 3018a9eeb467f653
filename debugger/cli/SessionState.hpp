#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "debugger/core/RankExpr.hpp"
#include "debugger/core/RankSet.hpp"

namespace mpidbg::cli {

/// What the user set up in this session that rank-set expressions name: the
/// focus, the named sets and the last equivalence classes. The CLI owns it
/// (Context::session); core sees it only through names() when it evaluates
/// an expression. It outlives the job (as after `kill`).
struct SessionState {
  /// The focus (`focus EXPR`): the ranks commands act on when given no RANKS;
  /// nullopt when there is none (every rank). Never empty when set.
  std::optional<core::RankSet> focus;
  /// Rank sets named with `set NAME = EXPR`, by name: the value at definition
  /// time (like gdb convenience variables), not re-evaluated.
  std::map<std::string, core::RankSet> namedSets;
  /// The equivalence classes of the last `where`/`equiv`, largest first:
  /// `$equiv[N]` (1-based) in a rank set names class N.
  std::vector<core::RankSet> equivalenceClasses;

  /// These names for core::Debugger::ranks (pointers into this state: valid
  /// while it lives and is not moved).
  core::RankNames names() const { return {&focus, &namedSets, &equivalenceClasses}; }
};

}  // namespace mpidbg::cli
