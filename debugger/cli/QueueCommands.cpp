#include "debugger/cli/QueueCommands.hpp"

#include "debugger/cli/HangTriage.hpp"
#include "debugger/cli/JsonOutput.hpp"
#include "debugger/cli/SetCommands.hpp"
#include "debugger/core/CollectiveReport.hpp"
#include "debugger/core/HangReport.hpp"
#include "debugger/core/StackQuery.hpp"
#include "debugger/core/stacks/Symbolizer.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

CommandResult doQueues(Context& ctx, const CommandArgs& args) {
  const bool memory = args.flag("--memory");
  auto ranks = commandRanks(ctx, args.ranks);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  core::HangInput input = memory ? ctx.debugger.queueStatesFromMemory(*ranks) : ctx.debugger.queueStates(*ranks);
  std::map<int, std::string> other = input.unreadable;
  for (const auto& [rank, how] : input.ended) other[rank] = how;
  CommandResult result;
  result.text = core::renderQueues(input.ranks, other);
  // The report's queue object (queuesToJson), its per-rank array named as
  // in every --json result.
  nlohmann::json queues = queuesToJson(input);
  result.data = {{"memory", memory},
                 {"per_rank", std::move(queues["ranks"])},
                 {"ended", std::move(queues["ended"])},
                 {"unreadable", std::move(queues["unreadable"])}};
  return result;
}

CommandResult doHang(Context& ctx, const CommandArgs& args) {
  const bool json = args.flag("--json"), frames = !args.flag("--no-frames"), memory = args.flag("--memory");
  core::HangInput input = memory ? ctx.debugger.queueStatesFromMemory() : ctx.debugger.queueStates();
  input.blockedAfter = ctx.settings.blockedAfter;
  if (frames) {
    ctx.debugger.addCulpritFrames(input);
    // Where the ranks in MPI calls made them: their stacks, as `where` reads
    // them (the runtime's capture, gdb for ranks gdb holds).
    core::RankSet inCalls;
    for (const auto& q : input.ranks)
      if (q.error.empty() && q.call) inCalls.insert(q.worldRank);
    if (!inCalls.empty()) {
      core::stacks::Symbolizer symbolizer;
      input.callSites = core::mpiCallSites(ctx.debugger.stacks(inCalls), symbolizer);
    }
  }
  input.findings = ctx.debugger.session().job().staticFindings();
  const core::HangVerdict verdict = core::analyzeHang(input);
  CommandResult result;
  result.data = core::hangToJson(verdict);
  result.text = json ? jsonLine(result.data) + "\n" : core::renderHang(verdict);
  return result;
}

CommandResult doCollectives(Context& ctx, const CommandArgs&) {
  const auto views = ctx.debugger.views();
  // From the queue state: live ranks over CCS, ranks held by gdb from memory.
  const core::HangInput input = ctx.debugger.queueStates();
  const auto states = core::commStatesOf(input);
  const auto pending = core::pendingCollectivesOf(input);
  const auto sites = waitingCallSites(ctx, views);
  CommandResult result;
  result.text = core::renderCollectives(views, states, ctx.settings.blockedAfter, pending, sites);
  result.data = core::collectivesToJson(views, states, ctx.settings.blockedAfter, pending, sites);
  return result;
}

std::map<int, std::string> waitingCallSites(Context& ctx, const std::vector<core::RankView>& views) {
  core::RankSet waiting;
  for (const auto& v : views)
    if ((v.status && v.status->call && v.status->state != ccs::proto::RankState::Frozen &&
         core::waitsLong(*v.status->call, ctx.settings.blockedAfter)) ||
        v.heldCall)
      waiting.insert(v.info.rank);
  if (waiting.empty()) return {};
  core::stacks::Symbolizer symbolizer;
  return core::mpiCallSites(ctx.debugger.stacks(waiting), symbolizer);
}

}  // namespace mpidbg::cli
