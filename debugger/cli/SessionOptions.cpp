// `mpidbg`'s own command line (SessionOptions.hpp): CLI11's declarations of
// every session option with its help, and the checks of what goes together.
#include "debugger/cli/SessionOptions.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "debugger/cli/Commands.hpp"
#include "debugger/cli/ExitCodes.hpp"
#include "debugger/cli/RecordMain.hpp"

namespace mpidbg::cli {

std::string defaultRuntimePath() {
  if (const char* env = std::getenv("MPIDBG_RUNTIME"); env && *env) return env;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "libmpidbg-rt.so";
  return (exe.parent_path().parent_path() / "lib" / "libmpidbg-rt.so").string();
}

ParsedSessionOptions parseSessionOptions(int argc, char** argv) {
  // `mpidbg attach [OPTIONS] FILE`: the session options, a job that listens
  // (MPIDBG_LISTEN=1) instead of a launcher command.
  SessionOptions o;
  o.attachMode = argc >= 2 && std::string(argv[1]) == "attach";
  const bool attachMode = o.attachMode;
  // Everything after the first "--" is the launcher command, untouched.
  std::vector<std::string> ours;
  std::vector<std::string>& launcherArgv = o.launcherArgv;
  bool sawSeparator = false;
  for (int i = attachMode ? 2 : 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!sawSeparator && arg == "--") {
      sawSeparator = true;
      continue;
    }
    if (sawSeparator) launcherArgv.push_back(arg);
    else ours.push_back(arg == "-ex" ? "--ex" : arg);  // gdb's spelling
  }

