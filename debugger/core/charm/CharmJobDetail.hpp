#pragma once

// Internal to CharmJob, shared by its files and included by no other:
// CharmJob.cpp (construction, the PEs as list servers, objects decoded by
// their DWARF types), CharmJobLaunch.cpp (launch, attach, the program's
// output, the end) and CharmJobControl.cpp (PE states, entry methods,
// breakpoints, freeze, continue, step, wait). The public side is
// CharmJob.hpp.

#include <string>
#include <vector>

#include "ccs/proto/PupFmt.hpp"
#include "debugger/core/charm/CharmLink.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core::charm::detail {

/// The decimal int at the front of `text` (a leading '-' allowed), or
/// `fallback` when it starts with none.
int intOf(const std::string& text, int fallback = -1);

/// Items [0, length) of `list` from `pe`, decoded.
Expected<std::vector<ccs::pupfmt::Node>> readWholeList(CharmLink& link, int pe, const std::string& list);

}  // namespace mpidbg::core::charm::detail
