// mpidbg: the terminal debugger for MPI jobs. Thin: parses options, launches
// the job under core::Debugger, then runs commands from -ex/-x, stdin or the
// readline prompt.

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "debugger/cli/CharmMain.hpp"
#include "debugger/cli/CoreMain.hpp"
#include "debugger/cli/Commands.hpp"
#include "debugger/cli/ExitCodes.hpp"
#include "debugger/cli/HangTriage.hpp"
#include "debugger/cli/JsonOutput.hpp"
#include "debugger/cli/RecordMain.hpp"
#include "debugger/cli/Repl.hpp"
#include "debugger/core/HangReport.hpp"
#include "debugger/core/Launcher.hpp"
#include "debugger/core/OutputRelay.hpp"
#include "debugger/core/StaticFindings.hpp"
#include "debugger/core/charm/CharmJob.hpp"
#include "debugger/core/StackQuery.hpp"

using namespace mpidbg;

namespace {

/// libmpidbg-rt.so next to this executable: <prefix>/bin/mpidbg ->
/// <prefix>/lib/libmpidbg-rt.so (the build tree has the same layout).
std::string defaultRuntimePath() {
  if (const char* env = std::getenv("MPIDBG_RUNTIME"); env && *env) return env;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "libmpidbg-rt.so";
  return (exe.parent_path().parent_path() / "lib" / "libmpidbg-rt.so").string();
}

/// `mpidbg check ARGS`: runs mpidbg-check next to this executable with ARGS
/// (docs/check.md). Returns only when it could not be started (64).
int checkMain(char** args) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string tool = ec ? "mpidbg-check" : (exe.parent_path() / "mpidbg-check").string();
  std::vector<char*> argv{const_cast<char*>(tool.c_str())};
  for (char** a = args; *a; ++a) argv.push_back(*a);
  argv.push_back(nullptr);
  ::execv(tool.c_str(), argv.data());
  std::cerr << "mpidbg check: cannot run " << tool << ": " << std::strerror(errno)
            << " (built only where Clang's LibTooling is installed: scripts/install-deps)\n";
  return cli::kExitUsage;
}

