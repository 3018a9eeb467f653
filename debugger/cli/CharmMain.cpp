#include "debugger/cli/CharmMain.hpp"

#include <unistd.h>

#include "debugger/cli/ExitCodes.hpp"
#include "debugger/cli/JsonOutput.hpp"
#include "debugger/cli/Repl.hpp"
#include "debugger/core/SessionDir.hpp"
#include "debugger/core/charm/CharmJob.hpp"

namespace mpidbg::cli {

int runCharmSession(core::Debugger& debugger, Console& console, const CharmSessionOptions& options,
                    const std::function<bool(Context&)>& runCommands) {
  // The program's own output goes where a launcher's would: stdout (stderr
  // under --json, whose stdout main() has pointed there).
  auto output = [](const std::string& line) {
    const std::string text = line + "\n";
    [[maybe_unused]] const ssize_t n = ::write(STDOUT_FILENO, text.data(), text.size());
  };
  core::charm::CharmJob charm(
      debugger.session(), [&console](const std::string& line) { console.notice(line); }, output);
  std::unique_ptr<core::SessionDir> sessionDir;
  std::string what;
  Expected<void> started;
  if (!options.argv.empty()) {
    auto dir = core::SessionDir::create();
    if (!dir) {
      console.error("cannot start the program: " + dir.error().message);
      return kExitLaunchFailed;
    }
    sessionDir = std::move(*dir);
    core::charm::CharmLaunchOptions launch;
    launch.argv = options.argv;
    launch.authenticate = !options.plain;
    launch.suspend = options.suspend;
    launch.keyDir = sessionDir->path();
    launch.startTimeout = std::chrono::milliseconds(static_cast<long long>(options.startTimeout * 1000));
    started = charm.launch(
        launch,
        [&](int frozen, int expected) {
          console.progress("waiting for the PEs to start: " + std::to_string(frozen) + "/" + std::to_string(expected));
        },
        [] { return g_interrupted.load(); });
  } else {
    auto endpoint = ccs::Endpoint::parse(options.server);
    if (!endpoint) {
      console.error("cannot attach: " + endpoint.error().message);
      return kExitUsage;
    }
    started = charm.attach(*endpoint, options.keyFile);
  }
  console.endProgress();
  console.drainNotices();
  if (!started) {
    console.error((options.argv.empty() ? "cannot attach: " : "cannot start the program: ") + started.error().message);
    return kExitLaunchFailed;
  }
  const int size = charm.size();
  std::string text;
  if (!options.argv.empty())
    text = "Charm++ program started: " + std::to_string(size) + (size == 1 ? " PE" : " PEs") +
           (options.suspend ? ", frozen once initialized ('run' lets them go)." : ", running.") + " CCS at " +
           charm.serverText() + (options.plain ? " (plain)." : " (SHA-1 authenticated).");
  else
    text = "Attached to a Charm++ program of " + std::to_string(size) + (size == 1 ? " PE" : " PEs") + " at " +
           charm.serverText() + ": breakpoint hits show in 'status' (they are announced on the program's output, "
           "which a program mpidbg did not start keeps).";
  if (console.json())
    console.print(jsonLine(sessionEventJson(options.argv.empty() ? "attached" : "started", text,
                                            withRanks(options.argv.empty()
                                                          ? nlohmann::json{{"size", size}, {"charm", true}}
                                                          : nlohmann::json{{"size", size}, {"frozen", options.suspend}, {"charm", true}},
                                                      core::RankSet::all(size)))));
  else
    console.print(text);

  Context context{debugger, console, {}};
  context.charm = &charm;
  const bool ok = runCommands(context);
  int exitCode = ok ? kExitOk : kExitCommandFailed;
  if (charm.active()) {
    if (charm.launched()) {
      const bool alive = charm.alive();
      charm.kill();
      if (alive && options.batch) {
        const std::string killed = "The program was still running at the end of the commands; killed it.";
        console.print(console.json() ? jsonLine(sessionEventJson("killed", killed)) : killed);
      }
    } else if (charm.alive()) {
      charm.detach();
      const std::string left = "Detached from the Charm++ program; it runs on (breakpoints removed, PEs continued).";
      console.print(console.json() ? jsonLine(sessionEventJson("detached", left)) : left);
    }
  }
  console.drainNotices();
  return exitCode;
}

}  // namespace mpidbg::cli
