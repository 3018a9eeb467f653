#include "debugger/cli/ListCommands.hpp"

#include "debugger/cli/SetCommands.hpp"
#include "debugger/core/ObjectQuery.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

CommandResult doLists(Context& ctx, std::string_view args) {
  auto ranks = commandRanks(ctx, trim(args));
  if (!ranks) return CommandResult::failure(ranks.error().message);
  const core::ListsReport report = core::listLists(ctx.debugger, *ranks);
  CommandResult result;
  result.text = core::renderListsReport(report);
  result.data = core::listsReportToJson(report);
  if (report.rows.empty() && !report.failed.empty()) {
    result.ok = false;
    result.error = "no rank answered: " + report.failed.begin()->second;
  }
  return result;
}

CommandResult doPrint(Context& ctx, std::string_view args) {
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
  auto ranks = commandRanks(ctx, rankText);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  const core::ObjectReport report = core::printObject(ctx.debugger, *ranks, targetText, *target);
  CommandResult result;
  result.text = core::renderObjectReport(report);
  result.data = core::objectReportToJson(report);
  if (report.answered.empty()) {
    result.ok = false;
    result.error = report.failed.empty() ? "no rank answered"
                                         : "no rank could show '" + std::string(targetText) +
                                               "': " + report.failed.begin()->second;
    result.text.clear();
  }
  return result;
}

}  // namespace mpidbg::cli
