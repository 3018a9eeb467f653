// The commands on the job as a whole (JobCommands.hpp): run, status, wait,
// ranks, kill and quit; with needJob and parseWaitTimeout (Commands.hpp).
#include "debugger/cli/JobCommands.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "debugger/cli/CommandsDetail.hpp"
#include "debugger/cli/JsonOutput.hpp"
#include "debugger/cli/QueueCommands.hpp"
#include "debugger/cli/SetCommands.hpp"
#include "debugger/core/Grouping.hpp"
#include "debugger/core/StatusReport.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

CommandResult needJob(Context& ctx) {
  if (!ctx.debugger.session().hasJob()) return CommandResult::failure(std::string(kNoJob));
  return {};
}

Expected<std::chrono::milliseconds> parseWaitTimeout(std::string_view args, std::chrono::milliseconds fallback) {
  args = trim(args);
  if (args.empty()) return fallback;
  double seconds = 0;
  auto [ptr, ec] = std::from_chars(args.data(), args.data() + args.size(), seconds);
  if (ec != std::errc() || ptr != args.data() + args.size() || !(seconds >= 0) ||
      seconds > static_cast<double>(kMaxWaitSeconds))
    return fail("wait takes a number of seconds from 0 to " + std::to_string(kMaxWaitSeconds) +
                ", e.g. 'wait 30' (got '" + std::string(args) + "')");
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

namespace detail {

Expected<core::RankSet> ranksOrAll(Context& ctx, std::string_view text) { return commandRanks(ctx, text); }

}  // namespace detail

using detail::ranksOrAll;

CommandResult doContinue(Context& ctx, const CommandArgs& args) {
  auto ranks = ranksOrAll(ctx, args.ranks);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  const auto problems = ctx.debugger.continueRanks(*ranks);
  CommandResult result;
  const core::RankSet continued = [&] {
    core::RankSet s = *ranks;
    for (const auto& [rank, why] : problems) s.erase(rank);
    return s;
  }();
  result.data = {{"continued", rankSetJson(continued)}, {"not_continued", groupsJson(problems, "why")}};
  if (!continued.empty()) result.text = "Continuing " + core::describeRanks(continued) + ".\n";
  if (!problems.empty()) {
    std::string msg;
    for (const auto& g : core::groupByText(problems))
      msg += (msg.empty() ? "" : "; ") + core::describeRanks(g.ranks) + " " + g.text;
    if (continued.empty()) return CommandResult::failure("cannot continue: " + msg);
    result.text += "Not continued: " + msg + ".\n";
  }
  return result;
}

CommandResult doStatus(Context& ctx, const CommandArgs& args) {
  auto ranks = ranksOrAll(ctx, args.ranks);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  CommandResult result;
  auto views = ctx.debugger.views(*ranks);
  // A rank held by gdb cannot answer; the call it is in is read from its
  // memory through the message-queue DLL, as hang reads it.
  core::RankSet held;
  for (const auto& v : views)
    if (v.info.heldByGdb && !v.info.ended()) held.insert(v.info.rank);
  if (!held.empty()) {
    const core::HangInput read = ctx.debugger.queueStates(held);
    for (auto& v : views)
      for (const auto& q : read.ranks)
        if (q.worldRank == v.info.rank && q.error.empty() && q.call) v.heldCall = q.call;
  }
  const auto sites = waitingCallSites(ctx, views);
  result.text = core::renderStatus(views, ctx.settings.blockedAfter, sites);
  result.data = statusJson(views, ctx.settings.blockedAfter, sites);
  result.data["size"] = ctx.debugger.session().job().size();
  return result;
}

CommandResult doWait(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  auto timeout = parseWaitTimeout(args, ctx.settings.defaultWait);
  if (!timeout) return CommandResult::failure(timeout.error().message);
  if (auto r = needJob(ctx); !r.ok) return r;
  g_interrupted = false;
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t eventsBefore = ctx.debugger.stopEvents();
  const bool settled = ctx.debugger.waitForEvent(*timeout, ctx.settings.blockedAfter, [&] {
    ctx.console.drainNotices();
    const auto secs = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::steady_clock::now() - start).count();
    ctx.console.progress("waiting for the job to stop or block... " + std::to_string(secs) + " s (Ctrl-C interrupts)");
    return g_interrupted.load();
  });
  ctx.console.endProgress();
  ctx.console.drainNotices();
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f", took);
  CommandResult result;
  result.data = {{"seconds", std::round(took * 10) / 10}, {"launcher", nullptr}};
  if (g_interrupted.exchange(false)) {
    result.text = "Interrupted after " + std::string(secs) + " s.\n";
    result.data["outcome"] = "interrupted";
  } else if (ctx.debugger.stopEvents() != eventsBefore) {
    result.text = "Stopped after " + std::string(secs) + " s (see the event above; 'status' for every rank).\n";
    result.data["outcome"] = "stopped";
  } else if (!ctx.debugger.session().jobAlive()) {
    auto status = ctx.debugger.session().launcherStatus();
    result.text = "The job has ended" + (status ? " (launcher " + status->describe() + ")" : std::string()) +
                  " after " + secs + " s.\n";
    result.data["outcome"] = "ended";
    if (status) result.data["launcher"] = status->describe();
  } else if (settled) {
    result.text = "Every rank is blocked in MPI, frozen or exited (after " + std::string(secs) + " s).\n";
    result.data["outcome"] = "settled";
  } else {
    // Ranks attached by pid have no runtime to report a block or a stop.
    core::RankSet unseen;
    for (const auto& info : ctx.debugger.session().job().snapshot())
      if (info.noRuntime && !info.ended()) unseen.insert(info.rank);
    if (unseen.empty()) {
      result.text = "Timed out after " + std::string(secs) + " s; some ranks are still running.\n";
    } else {
      result.text = "Timed out after " + std::string(secs) + " s. Ranks " + unseen.toString() +
                    " run without the runtime, so wait sees them end but not block or stop; 'where' or "
                    "'hang' reads their stacks.\n";
      result.data["without_runtime"] = rankSetJson(unseen);
    }
    result.data["outcome"] = "timed_out";
  }
  return result;
}

