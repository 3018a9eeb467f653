#pragma once

#include <functional>
#include <string_view>

#include "debugger/cli/Commands.hpp"
#include "debugger/core/ObjectQuery.hpp"

namespace mpidbg::cli {

/// Application objects and the runtime's lists (issue 8), read through
/// Charm++'s list protocol (ccs/proto/ListProtocol.hpp) and merged across ranks by
/// debugger/core/ObjectQuery.hpp.

/// `lists [RANKS]`: the lists each rank serves (name, object or list, ranks,
/// lengths).
CommandResult doLists(Context& ctx, const CommandArgs& args);
/// `print [RANKS] TARGET`: TARGET's fields merged as "majority plus
/// exceptions" (`grid.nx = 128 on [0-62]; 127 on [63]`). With one word the
/// word is TARGET; with two, the first is the rank set.
CommandResult doPrint(Context& ctx, const CommandArgs& args);

/// The processes a rank-set text names (blank: the default set), or why not.
using Resolve = std::function<Expected<core::RankSet>(std::string_view text)>;

/// `lists` on any back end's processes (MPI ranks, Charm++ PEs); `process`
/// names one in messages ("rank", "PE").
CommandResult listsOn(core::ListServers& servers, const core::RankSet& ranks, std::string_view process);
/// `print [SET] TARGET` on any back end's processes: `args` as typed,
/// `resolve` turns the set's text into processes.
CommandResult printOn(core::ListServers& servers, const Resolve& resolve, std::string_view args,
                      std::string_view process);

}  // namespace mpidbg::cli
