// An `mpidbg` session from its parsed options (Session.hpp): the console and
// the debugger set up, the job attached, launched or a Charm++ program
// debugged, the commands run, the job ended.
#include "debugger/cli/Session.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>

#include "debugger/cli/CharmMain.hpp"
#include "debugger/cli/Commands.hpp"
#include "debugger/cli/ExitCodes.hpp"
#include "debugger/cli/HangTriage.hpp"
#include "debugger/cli/JsonOutput.hpp"
#include "debugger/cli/Repl.hpp"
#include "debugger/core/Launcher.hpp"
#include "debugger/core/OutputRelay.hpp"
#include "debugger/core/StaticFindings.hpp"
#include "debugger/core/charm/CharmJob.hpp"

namespace mpidbg::cli {

namespace {

/// The lines of command file `path`; `error` set when it cannot be read.
std::vector<std::string> readCommandFile(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read command file '" + path + "': " + std::strerror(errno);
    return {};
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// SIGTERM and SIGHUP (a CI job's timeout, a closed terminal) end the job
/// mpidbg started, as gdb ends the inferiors it started, then mpidbg itself
/// with the signal's default action. A detached job is left alone. SIGKILL
/// cannot be caught: the ranks then notice the lost front end and resume.
void onTermination(int sig) {
  core::endOwnedJob();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void installTerminationHandlers() {
  struct sigaction sa{};
  sa.sa_handler = onTermination;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
}

/// `mpidbg attach FILE | --pid PID | --slurm STEP`: attaches, runs the
/// commands, then detaches from a job still running. The exit code.
int runAttached(const SessionOptions& o, core::Debugger& debugger, Console& console,
                const std::function<bool(Context&)>& runCommands) {
  Expected<void> attached;
  std::string what = o.attachFile, note = "running ('freeze all' stops them; leaving detaches).";
  if (!o.attachFile.empty()) {
    core::AttachOptions attach;
    attach.file = o.attachFile;
    attach.registerTimeout = std::chrono::milliseconds(static_cast<long long>(o.registerTimeout * 1000));
    attach.listen = o.listen;
    attached = debugger.session().attach(
        attach,
        [&](int registered, int expected) {
          console.progress("attaching: " + std::to_string(registered) + "/" + std::to_string(expected) +
                           " ranks registered");
        },
        [] { return g_interrupted.load(); });
    console.endProgress();
  } else {
    Expected<std::vector<core::FoundRank>> found;
    if (o.attachPid > 0) {
      auto ofLauncher = core::ranksOfLauncher(static_cast<pid_t>(o.attachPid));
      what = "pid " + std::to_string(o.attachPid);
      if (ofLauncher) {
        if (ofLauncher->second == core::LauncherSource::MpirProctable) what += ", from its MPIR_proctable";
        found = std::move(ofLauncher->first);
      } else {
        found = std::unexpected(ofLauncher.error());
      }
    } else {
      found = core::ranksOfSlurmStep(o.attachSlurm);
      what = "Slurm step " + o.attachSlurm;
    }
    if (!found) {
      attached = std::unexpected(found.error());
    } else {
      auto [size, sizeNote] = core::jobSizeOf(*found);
      attached = debugger.session().attachProcesses(*found, size);
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
    return kExitLaunchFailed;
  }
  const int size = debugger.session().job().size();
  core::RankSet ranks;
  for (const auto& info : debugger.session().job().snapshot()) ranks.insert(info.rank);
  const std::string text = "Attached to " + ranks.toString() + " of a job of " + std::to_string(size) +
                           (size == 1 ? " rank" : " ranks") + " (" + what + "): " + note;
  if (console.json())
    console.print(jsonLine(sessionEventJson("attached", text, withRanks({{"size", size}}, ranks))));
  else
    console.print(text);
  Context context{debugger, console, {}};
  const bool ok = runCommands(context);
  if (debugger.session().attached() && debugger.session().jobAlive()) {
    debugger.detach();
    // Events that came before or during the detach (the event channels are
    // closed now) go before the line that ends the session.
    console.drainNotices();
    const std::string left = "Detached from the job; it runs on (attach again with: mpidbg attach " +
                             (!o.attachFile.empty() ? o.attachFile
                              : o.attachPid > 0     ? "--pid " + std::to_string(o.attachPid)
                                                  : "--slurm " + o.attachSlurm) +
                             ").";
    console.print(console.json() ? jsonLine(sessionEventJson("detached", left)) : left);
  }
  console.drainNotices();
  return ok ? kExitOk : kExitCommandFailed;
}

/// Launches the MPI job, runs the commands (or the hang triage), then kills a
/// job still running. The exit code: the job's own when it ended by itself
/// and every command succeeded. `relay` gets the output relay on a terminal.
int runLaunched(const SessionOptions& o, core::Debugger& debugger, Console& console,
                std::unique_ptr<core::OutputRelay>& relay, const std::function<bool(Context&)>& runCommands,
                bool batch) {
  core::LaunchOptions launch;
  launch.argv = o.launcherArgv;
  launch.runtimePath = o.runtimePath;
  // Open MPI's ABI differs from MPICH's: its programs get the runtime built
  // against Open MPI's mpi.h, beside the default one, unless one was named.
  if (!o.wasGiven("--runtime") && !std::getenv("MPIDBG_RUNTIME"))
    launch.runtimePath = core::runtimeFor(o.launcherArgv, o.runtimePath);
  launch.stopAtInit = !o.noStopAtInit && !o.triage.enabled();  // triage runs the job as it is
  launch.plainCcs = o.plainCcs;
  launch.recordDir = o.recordDir;
  launch.replayDir = o.replayDir;
  launch.registerTimeout = std::chrono::milliseconds(static_cast<long long>(o.registerTimeout * 1000));
  launch.listen = o.listen;
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
  auto launched = debugger.session().launch(
      launch,
      [&](int registered, int expected) {
        console.progress("waiting for ranks to register: " + std::to_string(registered) + "/" +
                         (expected > 0 ? std::to_string(expected) : std::string("?")));
      },
      [] { return g_interrupted.load(); });
  if (relay) relay->closeJobEnds();  // the launcher has its own copies now
  console.endProgress();
  console.drainNotices();
  if (!launched) {
    console.error("cannot start the job: " + launched.error().message);
    return kExitLaunchFailed;
  }
  const int size = debugger.session().job().size();
  const std::string started = "Job started: " + std::to_string(size) + (size == 1 ? " rank" : " ranks") + ", " +
                              (launch.stopAtInit ? "frozen at the end of MPI_Init ('run' lets them go)." : "running.");
  if (console.json())
    console.print(jsonLine(sessionEventJson(
        "started", started,
        withRanks({{"size", size}, {"frozen", launch.stopAtInit}}, core::RankSet::all(size)))));
  else
    console.print(started);
  if (o.triage.enabled()) return runHangTriage(debugger, console, o.triage);

  Context context{debugger, console, {}};
  const bool ok = runCommands(context);

  int exitCode = ok ? kExitOk : kExitCommandFailed;
  if (debugger.session().hasJob()) {
    if (debugger.session().jobAlive()) {
      debugger.session().kill();
      const std::string killed = "The job was still running at the end of the commands; killed it.";
      if (batch) console.print(console.json() ? jsonLine(sessionEventJson("killed", killed)) : killed);
    } else if (auto status = debugger.session().launcherStatus(); status && ok && !context.killedByUser) {
      exitCode = status->signaled ? 128 + status->signal : status->code;
    }
    debugger.session().kill();
  }
  console.drainNotices();
  return exitCode;
}

}  // namespace

int runSession(const SessionOptions& o) {
  std::shared_ptr<const core::StaticFindings> findings;
  if (!o.checkFile.empty()) {
    auto loaded = core::loadStaticFindings(o.checkFile);
    if (!loaded) {
      std::cerr << "error: --check: " << loaded.error().message << "\n";
      return kExitUsage;
    }
    findings = std::make_shared<const core::StaticFindings>(std::move(*loaded));
  }

  std::vector<std::string> script;
  for (const auto& file : o.scriptFiles) {
    std::string error;
    auto lines = readCommandFile(file, error);
    if (!error.empty()) {
      std::cerr << "error: " << error << "\n";
      return kExitUsage;
    }
    script.insert(script.end(), lines.begin(), lines.end());
  }
  script.insert(script.end(), o.exCommands.begin(), o.exCommands.end());
  // Without -ex/-x: a terminal gets the prompt; any other stdin is a script,
  // read line by line as it arrives (after the launch).
  const bool stdinScript = script.empty() && ::isatty(STDIN_FILENO) != 1;
  const bool batch = !script.empty() || stdinScript;

  installSignalHandlers();
  installTerminationHandlers();
  // Declared before the console and the debugger so that it outlives them.
  std::unique_ptr<core::OutputRelay> relay;
  Console console;
  // --json: stdout carries the JSON lines alone; whatever else would go there
  // (the job's own output, which the launcher inherits, readline's prompt)
  // goes to stderr.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> jsonOut(nullptr, &std::fclose);
  if (o.json) {
    std::fflush(stdout);
    const int fd = ::dup(STDOUT_FILENO);
    if (fd >= 0 && ::dup2(STDERR_FILENO, STDOUT_FILENO) >= 0) jsonOut.reset(::fdopen(fd, "w"));
    if (!jsonOut) {
      std::cerr << "error: --json: cannot set up stdout: " << std::strerror(errno) << "\n";
      return kExitUsage;
    }
    console.setJson(jsonOut.get());
  }
  console.setPagination(!batch && !o.json);  // gdb pages at its prompt, not in batch mode
  core::RouteSettings routing = core::Debugger::defaultRouting();
  routing.useTree = !o.direct;
  routing.fanOut = o.fanOut;
  core::Debugger debugger([&console](const std::string& line) { console.notice(line); }, routing);
  debugger.session().gdb().gdbPath = o.gdbPath;
  debugger.session().gdb().commandTimeout = std::chrono::milliseconds(static_cast<long long>(o.gdbTimeout * 1000));
  debugger.setMqsDll(o.mqsDll);
  debugger.session().job().setStaticFindings(findings);

  // The session's commands: -x/-ex, else stdin as a script, else the prompt.
  const std::function<bool(Context&)> runCommands = [&](Context& context) {
    context.settings.blockedAfter = std::chrono::milliseconds(o.blockedAfterMs);
    return stdinScript ? runScript(context, std::cin)
           : batch     ? runScript(context, script)
                       : runRepl(context);
  };

  if (o.attachMode && o.attachFile == "charm") {
    CharmSessionOptions charm;
    charm.server = o.charmServer;
    charm.keyFile = o.charmKeyFile;
    charm.batch = batch;
    return runCharmSession(debugger, console, charm, runCommands);
  }
  if (!o.attachMode && core::charm::CharmJob::isCharmrun(o.launcherArgv)) {
    for (const char* option : {"--hang-timeout", "--report", "--record", "--replay", "--runtime"})
      if (o.wasGiven(option)) {
        std::cerr << "error: " << option << " is for MPI jobs, not a Charm++ program (charmrun)\n";
        return kExitUsage;
      }
    CharmSessionOptions charm;
    charm.argv = o.launcherArgv;
    charm.plain = o.plainCcs;
    charm.suspend = !o.noStopAtInit;
    charm.startTimeout = o.registerTimeout;
    charm.batch = batch;
    return runCharmSession(debugger, console, charm, runCommands);
  }
  if (o.attachMode) return runAttached(o, debugger, console, runCommands);
  return runLaunched(o, debugger, console, relay, runCommands, batch);
}

}  // namespace mpidbg::cli
