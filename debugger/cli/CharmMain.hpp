#pragma once

// A session on a Charm++ program (issue 26): `mpidbg -- charmrun ...` and
// `mpidbg attach charm HOST:PORT`.

#include <functional>
#include <string>
#include <vector>

#include "debugger/cli/Commands.hpp"

namespace mpidbg::cli {

/// How the session reaches its Charm++ program: a charmrun command to start,
/// or the CCS server of a running one.
struct CharmSessionOptions {
  std::vector<std::string> argv;  ///< charmrun and its arguments; empty when attaching
  std::string server;             ///< HOST:PORT when attaching
  std::string keyFile;            ///< attaching: the program's ++server-auth file ("" for plain)
  bool plain = false;             ///< launching: no ++server-auth (mpidbg --ccs-plain)
  bool suspend = true;            ///< launching: PEs freeze once initialized (not with --no-stop-at-init)
  double startTimeout = 60;       ///< seconds for charmrun to bring the program up
  bool batch = false;             ///< commands come from -ex/-x/stdin
};

/// Starts or attaches to the program, prints the banner, runs the commands
/// with `runCommands`, then kills a program it started (detaches from an
/// attached one). Returns the process exit code (ExitCodes.hpp): 0, the
/// commands' failure, or a launch failure.
int runCharmSession(core::Debugger& debugger, Console& console, const CharmSessionOptions& options,
                    const std::function<bool(Context&)>& runCommands);

}  // namespace mpidbg::cli
