#pragma once

// Charm++'s debugger protocol served by MPI ranks (issue 26, item 3): what
// Charm++'s own clients (its C client libccs-client, CharmDebug) ask a
// Charm++ program with +cpd, answered by a rank of an MPI program
// (../shared/protocols/ccs.md, "Handlers the Charm++ debugger uses").

#include <cstdint>
#include <optional>
#include <string>

namespace mpidbg::ccs {
class Server;
}

namespace mpidbg::rt {

class Runtime;

/// Index of the first MPIDBG_ENTRY point in charm/entries. Indices below it
/// are the interposed MPI functions in the function table's order
/// (common/include/mpidbg/MpiFunctions.hpp; 1 is the first function), the
/// same on every rank. An entry point's index is this base plus the low 20
/// bits of the FNV-1a hash of its name: the same on every rank that has
/// reached it, whatever the order ranks reached their entry points in (a
/// broadcast bp/set names one index for all ranks).
inline constexpr std::int32_t kCharmEntryIndexBase = 1 << 20;

/// Breakpoints set through debug/charm/bp/set have the id base + entry
/// index, above any id mpidbg's front end gives.
inline constexpr std::int32_t kCharmBreakpointIdBase = 1 << 30;

/// The charm/entries index of entry point `name`.
std::int32_t charmEntryIndexOf(const std::string& name) noexcept;

/// What a charm/entries index names on this rank: an MPI function or an
/// entry point this rank has reached; nullopt otherwise.
struct CharmEntryTarget {
  bool mpi = false;  ///< an MPI function (else an MPIDBG_ENTRY point)
  std::string name;  ///< "MPI_Recv" or the entry point's name
};
std::optional<CharmEntryTarget> charmEntryTarget(std::int32_t index);

/// Registers Charm++'s debugger handlers on `server` (call on the helper
/// thread, before polling, for a rank in Charm-compatible mode):
///  - debug/converse/status: 8 bytes, this rank and 1 running / 0 stopped
///    (a breakpoint, a freeze, a step);
///  - debug/converse/freeze: freezes at the next safe point (the next MPI
///    call or entry point, as a Charm++ PE freezes when its entry method
///    returns); answered empty at once, where Charm++ never answers;
///  - debug/charm/continue, debug/charm/next: resume; resume for one safe
///    point; answered empty;
///  - debug/charm/bp/set, bp/remove (the entry index in ASCII, as
///    CpdSetBreakPoint reads it): a breakpoint on that MPI function or entry
///    point; a native int, ~0 done, 0 refused (unknown index, already set);
///    bp/removeall: a native int 1;
///  - the lists charm/entries (index, name, chareIdx, inCharm, msgIdx, as
///    Charm++'s pupEntry writes them: the MPI functions under chare 0 "MPI"
///    with inCharm true, the entry points this rank has reached under chare 1
///    "MPIDBG_ENTRY"), charm/chares, and converse/localqueue: at a
///    breakpoint set this way, one item as Charm++ keeps the message it
///    stopped at (name "Breakpoint", charmMsg.ep the entry index), else none.
/// Also makes the rank print Charm++'s stop notices on stdout
/// ("CPD: <rank> BP <name>", "CPD: <rank> Freeze <pid>"). debug/converse/quit
/// and the Charm++-only lists are not served (empty reply, unknown list).
void registerCharmHandlers(ccs::Server& server, Runtime& runtime);

}  // namespace mpidbg::rt
