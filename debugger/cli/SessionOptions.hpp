#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "debugger/cli/HangTriage.hpp"

namespace mpidbg::cli {

/// The command line of an `mpidbg` session (`mpidbg [OPTIONS] -- LAUNCHER ...`
/// or `mpidbg attach [OPTIONS] FILE|charm HOST:PORT|--pid|--slurm`), parsed
/// and checked: each field is one option of `mpidbg --help` (main's CLI11
/// declarations in SessionOptions.cpp are the source of their help).
struct SessionOptions {
  bool attachMode = false;                ///< `mpidbg attach ...`
  std::vector<std::string> launcherArgv;  ///< everything after the first "--"
  std::vector<std::string> exCommands;    ///< -ex/--ex COMMAND, in order
  std::vector<std::string> scriptFiles;   ///< -x/--command FILE, in order
  std::string runtimePath;                ///< --runtime (default: next to the executable, or MPIDBG_RUNTIME)
  std::string gdbPath = "gdb";            ///< --gdb
  double gdbTimeout = 30;                 ///< --gdb-timeout, seconds
  std::string mqsDll;                     ///< --mqs-dll PATH ("": each rank's MPIR_dll_name)
  bool noStopAtInit = false;              ///< --no-stop-at-init
  bool plainCcs = false;                  ///< --ccs-plain
  bool direct = false;                    ///< --direct (no forwarding tree)
  bool json = false;                      ///< --json
  std::size_t fanOut = 4;                 ///< --fan-out
  long blockedAfterMs = 1000;             ///< --blocked-after, milliseconds
  double registerTimeout = 60;            ///< --register-timeout, seconds
  std::string listen = "loopback";        ///< --listen ADDRESS
  HangTriageOptions triage;               ///< --hang-timeout, --report; argv = launcherArgv
  std::string recordDir, replayDir;       ///< --record DIR, --replay DIR
  std::string checkFile;                  ///< --check FILE
  std::string attachFile;                 ///< attach: FILE, or "charm"
  std::string charmServer;                ///< attach charm: HOST:PORT
  std::string charmKeyFile;               ///< attach charm: --charm-key-file
  long attachPid = 0;                     ///< attach --pid
  std::string attachSlurm;                ///< attach --slurm JOBID[.STEP]
  /// The options given on the command line (by long name, "--runtime"), for
  /// the checks of what applies where.
  std::set<std::string, std::less<>> given;

  /// True when option `name` ("--runtime") was given.
  bool wasGiven(std::string_view name) const { return given.find(name) != given.end(); }
};

/// The outcome of parseSessionOptions: the options, or the exit code main
/// returns at once (0 after --help or --version, kExitUsage after an error,
/// which was printed on stderr).
struct ParsedSessionOptions {
  std::optional<SessionOptions> options;
  int exitCode = 0;
};

/// Parses `mpidbg`'s command line (argv[0] is skipped; `-ex` is gdb's spelling
/// of --ex) and checks what does not go together: launch-only options with
/// attach, a missing launcher command (then the command list goes to stdout
/// too, as gdb without a program), --hang-timeout with commands, --json with
/// --hang-timeout, the record/replay directories (prepareRecordDirs).
ParsedSessionOptions parseSessionOptions(int argc, char** argv);

/// libmpidbg-rt.so next to this executable: <prefix>/bin/mpidbg ->
/// <prefix>/lib/libmpidbg-rt.so (the build tree has the same layout), or
/// $MPIDBG_RUNTIME when set.
std::string defaultRuntimePath();

}  // namespace mpidbg::cli