  CLI::App app{"mpidbg: a terminal debugger for MPI jobs.\n\n"
               "Usage: mpidbg [OPTIONS] -- LAUNCHER [ARGS...]\n"
               "  e.g. mpidbg -- mpiexec.mpich -n 4 ./app\n"
               "       mpidbg -ex run -ex 'wait 30' -ex status -ex kill -- mpiexec.mpich -n 4 ./app\n"
               "       mpidbg --hang-timeout 60 --report hang.json -- mpiexec.mpich -n 4 ./app   (CI: report a hang)\n"
               "       mpidbg --json -x cmds.txt -- mpiexec.mpich -n 4 ./app   (one JSON object per command)\n"
               "       mpidbg core --mqs core.1234 core.1235 ...   (queues and hang verdict from core files)\n"
               "       mpidbg --record rec -- mpiexec.mpich -n 4 ./app; mpidbg --replay rec -- mpiexec.mpich -n 4 ./app\n"
               "       mpidbg record show|compare ...   (decision logs of record and replay)\n"
               "       mpidbg check -p BUILD_DIR [FILES...]   (thread levels and collectives from the source)\n"
               "       mpidbg attach FILE   (a job started with the runtime preloaded and MPIDBG_LISTEN=1;\n"
               "                             its rank 0 names FILE on stderr)\n"
               "       mpidbg -- ./charmrun +p4 ./app ARGS   (a Charm++ program: PEs stand for ranks)\n"
               "       mpidbg attach charm HOST:PORT [--charm-key-file FILE]   (a running Charm++ program)\n\n"
               "Without -ex/-x, commands come from the prompt (a terminal) or from stdin.\n"
               "Type 'help' at the prompt for the commands.",
               "mpidbg"};
  o.runtimePath = defaultRuntimePath();
  app.add_option("--ex", o.exCommands, "Run COMMAND (repeatable; also spelled -ex)")->type_name("COMMAND");
  app.add_option("-x,--command", o.scriptFiles, "Run the commands in FILE (repeatable)")->type_name("FILE");
  app.add_option("--runtime", o.runtimePath, "Path of libmpidbg-rt.so")->capture_default_str();
  app.add_option("--gdb", o.gdbPath, "gdb executable")->capture_default_str();
  app.add_option("--gdb-timeout", o.gdbTimeout,
                 "Seconds one gdb command may take on a rank before that rank is reported as not answering")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--mqs-dll", o.mqsDll,
                 "Message-queue DLL for ranks read from memory (default: the one each rank names in MPIR_dll_name)")
      ->type_name("PATH");
  app.add_flag("--no-stop-at-init", o.noStopAtInit, "Do not hold ranks at the end of MPI_Init");
  app.add_flag("--ccs-plain", o.plainCcs,
               "Talk to the ranks in unauthenticated plain CCS instead of TLS with the session key");
  app.add_option("--blocked-after", o.blockedAfterMs, "Milliseconds inside one MPI call before a rank counts as blocked")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--register-timeout", o.registerTimeout, "Seconds to wait for every rank to register")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--listen", o.listen,
                 "Where the front end listens for the ranks: loopback (ranks on this host only), host (this "
                 "host's address, for ranks on other hosts; their servers then bind the address that reaches it), "
                 "any (every interface), or an IPv4 address or host name")
      ->capture_default_str()->type_name("ADDRESS");
  app.add_flag("--direct", o.direct,
               "Ask each rank over its own connection instead of through the ranks' forwarding tree");
  app.add_option("--fan-out", o.fanOut, "Fan-out of the forwarding tree")
      ->capture_default_str()->check(CLI::Range(1, 64));
  app.add_option("--hang-timeout", o.triage.timeoutSeconds,
                 "Run the job without commands; if no rank makes MPI progress for SECONDS, report the hang, "
                 "kill the job and exit 124")
      ->type_name("SECONDS")
      ->check(CLI::Validator([](std::string& text) { return hangTimeoutError(text); }, "", "SECONDS"));
  app.add_option("--report", o.triage.reportPath,
                 "With --hang-timeout: write the hang report as JSON to FILE and as text to FILE with .txt")
      ->type_name("FILE");
  app.add_flag("--json", o.json,
               "Print each command's result as one JSON object per line on stdout, events too "
               "(docs/json-schema.md, schema mpidbg/1); the job's own output goes to stderr");
  app.add_option("--record", o.recordDir,
                 "Record every rank's message-matching decisions (wildcard matches, completion orders, "
                 "test results) into DIR/rank-R.rec")
      ->type_name("DIR");
  app.add_option("--replay", o.replayDir,
                 "Replay the decisions recorded in DIR: wildcard receives match as recorded; a rank whose "
                 "program asks for a decision the record does not hold stops with a report")
      ->type_name("DIR");
  app.add_option("--check", o.checkFile,
                 "Join the run to mpidbg check's findings (mpidbg check --format json -o FILE ...): a thread-level "
                 "violation at a flagged site says it was predicted, 'info check' lists which flagged sites "
                 "violated, hang names a flagged rank-dependent collective where ranks wait")
      ->type_name("FILE");
  if (attachMode) {
    app.add_option("file", o.attachFile,
                   "The attach file of a job started with the runtime preloaded and MPIDBG_LISTEN=1; or the word "
                   "'charm' followed by HOST:PORT, the CCS server of a Charm++ program started with ++server "
                   "++server-port PORT +cpd")
        ->type_name("FILE");
    app.add_option("server", o.charmServer, "With 'charm': HOST:PORT of the Charm++ program's CCS server")
        ->type_name("HOST:PORT");
    app.add_option("--charm-key-file", o.charmKeyFile,
                   "With 'charm': the ++server-auth key file of the Charm++ program (SHA-1 mode)")
        ->type_name("FILE");
    app.add_option("--pid", o.attachPid,
                   "Attach to the ranks of this launcher process on this host, without the runtime: from its "
                   "MPIR_proctable (srun; mpirun started under a debugger), else the ranks under it (mpiexec, "
                   "mpirun). where, gdb, queues and hang work; breakpoints, freeze and objects need the runtime")
        ->type_name("PID")
        ->check(CLI::PositiveNumber);
    app.add_option("--slurm", o.attachSlurm,
                   "Attach to the tasks of Slurm job step JOBID[.STEP] on this node (scontrol listpids), "
                   "without the runtime")
        ->type_name("JOBID[.STEP]");
  }
  app.set_version_flag("--version", "mpidbg 0.1.0");
  app.footer("Commands: 'help' at the prompt, docs/command-reference.md, or man mpidbg (after cmake --install).");
  try {
    std::vector<std::string> reversed(ours.rbegin(), ours.rend());
    app.parse(reversed);
  } catch (const CLI::ExtrasError& e) {
    // `mpidbg --json attach FILE`: the subcommand words only count first.
    for (const char* word : {"attach", "core", "record"})
      if (!attachMode && std::find(ours.begin(), ours.end(), word) != ours.end()) {
        std::cerr << "error: '" << word << "' must come right after mpidbg, before any option: mpidbg " << word
                  << " [OPTIONS] ...\n";
        return {std::nullopt, kExitUsage};
      }
    app.exit(e);
    return {std::nullopt, kExitUsage};
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return {std::nullopt, rc == 0 ? 0 : kExitUsage};
  }
  for (const char* option : {"--runtime", "--no-stop-at-init", "--ccs-plain", "--hang-timeout", "--report",
                             "--record", "--replay"})
    if (app.count(option) != 0) o.given.insert(option);
  if (attachMode) {
    // What only a launch can do.
    for (const char* option : {"--runtime", "--no-stop-at-init", "--ccs-plain", "--hang-timeout", "--report",
                               "--record", "--replay"})
      if (o.wasGiven(option)) {
        std::cerr << "error: " << option << " applies to a job mpidbg launches, not to 'mpidbg attach'\n";
        return {std::nullopt, kExitUsage};
      }
    if (!launcherArgv.empty() || sawSeparator) {
      std::cerr << "error: 'mpidbg attach FILE' takes no launcher command (the job is running already)\n";
      return {std::nullopt, kExitUsage};
    }
    if (o.attachFile == "charm" && o.charmServer.empty()) {
      std::cerr << "error: usage: mpidbg attach charm HOST:PORT [--charm-key-file FILE]\n";
      return {std::nullopt, kExitUsage};
    }
    if (o.attachFile != "charm" && (!o.charmServer.empty() || !o.charmKeyFile.empty())) {
      std::cerr << "error: HOST:PORT and --charm-key-file go with 'mpidbg attach charm HOST:PORT'\n";
      return {std::nullopt, kExitUsage};
    }
    const int ways = (o.attachFile.empty() ? 0 : 1) + (o.attachPid > 0 ? 1 : 0) + (o.attachSlurm.empty() ? 0 : 1);
    if (ways != 1) {
      std::cerr << "error: usage: mpidbg attach [OPTIONS] FILE | --pid LAUNCHER_PID | --slurm JOBID[.STEP]\n";
      return {std::nullopt, kExitUsage};
    }
  } else if (launcherArgv.empty()) {
    std::cerr << "error: no launcher command; usage: mpidbg [OPTIONS] -- mpiexec.mpich -n 4 ./app\n";
    // As gdb without a program: what can be done, once there is a job.
    std::cout << "\n" << commandListText();
    return {std::nullopt, kExitUsage};
  }
  o.triage.argv = launcherArgv;
  if (auto checked = checkHangTriageOptions(o.triage, !o.exCommands.empty() || !o.scriptFiles.empty()); !checked) {
    std::cerr << "error: " << checked.error().message << "\n";
    return {std::nullopt, kExitUsage};
  }
  if (o.json && o.triage.enabled()) {
    std::cerr << "error: --json is for commands; --hang-timeout writes its JSON report with --report FILE\n";
    return {std::nullopt, kExitUsage};
  }

  if (const std::string error = prepareRecordDirs(o.recordDir, o.replayDir); !error.empty()) {
    std::cerr << "error: " << error << "\n";
    return {std::nullopt, kExitUsage};
  }
  return {std::move(o), 0};
}

}  // namespace mpidbg::cli