std::vector<std::string> readScript(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read command file '" + path + "': " + std::strerror(errno);
    return {};
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

/// SIGTERM and SIGHUP (a CI job's timeout, a closed terminal) end the job
/// mpidbg started, as gdb ends the inferiors it started, then mpidbg itself
/// with the signal's default action. A detached job is left alone. SIGKILL
/// cannot be caught: the ranks then notice the lost front end and resume.
static void onTermination(int sig) {
  mpidbg::core::endOwnedJob();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

static void installTerminationHandlers() {
  struct sigaction sa{};
  sa.sa_handler = onTermination;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
}

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "core") return cli::coreMain({argv + 2, argv + argc});
  if (argc >= 2 && std::string(argv[1]) == "record") return cli::recordMain({argv + 2, argv + argc});
  if (argc >= 2 && std::string(argv[1]) == "check") return checkMain(argv + 2);
  // `mpidbg attach [OPTIONS] FILE`: the session options, a job that listens
  // (MPIDBG_LISTEN=1) instead of a launcher command.
  const bool attachMode = argc >= 2 && std::string(argv[1]) == "attach";
  // Everything after the first "--" is the launcher command, untouched.
  std::vector<std::string> ours, launcherArgv;
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
  std::vector<std::string> exCommands, scriptFiles;
  std::string runtimePath = defaultRuntimePath();
  std::string gdbPath = "gdb";
  bool noStopAtInit = false;
  bool plainCcs = false;
  bool direct = false;
  bool json = false;
  std::size_t fanOut = 4;
  long blockedAfterMs = 1000;
  double registerTimeout = 60;
  app.add_option("--ex", exCommands, "Run COMMAND (repeatable; also spelled -ex)")->type_name("COMMAND");
  app.add_option("-x,--command", scriptFiles, "Run the commands in FILE (repeatable)")->type_name("FILE");
  app.add_option("--runtime", runtimePath, "Path of libmpidbg-rt.so")->capture_default_str();
  app.add_option("--gdb", gdbPath, "gdb executable")->capture_default_str();
  double gdbTimeout = 30;
  app.add_option("--gdb-timeout", gdbTimeout,
                 "Seconds one gdb command may take on a rank before that rank is reported as not answering")
      ->capture_default_str()->check(CLI::PositiveNumber);
  std::string mqsDll;
  app.add_option("--mqs-dll", mqsDll,
                 "Message-queue DLL for ranks read from memory (default: the one each rank names in MPIR_dll_name)")
      ->type_name("PATH");
  app.add_flag("--no-stop-at-init", noStopAtInit, "Do not hold ranks at the end of MPI_Init");
  app.add_flag("--ccs-plain", plainCcs,
               "Talk to the ranks in unauthenticated plain CCS instead of TLS with the session key");
  app.add_option("--blocked-after", blockedAfterMs, "Milliseconds inside one MPI call before a rank counts as blocked")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--register-timeout", registerTimeout, "Seconds to wait for every rank to register")
      ->capture_default_str()->check(CLI::PositiveNumber);
  std::string listen = "loopback";
  app.add_option("--listen", listen,
                 "Where the front end listens for the ranks: loopback (ranks on this host only), host (this "
                 "host's address, for ranks on other hosts; their servers then bind the address that reaches it), "
                 "any (every interface), or an IPv4 address or host name")
      ->capture_default_str()->type_name("ADDRESS");
  app.add_flag("--direct", direct,
               "Ask each rank over its own connection instead of through the ranks' forwarding tree");
  app.add_option("--fan-out", fanOut, "Fan-out of the forwarding tree")
      ->capture_default_str()->check(CLI::Range(1, 64));
  cli::HangTriageOptions triage;
  app.add_option("--hang-timeout", triage.timeoutSeconds,
                 "Run the job without commands; if no rank makes MPI progress for SECONDS, report the hang, "
                 "kill the job and exit 124")
      ->type_name("SECONDS")
      ->check(CLI::Validator([](std::string& text) { return cli::hangTimeoutError(text); }, "", "SECONDS"));
  app.add_option("--report", triage.reportPath,
                 "With --hang-timeout: write the hang report as JSON to FILE and as text to FILE with .txt")
      ->type_name("FILE");
  app.add_flag("--json", json,
               "Print each command's result as one JSON object per line on stdout, events too "
               "(docs/json-schema.md, schema mpidbg/1); the job's own output goes to stderr");
  std::string recordDir, replayDir;
  app.add_option("--record", recordDir,
                 "Record every rank's message-matching decisions (wildcard matches, completion orders, "
                 "test results) into DIR/rank-R.rec")
      ->type_name("DIR");
  app.add_option("--replay", replayDir,
                 "Replay the decisions recorded in DIR: wildcard receives match as recorded; a rank whose "
                 "program asks for a decision the record does not hold stops with a report")
      ->type_name("DIR");
  std::string checkFile;
  app.add_option("--check", checkFile,
                 "Join the run to mpidbg check's findings (mpidbg check --format json -o FILE ...): a thread-level "
                 "violation at a flagged site says it was predicted, 'info check' lists which flagged sites "
                 "violated, hang names a flagged rank-dependent collective where ranks wait")
      ->type_name("FILE");
  std::string attachFile, attachSlurm, charmServer, charmKeyFile;
  long attachPid = 0;
  if (attachMode) {
    app.add_option("file", attachFile,
                   "The attach file of a job started with the runtime preloaded and MPIDBG_LISTEN=1; or the word "
                   "'charm' followed by HOST:PORT, the CCS server of a Charm++ program started with ++server "
                   "++server-port PORT +cpd")
        ->type_name("FILE");
    app.add_option("server", charmServer, "With 'charm': HOST:PORT of the Charm++ program's CCS server")
        ->type_name("HOST:PORT");
    app.add_option("--charm-key-file", charmKeyFile,
                   "With 'charm': the ++server-auth key file of the Charm++ program (SHA-1 mode)")
        ->type_name("FILE");
    app.add_option("--pid", attachPid,
                   "Attach to the ranks of this launcher process on this host, without the runtime: from its "
                   "MPIR_proctable (srun; mpirun started under a debugger), else the ranks under it (mpiexec, "
                   "mpirun). where, gdb, queues and hang work; breakpoints, freeze and objects need the runtime")
        ->type_name("PID")
        ->check(CLI::PositiveNumber);
    app.add_option("--slurm", attachSlurm,
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
        return cli::kExitUsage;
      }
    app.exit(e);
    return cli::kExitUsage;
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : cli::kExitUsage;
  }
  if (attachMode) {
    // What only a launch can do.
    for (const char* option : {"--runtime", "--no-stop-at-init", "--ccs-plain", "--hang-timeout", "--report",
                               "--record", "--replay"})
      if (app.count(option) != 0) {
        std::cerr << "error: " << option << " applies to a job mpidbg launches, not to 'mpidbg attach'\n";
        return cli::kExitUsage;
      }
    if (!launcherArgv.empty() || sawSeparator) {
      std::cerr << "error: 'mpidbg attach FILE' takes no launcher command (the job is running already)\n";
      return cli::kExitUsage;
    }
    if (attachFile == "charm" && charmServer.empty()) {
      std::cerr << "error: usage: mpidbg attach charm HOST:PORT [--charm-key-file FILE]\n";
      return cli::kExitUsage;
    }
    if (attachFile != "charm" && (!charmServer.empty() || !charmKeyFile.empty())) {
      std::cerr << "error: HOST:PORT and --charm-key-file go with 'mpidbg attach charm HOST:PORT'\n";
      return cli::kExitUsage;
    }
    const int ways = (attachFile.empty() ? 0 : 1) + (attachPid > 0 ? 1 : 0) + (attachSlurm.empty() ? 0 : 1);
    if (ways != 1) {
      std::cerr << "error: usage: mpidbg attach [OPTIONS] FILE | --pid LAUNCHER_PID | --slurm JOBID[.STEP]\n";
      return cli::kExitUsage;
    }
  } else if (launcherArgv.empty()) {
    std::cerr << "error: no launcher command; usage: mpidbg [OPTIONS] -- mpiexec.mpich -n 4 ./app\n";
    // As gdb without a program: what can be done, once there is a job.
    std::cout << "\n" << cli::commandListText();
    return cli::kExitUsage;
  }
  triage.argv = launcherArgv;
  if (auto checked = cli::checkHangTriageOptions(triage, !exCommands.empty() || !scriptFiles.empty()); !checked) {
    std::cerr << "error: " << checked.error().message << "\n";
    return cli::kExitUsage;
  }
  if (json && triage.enabled()) {
    std::cerr << "error: --json is for commands; --hang-timeout writes its JSON report with --report FILE\n";
    return cli::kExitUsage;
  }

  if (const std::string error = cli::prepareRecordDirs(recordDir, replayDir); !error.empty()) {
    std::cerr << "error: " << error << "\n";
    return cli::kExitUsage;
  }

  std::shared_ptr<const core::StaticFindings> findings;
  if (!checkFile.empty()) {
    auto loaded = core::loadStaticFindings(checkFile);
    if (!loaded) {
      std::cerr << "error: --check: " << loaded.error().message << "\n";
      return cli::kExitUsage;
    }
    findings = std::make_shared<const core::StaticFindings>(std::move(*loaded));
  }

  std::vector<std::string> script;
  for (const auto& file : scriptFiles) {
    std::string error;
    auto lines = readScript(file, error);
    if (!error.empty()) {
      std::cerr << "error: " << error << "\n";
      return cli::kExitUsage;
    }
    script.insert(script.end(), lines.begin(), lines.end());
  }
  script.insert(script.end(), exCommands.begin(), exCommands.end());
  // Without -ex/-x: a terminal gets the prompt; any other stdin is a script,
  // read line by line as it arrives (after the launch).
  const bool stdinScript = script.empty() && ::isatty(STDIN_FILENO) != 1;
  const bool batch = !script.empty() || stdinScript;

  cli::installSignalHandlers();
  installTerminationHandlers();
  // Declared before the console and the debugger so that it outlives them.
  std::unique_ptr<core::OutputRelay> relay;
  cli::Console console;
  // --json: stdout carries the JSON lines alone; whatever else would go there
  // (the job's own output, which the launcher inherits, readline's prompt)
  // goes to stderr.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> jsonOut(nullptr, &std::fclose);
  if (json) {
    std::fflush(stdout);
    const int fd = ::dup(STDOUT_FILENO);
    if (fd >= 0 && ::dup2(STDERR_FILENO, STDOUT_FILENO) >= 0) jsonOut.reset(::fdopen(fd, "w"));
    if (!jsonOut) {
      std::cerr << "error: --json: cannot set up stdout: " << std::strerror(errno) << "\n";
      return cli::kExitUsage;
    }
    console.setJson(jsonOut.get());
  }
  console.setPagination(!batch && !json);  // gdb pages at its prompt, not in batch mode
  core::Debugger debugger([&console](const std::string& line) { console.notice(line); });
  debugger.gdb().gdbPath = gdbPath;
  debugger.gdb().commandTimeout = std::chrono::milliseconds(static_cast<long long>(gdbTimeout * 1000));
  debugger.mqsDll = mqsDll;
  debugger.job().setStaticFindings(findings);
  debugger.useTree = !direct;
  debugger.treeFanOut = fanOut;

  // The session's commands: -x/-ex, else stdin as a script, else the prompt.
  auto runCommands = [&](cli::Context& context) {
    context.settings.blockedAfter = std::chrono::milliseconds(blockedAfterMs);
    return stdinScript ? cli::runScript(context, std::cin)
           : batch     ? cli::runScript(context, script)
                       : cli::runRepl(context);
  };

  if (attachMode && attachFile == "charm") {
    cli::CharmSessionOptions charm;
    charm.server = charmServer;
    charm.keyFile = charmKeyFile;
    charm.batch = batch;
    return cli::runCharmSession(debugger, console, charm, runCommands);
  }
  if (!attachMode && core::charm::CharmJob::isCharmrun(launcherArgv)) {
    for (const char* option : {"--hang-timeout", "--report", "--record", "--replay", "--runtime"})
      if (app.count(option) != 0) {
        std::cerr << "error: " << option << " is for MPI jobs, not a Charm++ program (charmrun)\n";
        return cli::kExitUsage;
      }
    cli::CharmSessionOptions charm;
    charm.argv = launcherArgv;
    charm.plain = plainCcs;
    charm.suspend = !noStopAtInit;
    charm.startTimeout = registerTimeout;
    charm.batch = batch;
    return cli::runCharmSession(debugger, console, charm, runCommands);
  }

  if (attachMode) {
    Expected<void> attached;
    std::string what = attachFile, note = "running ('freeze all' stops them; leaving detaches).";
    if (!attachFile.empty()) {
      core::AttachOptions attach;
      attach.file = attachFile;
      attach.registerTimeout = std::chrono::milliseconds(static_cast<long long>(registerTimeout * 1000));
      attach.listen = listen;
      attached = debugger.attach(
          attach,
          [&](int registered, int expected) {
            console.progress("attaching: " + std::to_string(registered) + "/" + std::to_string(expected) +
                             " ranks registered");
          },
          [] { return cli::g_interrupted.load(); });
      console.endProgress();
    } else {
      Expected<std::vector<core::FoundRank>> found;
      if (attachPid > 0) {
        auto ofLauncher = core::ranksOfLauncher(static_cast<pid_t>(attachPid));
        what = "pid " + std::to_string(attachPid);
        if (ofLauncher) {
          if (ofLauncher->second == core::LauncherSource::MpirProctable) what += ", from its MPIR_proctable";
          found = std::move(ofLauncher->first);
        } else {
          found = std::unexpected(ofLauncher.error());
        }
      } else {
        found = core::ranksOfSlurmStep(attachSlurm);
        what = "Slurm step " + attachSlurm;
      }
      if (!found) {
        attached = std::unexpected(found.error());
      } else {
        auto [size, sizeNote] = core::jobSizeOf(*found);
        attached = debugger.attachProcesses(*found, size);
        core::RankSet withRuntime;
        for (const auto& r : *found)
          if (r.hasRuntime) withRuntime.insert(r.rank);
        note = "running, without the runtime: where, gdb, queues and hang work; breakpoints, freeze, step and "
               "objects need it." + sizeNote;
        if (!withRuntime.empty())
          note += " Ranks " + withRuntime.toString() +
                  " have the runtime loaded: their job's attach file (MPIDBG_LISTEN=1) gives every command.";
      }
    }
    console.drainNotices();
    if (!attached) {
      console.error("cannot attach: " + attached.error().message);
      return cli::kExitLaunchFailed;
    }
    const int size = debugger.job().size();
    core::RankSet ranks;
    for (const auto& info : debugger.job().snapshot()) ranks.insert(info.rank);
    const std::string text = "Attached to " + ranks.toString() + " of a job of " + std::to_string(size) +
                             (size == 1 ? " rank" : " ranks") + " (" + what + "): " + note;
    if (console.json())
      console.print(cli::jsonLine(cli::sessionEventJson("attached", text, cli::withRanks({{"size", size}}, ranks))));
    else
      console.print(text);
    cli::Context context{debugger, console, {}};
    const bool ok = runCommands(context);
    if (debugger.attached() && debugger.jobAlive()) {
      debugger.detach();
      // Events that came before or during the detach (the event channels are
      // closed now) go before the line that ends the session.
      console.drainNotices();
      const std::string left = "Detached from the job; it runs on (attach again with: mpidbg attach " +
                               (!attachFile.empty() ? attachFile
                                : attachPid > 0     ? "--pid " + std::to_string(attachPid)
                                                    : "--slurm " + attachSlurm) +
                               ").";
      console.print(console.json() ? cli::jsonLine(cli::sessionEventJson("detached", left)) : left);
    }
    console.drainNotices();
    return ok ? cli::kExitOk : cli::kExitCommandFailed;
  }

  core::LaunchOptions launch;
  launch.argv = launcherArgv;
  launch.runtimePath = runtimePath;
  // Open MPI's ABI differs from MPICH's: its programs get the runtime built
  // against Open MPI's mpi.h, beside the default one, unless one was named.
  if (app.count("--runtime") == 0 && !std::getenv("MPIDBG_RUNTIME"))
    launch.runtimePath = core::runtimeFor(launcherArgv, runtimePath);
  launch.stopAtInit = !noStopAtInit && !triage.enabled();  // triage runs the job as it is
  launch.plainCcs = plainCcs;
  launch.recordDir = recordDir;
  launch.replayDir = replayDir;
  launch.registerTimeout = std::chrono::milliseconds(static_cast<long long>(registerTimeout * 1000));
  launch.listen = listen;
  // On a terminal the job's output goes through a relay process that clears
  // a progress line before it (core/OutputRelay.hpp). When the relay cannot
  // start, the launcher writes to the terminal itself, as it always did.
  if (console.interactive() && !console.json())
    if (auto started = core::OutputRelay::start(::isatty(STDERR_FILENO) == 1)) {
      relay = std::move(*started);
      launch.outputFd = relay->jobStdout();
      launch.errorFd = relay->jobStderr();
      console.setRelay(relay.get());
    }
  auto launched = debugger.launch(
      launch,
      [&](int registered, int expected) {
        console.progress("waiting for ranks to register: " + std::to_string(registered) + "/" +
                         (expected > 0 ? std::to_string(expected) : std::string("?")));
      },
      [] { return cli::g_interrupted.load(); });
  if (relay) relay->closeJobEnds();  // the launcher has its own copies now
  console.endProgress();
  console.drainNotices();
  if (!launched) {
    console.error("cannot start the job: " + launched.error().message);
    return cli::kExitLaunchFailed;
  }
  const int size = debugger.job().size();
  const std::string started = "Job started: " + std::to_string(size) + (size == 1 ? " rank" : " ranks") + ", " +
                              (launch.stopAtInit ? "frozen at the end of MPI_Init ('run' lets them go)." : "running.");
  if (console.json())
    console.print(cli::jsonLine(cli::sessionEventJson(
        "started", started,
        cli::withRanks({{"size", size}, {"frozen", launch.stopAtInit}}, core::RankSet::all(size)))));
  else
    console.print(started);
  if (triage.enabled()) return cli::runHangTriage(debugger, console, triage);

  cli::Context context{debugger, console, {}};
  const bool ok = runCommands(context);

  int exitCode = ok ? cli::kExitOk : cli::kExitCommandFailed;
  if (debugger.hasJob()) {
    if (debugger.jobAlive()) {
      debugger.kill();
      const std::string killed = "The job was still running at the end of the commands; killed it.";
      if (batch) console.print(console.json() ? cli::jsonLine(cli::sessionEventJson("killed", killed)) : killed);
    } else if (auto status = debugger.launcherStatus(); status && ok && !context.killedByUser) {
      exitCode = status->signaled ? 128 + status->signal : status->code;
    }
    debugger.kill();
  }
  console.drainNotices();
  return exitCode;
}
