#include "debugger/cli/ListCommands.hpp"

#include "debugger/cli/SetCommands.hpp"
#include "debugger/core/ObjectQuery.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

CommandResult listsOn(core::ListServers& servers, const core::RankSet& ranks, std::string_view process) {
  const core::ListsReport report = core::listLists(servers, ranks);
  CommandResult result;
  result.text = core::renderListsReport(report);
  result.data = core::listsReportToJson(report);
  if (report.rows.empty() && !report.failed.empty()) {
    result.ok = false;
    result.error = "no " + std::string(process) + " answered: " + report.failed.begin()->second;
  }
  return result;
}

CommandResult printOn(core::ListServers& servers, const Resolve& resolve, std::string_view args,
                      std::string_view process) {
  args = trim(args);
  auto [first, rest] = splitRankToken(args);
  std::string_view targetText = args;
  std::string rankText;
  if (!trim(rest).empty()) {
    rankText = first;
    targetText = trim(rest);
  }
  auto target = core::parseObjectTarget(targetText);
  if (!target) return CommandResult::failure(target.error().message);
  auto ranks = resolve(rankText);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  const core::ObjectReport report = core::printObject(servers, *ranks, targetText, *target);
  CommandResult result;
  result.text = core::renderObjectReport(report);
  result.data = core::objectReportToJson(report);
  if (report.answered.empty()) {
    result.ok = false;
    result.error = report.failed.empty() ? "no " + std::string(process) + " answered"
                                         : "no " + std::string(process) + " could show '" + std::string(targetText) +
                                               "': " + report.failed.begin()->second;
    result.text.clear();
  }
  return result;
}

CommandResult doLists(Context& ctx, const CommandArgs& args) {
  auto ranks = commandRanks(ctx, args.ranks);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  return listsOn(*core::rankListServers(ctx.debugger), *ranks, "rank");
}

CommandResult doPrint(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  return printOn(*core::rankListServers(ctx.debugger), [&ctx](std::string_view text) { return commandRanks(ctx, text); },
                 args, "rank");
}

}  // namespace mpidbg::cli
