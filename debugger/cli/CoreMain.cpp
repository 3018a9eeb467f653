// `mpidbg core`: the queues and the hang verdict of a job from its ranks'
// core files (CoreMain.hpp).
#include "debugger/cli/CoreMain.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>

#include "debugger/cli/ExitCodes.hpp"
#include "debugger/core/HangReport.hpp"
#include "debugger/core/StackQuery.hpp"
#include "debugger/core/mqs/CoreFile.hpp"
#include "debugger/core/mqs/QueueSources.hpp"
#include "debugger/core/stacks/CoreStacks.hpp"
#include "debugger/core/stacks/Symbolizer.hpp"

namespace mpidbg::cli {

namespace {

/// Where each rank of `ranks` (read from core files, source "core:PATH") made
/// the MPI call it is in, from its core's threads as mpiCallSites chooses
/// (unwound by elfutils, symbolized as a live rank's stacks are); a core
/// whose threads cannot be read is said on stderr and has none.
std::map<int, std::string> coreCallSites(const std::vector<ccs::proto::RankQueues>& ranks) {
  core::StackInput stacks;
  for (const auto& q : ranks) {
    if (!q.source.starts_with("core:") || q.worldRank < 0) continue;
    const std::string path = q.source.substr(5);
    std::string executable;  // empty: the one libdwfl finds in the core
    if (auto file = core::mqs::CoreFile::open(path))
      if (auto named = (*file)->executable()) executable = *named;
    auto read = core::stacks::readCoreStacks(path, executable);
    if (!read) {
      std::cerr << "note: " << path << ": no call site (its stacks could not be read: " << read.error().message
                << ")\n";
      continue;
    }
    read->worldRank = q.worldRank;
    stacks.captured.push_back(std::move(*read));
  }
  core::stacks::Symbolizer symbolizer;
  return core::mpiCallSites(stacks, symbolizer);
}

}  // namespace

int coreMain(const std::vector<std::string>& args) {
  CLI::App app{"mpidbg core: the message queues and hang verdict of a job from its ranks' core files.\n\n"
               "Usage: mpidbg core [--mqs] [--json] [--no-frames] [--mqs-dll PATH] CORE...\n"
               "  e.g. mpidbg core --mqs core.1234 core.1235 core.1236 core.1237\n\n"
               "Each core's program and libraries are found from the core itself; its rank from the\n"
               "runtime's state in it; where each rank made the MPI call it waits in, from the core's\n"
               "stack (unwound with the call-frame information of those files). Ranks without a core\n"
               "are reported as unreadable.",
               "mpidbg core"};
  std::vector<std::string> cores;
  std::string dll;
  bool json = false, mqsFlag = false, noFrames = false;
  app.add_flag("--mqs", mqsFlag, "Read message queues through the mqs DLL (the default and only way)");
  app.add_flag("--json", json, "Print the verdict as one JSON object");
  app.add_flag("--no-frames", noFrames, "Leave out where each rank made its MPI call (the cores' stacks are not unwound)");
  app.add_option("--mqs-dll", dll, "Message-queue DLL to load instead of the one the core names")->type_name("PATH");
  app.add_option("cores", cores, "Core files, one per rank")->required()->type_name("CORE");
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  auto read = core::mqs::readCoreFiles(cores, dll);
  if (!read) {
    std::cerr << "error: " << read.error().message << "\n";
    return kExitCommandFailed;
  }
  core::HangInput input;
  bool allRead = true;
  for (std::size_t i = 0; i < read->size(); ++i) {
    auto& q = (*read)[i];
    if (!q.error.empty()) {
      allRead = false;
      std::cerr << "error: " << q.source << ": " << q.error << "\n";
      continue;
    }
    for (const auto& c : q.comms)
      if (c.state.name == "MPI_COMM_WORLD") input.worldSize = std::max(input.worldSize, c.state.size);
    input.ranks.push_back(std::move(q));
  }
  if (input.ranks.empty()) {
    std::cerr << "error: no core file could be read\n";
    return kExitCommandFailed;
  }
  std::vector<bool> seen(static_cast<std::size_t>(std::max(input.worldSize, 0)), false);
  for (const auto& q : input.ranks)
    if (q.worldRank >= 0 && q.worldRank < input.worldSize) seen[q.worldRank] = true;
  for (int r = 0; r < input.worldSize; ++r)
    if (!seen[r]) input.unreadable[r] = "no core file given";
  if (!noFrames) input.callSites = coreCallSites(input.ranks);
  const core::HangVerdict verdict = core::analyzeHang(input);
  if (json) {
    std::cout << core::hangToJson(verdict).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << "Queues:\n" << core::renderQueues(input.ranks, input.unreadable) << core::renderHang(verdict);
  }
  return allRead ? kExitOk : kExitCommandFailed;
}

}  // namespace mpidbg::cli