CommandResult doRanks(Context& ctx, const CommandArgs& args) {
  auto ranks = ranksOrAll(ctx, args.ranks);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  CommandResult result;
  const auto snapshot = ctx.debugger.session().job().snapshot();
  // Ranks whose launcher names their node (a PMIx server, an MPIR process
  // table) also show it; ranks under PMIx their PMIx rank too (column
  // "pmix": NAMESPACE:RANK, * when the rank published its endpoint there).
  const bool pmix = std::any_of(snapshot.begin(), snapshot.end(),
                                [](const core::RankInfo& i) { return !i.pmixNamespace.empty(); });
  const bool nodes = pmix || std::any_of(snapshot.begin(), snapshot.end(),
                                         [](const core::RankInfo& i) { return !i.node.empty(); });
  auto row = [&](const std::string& rank, const std::string& host, const std::string& pid, const std::string& ccs,
                 const std::string& node, const std::string& id, const std::string& life) {
    char line[512];
    if (pmix)
      std::snprintf(line, sizeof line, "%-6s %-20s %-8s %-22s %-8s %-24s %s\n", rank.c_str(), host.c_str(),
                    pid.c_str(), ccs.c_str(), node.c_str(), id.c_str(), life.c_str());
    else if (nodes)
      std::snprintf(line, sizeof line, "%-6s %-20s %-8s %-22s %-8s %s\n", rank.c_str(), host.c_str(), pid.c_str(),
                    ccs.c_str(), node.c_str(), life.c_str());
    else
      std::snprintf(line, sizeof line, "%-6s %-20s %-8s %-22s %s\n", rank.c_str(), host.c_str(), pid.c_str(),
                    ccs.c_str(), life.c_str());
    result.text += line;
  };
  row("rank", "host", "pid", "ccs", "node", "pmix", "life");
  result.data = {{"size", ctx.debugger.session().job().size()}, {"per_rank", nlohmann::json::array()}};
  for (const auto& info : snapshot) {
    if (!ranks->contains(info.rank)) continue;
    std::string life = info.ended() ? info.describeEnd() : info.heldByGdb ? "held by gdb" : "live";
    // A rank attached without the runtime has no CCS server.
    const std::string ccs = info.noRuntime ? std::string("-") : info.endpoint.toString();
    nlohmann::json json = {{"rank", info.rank},
                           {"host", info.host},
                           {"pid", static_cast<int>(info.pid)},
                           {"ccs", ccs},
                           {"life", life},
                           {"held", info.heldByGdb},
                           {"ended", info.ended()}};
    if (!info.node.empty()) json["node"] = info.node;
    if (!info.pmixNamespace.empty())
      json["pmix"] = {{"namespace", info.pmixNamespace},
                      {"rank", info.pmixRank},
                      {"node", info.node},
                      {"published", info.pmixPublished}};
    result.data["per_rank"].push_back(std::move(json));
    const std::string id = info.pmixNamespace.empty() ? std::string("-")
                                                      : info.pmixNamespace + ":" + std::to_string(info.pmixRank) +
                                                            (info.pmixPublished ? "*" : "");
    row(std::to_string(info.rank), info.host, std::to_string(static_cast<int>(info.pid)), ccs,
        info.node.empty() ? "-" : info.node, id, life);
  }
  return result;
}

CommandResult doKill(Context& ctx, const CommandArgs&) {
  if (!ctx.debugger.session().hasJob()) return CommandResult::failure("no job to kill");
  ctx.debugger.session().kill();
  ctx.killedByUser = true;
  CommandResult result;
  result.text = "Killed the job.\n";
  result.data = {{"killed", true}};
  return result;
}

CommandResult doQuit(Context&, const CommandArgs&) {
  CommandResult result;
  result.quit = true;
  result.data = {{"quit", true}};
  return result;
}

}  // namespace mpidbg::cli
