#pragma once

// What a Charm++ program started in debug mode (+cpd) tells its debugger on
// stdout. Charm++ has no event channel: CharmDebug reads the program's output
// for lines that CpdNotify (src/conv-ccs/middle-ccs.C) and the CCS server
// (src/conv-ccs/ccs-server.C) print; so does mpidbg.

#include <optional>
#include <string>
#include <string_view>

namespace mpidbg::core::charm {

/// One line of a Charm++ program's output that is meant for the debugger.
struct CharmNotice {
  enum class Kind {
    Freeze,      ///< "CPD: PE Freeze PID": PE froze (a freeze request, startup, or a breakpoint)
    Breakpoint,  ///< "CPD: PE BP NAME": PE reached a breakpoint in entry method NAME (a Freeze follows)
    Abort,       ///< "CPD: PE Abort MESSAGE": PE called CkAbort in debug mode (it freezes)
    Signal,      ///< "CPD: PE Signal N": PE caught fatal signal N in debug mode
    ServerPort,  ///< "ccs: Server IP = HOST, Server port = PORT $": where the CCS server listens
  };
  Kind kind = Kind::Freeze;
  int pe = -1;       ///< for CPD lines
  int pid = 0;       ///< Freeze: the PE's process id
  int number = 0;    ///< Signal: the signal; ServerPort: the port
  std::string text;  ///< Breakpoint: the entry method; Abort: the message; ServerPort: the host
};

/// Parses one output line (without its newline; a trailing '\r' is ignored).
/// nullopt for every other line, including CPD lines of kinds mpidbg does not
/// use (Cross: memory corruption reports) and malformed ones.
std::optional<CharmNotice> parseCharmLine(std::string_view line);

}  // namespace mpidbg::core::charm
