#pragma once

#include <string_view>

#include "debugger/cli/Commands.hpp"

namespace mpidbg::cli {

/// Application objects and the runtime's lists (issue 8), read through
/// Charm++'s list protocol (ccs/ListProtocol.hpp) and merged across ranks by
/// debugger/core/ObjectQuery.hpp.

/// `lists [RANKS]`: the lists each rank serves (name, object or list, ranks,
/// lengths).
CommandResult doLists(Context& ctx, std::string_view args);
/// `print [RANKS] TARGET`: TARGET's fields merged as "majority plus
/// exceptions" (`grid.nx = 128 on [0-62]; 127 on [63]`). With one word the
/// word is TARGET; with two, the first is the rank set.
CommandResult doPrint(Context& ctx, std::string_view args);

}  // namespace mpidbg::cli
