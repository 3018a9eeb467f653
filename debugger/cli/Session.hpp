#pragma once

#include "debugger/cli/SessionOptions.hpp"

namespace mpidbg::cli {

/// Runs the session `options` describe (parseSessionOptions): reads the
/// command files and --check findings, sets up the console (--json moves
/// stdout) and the debugger, then attaches (mpidbg attach), debugs a
/// Charm++ program (charmrun, attach charm) or launches the MPI job, and runs
/// the commands: -x/-ex, else stdin as a script, else the prompt; or the hang
/// triage (--hang-timeout). SIGTERM and SIGHUP end a job it started. Returns
/// the exit code (ExitCodes.hpp; a launched job's own exit status when every
/// command succeeded and the job ended by itself).
int runSession(const SessionOptions& options);

}  // namespace mpidbg::cli
