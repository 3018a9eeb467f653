#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "debugger/core/RankSet.hpp"

namespace mpidbg::core {

/// Ranks that produced the same text, and that text.
struct RankGroup {
  RankSet ranks;
  std::string text;
};

/// Groups identical texts: one RankGroup per distinct text, ordered by the
/// group's lowest rank.
std::vector<RankGroup> groupByText(const std::map<int, std::string>& textByRank);

/// Renders groups one per line as `[0-1,3] text`. A multi-line text is
/// printed as a `[ranks]:` header followed by its lines indented by two
/// spaces. Ends with a newline unless empty.
std::string renderGroups(const std::vector<RankGroup>& groups);

}  // namespace mpidbg::core
