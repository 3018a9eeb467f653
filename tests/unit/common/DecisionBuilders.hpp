#pragma once

// Decisions of the record/replay log (common/include/mpidbg/DecisionLog.hpp)
// built in one line, for the tests of the log and of the replay cursor.

#include <cstdint>
#include <utility>
#include <vector>

#include "mpidbg/DecisionLog.hpp"

namespace decision_builders {

using mpidbg::record::Decision;
using mpidbg::record::DecisionKind;

/// A match (RecvMatch, ProbeMatch, ...) of `source` and `tag`.
inline Decision matchOf(DecisionKind kind, int source, int tag) {
  Decision d;
  d.kind = kind;
  d.matched = true;
  d.source = source;
  d.tag = tag;
  return d;
}

/// A test's outcome (Iprobe, Test, Testall, ...).
inline Decision flagOf(DecisionKind kind, bool flag) {
  Decision d;
  d.kind = kind;
  d.flag = flag;
  return d;
}

/// A completed index (Waitany; Testany with its flag).
inline Decision indexOf(DecisionKind kind, std::int64_t index, bool flag = false) {
  Decision d;
  d.kind = kind;
  d.index = index;
  d.flag = flag;
  return d;
}

/// The completed indices of a Waitsome/Testsome.
inline Decision someOf(DecisionKind kind, std::vector<std::int32_t> indices, bool undefined = false) {
  Decision d;
  d.kind = kind;
  d.indices = std::move(indices);
  d.someUndefined = undefined;
  return d;
}

/// The match of wildcard MPI_Irecv number `ordinal`.
inline Decision irecvOf(std::int64_t ordinal, int source, int tag) {
  Decision d = matchOf(DecisionKind::IrecvMatch, source, tag);
  d.index = ordinal;
  return d;
}

}  // namespace decision_builders
