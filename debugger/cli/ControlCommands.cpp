#include "debugger/cli/ControlCommands.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "ccs/condition/Condition.hpp"
#include "ccs/proto/ControlProtocol.hpp"
#include "ccs/proto/RecordProtocol.hpp"
#include "ccs/proto/ThreadLevelProtocol.hpp"
#include "debugger/cli/JsonOutput.hpp"
#include "debugger/cli/SetCommands.hpp"
#include "debugger/core/ControlService.hpp"
#include "debugger/core/Grouping.hpp"
#include "debugger/core/RankExpr.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

namespace proto = ccs::proto;

namespace {

/// Optional leading rank set ("[0-3]", "all", "2", "(blocked - 0)", a named
/// set; see looksLikeRanks): its text when the first token is one, and
/// `args` advanced past it; "" (the focus, or every rank) otherwise.
std::string leadingRankText(const Context& ctx, std::string_view& args) {
  args = trim(args);
  auto [token, rest] = splitRankToken(args);
  if (!looksLikeRanks(ctx, token)) return {};
  args = trim(args.substr(args.size() - rest.size()));
  return token;
}

/// The lines naming the ranks of `outcomes` that were skipped because gdb
/// holds them: "Skipped ranks [1,3]: held by gdb (release with: gdb detach [1,3])".
std::string skippedLines(const core::ControlOutcomes& outcomes) {
  std::map<int, std::string> skipped;
  for (const auto& [rank, o] : outcomes)
    if (o.skipped) skipped[rank] = o.message;
  std::string text;
  for (const auto& g : core::groupByText(skipped))
    text += "Skipped " + core::describeRanks(g.ranks) + ": " + g.text + " (release with: gdb detach " +
            g.ranks.toString() + ")\n";
  return text;
}

/// Renders per-rank outcomes: successes as `[ranks] what`, ranks gdb holds
/// as skipped (a note, not a failure: the command acted on the others),
/// failures as an error; fails (ok=false) when a rank failed, and when no
/// rank succeeded. The data is {"succeeded":[{"ranks","rank_list","text"}],
/// "skipped":[{"ranks","rank_list","why"}],"failed":[{"ranks","rank_list","error"}]}.
CommandResult renderOutcomes(const core::ControlOutcomes& outcomes,
                             const std::string& what) {
  std::map<int, std::string> good, bad, skipped;
  for (const auto& [rank, o] : outcomes) {
    if (o.ok) good[rank] = what + (o.message.empty() ? "" : " (" + o.message + ")");
    else if (o.skipped) skipped[rank] = o.message;
    else bad[rank] = o.message;
  }
  CommandResult result;
  result.text = core::renderGroups(core::groupByText(good));
  result.data = {{"succeeded", groupsJson(good, "text")},
                 {"skipped", groupsJson(skipped, "why")},
                 {"failed", groupsJson(bad, "error")}};
  result.text += skippedLines(outcomes);
  if (good.empty() && bad.empty())  // nothing was done: a failure
    for (const auto& [rank, why] : skipped) bad[rank] = why + " (release with: gdb detach)";
  if (!bad.empty()) {
    std::string msg;
    for (const auto& g : core::groupByText(bad)) msg += (msg.empty() ? "" : "; ") + core::describeRanks(g.ranks) + ": " + g.text;
    if (good.empty()) {
      CommandResult failed = CommandResult::failure(msg);
      failed.data = std::move(result.data);
      return failed;
    }
    result.text += "Not on every rank: " + msg + "\n";
    result.ok = false;
    result.error = "the command failed on " + std::to_string(bad.size()) + " of " +
                   std::to_string(outcomes.size()) + " ranks";
  }
  return result;
}

/// The breakpoint number `text` names, checked in this order: a number,
/// a session with a job, a breakpoint of the session.
Expected<int> breakpointNumber(Context& ctx, std::string_view text) {
  text = trim(text);
  int id = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    return fail("expected a breakpoint number (see 'info break'), got '" + std::string(text) + "'");
  if (!ctx.debugger.session().hasJob()) return fail(std::string(kNoJob));
  if (ctx.debugger.controls().find(id) == nullptr) return fail("no breakpoint " + std::to_string(id));
  return id;
}

std::string describe(const proto::Breakpoint& b) {
  std::string out = b.kind == proto::BreakKind::Entry       ? "entry " + b.target
                    : b.kind == proto::BreakKind::Violation ? std::string("thread-level violation")
                                                            : b.target;
  if (!b.condition.empty()) out += " if " + b.condition;
  if (b.hit > 0) out += " #" + std::to_string(b.hit);
  return out;
}

/// A breakpoint for --json: {"id","kind":"mpi"|"entry"|"violation","target","condition",
/// "hit","enabled","description","ranks","rank_list"} (hit 0 = every match).
nlohmann::json breakpointJson(const proto::Breakpoint& b, const core::RankSet& ranks) {
  return withRanks({{"id", b.id},
                    {"kind", std::string(proto::breakKindName(b.kind))},
                    {"target", b.target},
                    {"condition", b.condition},
                    {"hit", b.hit},
                    {"enabled", b.enabled},
                    {"description", describe(b)}},
                   ranks);
}

/// Per-rank counts as [{"ranks","rank_list",<field>:N}], ranks with equal
/// counts together, ordered by each group's lowest rank.
nlohmann::json countsJson(const std::map<int, std::uint64_t>& byRank, const std::string& field) {
  std::map<int, std::string> texts;
  for (const auto& [rank, n] : byRank) texts[rank] = std::to_string(n);
  nlohmann::json groups = groupsJson(texts, field);
  for (auto& g : groups) g[field] = std::stoull(g[field].get<std::string>());
  return groups;
}

/// info threadlevel [RANKS]: each rank's requested, provided and required
/// levels (mpidbg/threadlevel), ranks with the same levels together. Data:
/// {"levels":[{"ranks","rank_list","requested","provided","required",
/// "violations"}],"missing":[{"ranks","rank_list","why"}]} (levels by name).
CommandResult infoThreadLevel(Context& ctx, std::string_view rankText) {
  auto ranks = commandRanks(ctx, rankText);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  auto report = ctx.debugger.controls().threadLevels(*ranks);
  if (!report) return CommandResult::failure(report.error().message);
  const auto& missing = report->missing;
  std::map<int, std::string> byRank;
  std::map<std::string, proto::ThreadLevelInfo> sample;
  for (const auto& i : report->items) {
    const std::string line = "requested " + proto::threadLevelName(i.requested) + ", provided " +
                             proto::threadLevelName(i.provided) + ", required so far " +
                             proto::threadLevelName(i.required) + " (" + std::to_string(i.violations) +
                             (i.violations == 1 ? " violation)" : " violations)");
    byRank[i.rank] = line;
    sample[line] = i;
  }
  CommandResult result;
  result.data = {{"levels", nlohmann::json::array()}, {"missing", groupsJson(missing, "why")}};
  for (const auto& g : core::groupByText(byRank)) {
    const proto::ThreadLevelInfo& i = sample[g.text];
    result.text += g.ranks.toString() + " " + g.text + "\n";
    result.data["levels"].push_back(withRanks({{"requested", proto::threadLevelName(i.requested)},
                                              {"provided", proto::threadLevelName(i.provided)},
                                              {"required", proto::threadLevelName(i.required)},
                                              {"violations", i.violations}},
                                             g.ranks));
  }
  for (const auto& [rank, why] : missing) result.text += "[" + std::to_string(rank) + "] did not answer: " + why + "\n";
  if (result.text.empty()) result.text = "No rank answered (the job has ended?).\n";
  return result;
}

/// info check: the findings of `mpidbg check` the run is joined to (mpidbg
/// --check FILE), each with what this run showed at its site. Data:
/// {"file", "findings":[{"site","file","line","column","function",
/// "category","severity","message","seen","violated":[ranks]}]}, `seen`
/// "violated" (a violation event at the site), "not seen" (none so far), or
/// "hang" (a rank-dependent collective: hang looks for it where ranks wait).
CommandResult infoCheck(Context& ctx) {
  const auto findings = ctx.debugger.session().job().staticFindings();
  if (!findings)
    return CommandResult::failure(
        "no findings of mpidbg check: start mpidbg with --check FILE (written by: mpidbg check --format json -o "
        "FILE ...)");
  const auto predicted = ctx.debugger.session().job().predictedViolations();
  CommandResult result;
  result.data = {{"file", findings->path}, {"findings", nlohmann::json::array()}};
  std::size_t violated = 0, notSeen = 0;
  for (std::size_t i = 0; i < findings->findings.size(); ++i) {
    const core::StaticFinding& f = findings->findings[i];
    const auto hit = predicted.find(i);
    std::string seen = "hang";
    std::string line = "  " + f.site() + " " + f.function + " [" + f.category + "]: ";
    if (!f.threadCategory()) {
      line += "not a run-time check ('hang' names it when ranks wait there)";
    } else if (hit != predicted.end()) {
      seen = "violated";
      ++violated;
      line += "violated in this run on " + hit->second.toString();
    } else {
      seen = "not seen";
      ++notSeen;
      line += "not seen in this run (no violation reported at this site so far)";
    }
    result.text += line + "\n";
    result.data["findings"].push_back(
        {{"site", f.site()}, {"file", f.file}, {"line", f.line}, {"column", f.column}, {"function", f.function},
         {"category", f.category}, {"severity", f.severity}, {"message", f.message}, {"seen", seen},
         {"violated", hit == predicted.end() ? std::vector<int>{} : hit->second.toVector()}});
  }
  result.text = "Findings of mpidbg check (" + findings->path + "): " + std::to_string(findings->findings.size()) +
                ", " + std::to_string(violated) + " violated in this run, " + std::to_string(notSeen) +
                " thread-level ones not seen\n" + result.text;
  return result;
}

/// "MPI_Recv:40,MPI_Waitany:12" (RecordInfo::byKind) as a JSON object.
nlohmann::json byFunctionJson(std::string_view byKind) {
  nlohmann::json out = nlohmann::json::object();
  while (!byKind.empty()) {
    const auto comma = byKind.find(',');
    const std::string_view item = byKind.substr(0, comma);
    byKind = comma == std::string_view::npos ? std::string_view() : byKind.substr(comma + 1);
    const auto colon = item.rfind(':');
    if (colon == std::string_view::npos) continue;
    out[std::string(item.substr(0, colon))] = std::strtoull(std::string(item.substr(colon + 1)).c_str(), nullptr, 10);
  }
  return out;
}

/// info record [RANKS]: what each rank records and replays (mpidbg/record),
/// ranks with the same state together. Data: {"records":[{"rank","recording",
/// "record_path","recorded","record_bytes","by_function","replaying",
/// "replay_path","replayed","replay_total","replay_complete","diverged"}],
/// "missing":[{"ranks","rank_list","why"}]}.
CommandResult infoRecord(Context& ctx, std::string_view rankText) {
  auto ranks = commandRanks(ctx, rankText);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  auto report = ctx.debugger.controls().records(*ranks);
  if (!report) return CommandResult::failure(report.error().message);
  const auto& missing = report->missing;
  std::map<int, std::string> byRank;
  CommandResult result;
  result.data = {{"records", nlohmann::json::array()}, {"missing", groupsJson(missing, "why")}};
  for (const auto& i : report->items) {
    std::string line;
    if (!i.recordPath.empty()) {
      line += "recorded " + std::to_string(i.recorded) + (i.recorded == 1 ? " decision" : " decisions");
      if (!i.byKind.empty()) {
        std::string kinds;
        for (char c : i.byKind) kinds += c == ',' ? std::string(", ") : std::string(1, c == ':' ? ' ' : c);
        line += " (" + kinds + ")";
      }
      line += ", " + std::to_string(i.recordBytes) + " bytes" + (i.recording ? "" : ", log closed");
    }
    if (!i.replayPath.empty()) {
      if (!line.empty()) line += "; ";
      line += "replayed " + std::to_string(i.replayed) + " of " + std::to_string(i.replayTotal) + " decisions";
      if (!i.diverged.empty()) line += ", diverged at " + i.diverged;
      else if (!i.replayComplete && i.replayTotal > 0) line += " (the record was cut short)";
    }
    if (line.empty()) line = "not recording or replaying (mpidbg --record DIR / --replay DIR)";
    byRank[i.rank] = line;
    result.data["records"].push_back({{"rank", i.rank},
                                    {"recording", i.recording},
                                    {"record_path", i.recordPath},
                                    {"recorded", i.recorded},
                                    {"record_bytes", i.recordBytes},
                                    {"by_function", byFunctionJson(i.byKind)},
                                    {"replaying", i.replaying},
                                    {"replay_path", i.replayPath},
                                    {"replayed", i.replayed},
                                    {"replay_total", i.replayTotal},
                                    {"replay_complete", i.replayComplete},
                                    {"diverged", i.diverged}});
  }
  for (const auto& g : core::groupByText(byRank)) result.text += g.ranks.toString() + " " + g.text + "\n";
  for (const auto& [rank, why] : missing) result.text += "[" + std::to_string(rank) + "] did not answer: " + why + "\n";
  if (result.text.empty()) result.text = "No rank answered (the job has ended?).\n";
  return result;
}

/// What delete, enable and disable do to one breakpoint.
enum class RefAction { Delete, Enable, Disable };

CommandResult refByNumber(Context& ctx, std::string_view args, RefAction action) {
  auto id = breakpointNumber(ctx, args);
  if (!id) return CommandResult::failure(id.error().message);
  core::ControlService& controls = ctx.debugger.controls();
  auto outcomes = action == RefAction::Delete ? controls.remove(*id) : controls.setEnabled(*id, action == RefAction::Enable);
  if (!outcomes) return CommandResult::failure(outcomes.error().message);
  const std::string what = action == RefAction::Delete   ? "deleted"
                           : action == RefAction::Enable ? "enabled"
                                                         : "disabled";
  auto result = renderOutcomes(*outcomes, what + " breakpoint " + std::to_string(*id));
  result.data["breakpoint"] = *id;
  return result;
}

}  // namespace

Expected<proto::Breakpoint> parseBreakpoint(std::string_view args) {
  args = trim(args);
  if (args.empty())
    return fail(
        "usage: break [RANKS] MPI_FUNCTION [if CONDITION] [#N] | break [RANKS] entry NAME [if CONDITION] | "
        "break [RANKS] violation [#N]");
  proto::Breakpoint b;
  // Target.
  auto firstSpace = args.find_first_of(" \t");
  std::string_view word = args.substr(0, firstSpace);
  std::string_view rest = firstSpace == std::string_view::npos ? std::string_view{} : trim(args.substr(firstSpace));
  if (word == "entry") {
    b.kind = proto::BreakKind::Entry;
    auto space = rest.find_first_of(" \t");
    word = rest.substr(0, space);
    rest = space == std::string_view::npos ? std::string_view{} : trim(rest.substr(space));
    if (word.empty()) return fail("usage: break [RANKS] entry NAME [if CONDITION]");
  } else if (word == "violation") {
    b.kind = proto::BreakKind::Violation;
  } else if (ccs::cond::findFunction(word) == nullptr) {
    return std::unexpected(ccs::cond::unknownFunction(word));
  }
  b.target = std::string(word);
  // A trailing "#N": stop only at the Nth matching call. A '#' inside a
  // quoted communicator name ("comm == \"halo#2\"") is the name's.
  std::size_t hash = std::string_view::npos;
  bool quoted = false;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '"') quoted = !quoted;
    else if (rest[i] == '#' && !quoted) hash = i;
  }
  if (hash != std::string_view::npos) {
    std::string_view number = trim(rest.substr(hash + 1));
    std::uint64_t n = 0;
    auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
    if (number.empty() || ec != std::errc() || ptr != number.data() + number.size() || n == 0)
      return fail("bad hit count '#" + std::string(number) + "' (expected e.g. #42)");
    b.hit = n;
    rest = trim(rest.substr(0, hash));
  }
  if (rest == "if" || rest.starts_with("if ") || rest.starts_with("if\t")) rest = trim(rest.substr(2));
  if (b.kind == proto::BreakKind::Violation && !rest.empty())
    return fail("break violation takes no condition (usage: break [RANKS] violation [#N])");
  b.condition = std::string(rest);
  if (!b.condition.empty()) {
    auto condition = ccs::cond::Condition::parse(b.condition);
    if (!condition) return std::unexpected(condition.error());
    auto valid = b.kind == proto::BreakKind::Entry
                     ? condition->validateFor(ccs::cond::kAlways, "entry " + b.target)
                     : condition->validateFor(b.target);
    if (!valid) return std::unexpected(valid.error());
  }
  return b;
}

CommandResult doBreak(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  const std::string rankText = leadingRankText(ctx, args);
  if (!rankText.empty())
    if (auto expr = core::RankExpr::parse(rankText); !expr) return CommandResult::failure(expr.error().message);
  auto spec = parseBreakpoint(args);
  if (!spec) return CommandResult::failure(spec.error().message);
  auto ranks = commandRanks(ctx, rankText);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  const core::BreakpointSet done = ctx.debugger.controls().set(*ranks, std::move(*spec));
  const proto::Breakpoint& b = done.spec;
  const core::RankSet& set = done.ranks;
  const core::ControlOutcomes& outcomes = done.outcomes;
  CommandResult result = renderOutcomes(outcomes, "breakpoint " + std::to_string(b.id) + " set");
  result.data["breakpoint"] = breakpointJson(b, set);
  if (!set.empty()) {
    // A rank's note (a call of the target it was already inside) under the
    // summary; when some ranks failed, result.text already carries the notes.
    std::map<int, std::string> notes;
    for (const auto& [rank, o] : outcomes)
      if (o.ok && !o.message.empty()) notes[rank] = o.message;
    result.text = "Breakpoint " + std::to_string(b.id) + ": " + describe(b) + " on " + set.toString() + "\n" +
                  (result.ok ? core::renderGroups(core::groupByText(notes)) + skippedLines(outcomes) : result.text);
  }
  return result;
}

CommandResult doDelete(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  if (trim(args) == "all" || trim(args).empty()) {  // gdb's bare 'delete' deletes every breakpoint
    CommandResult result;
    std::vector<int> ids;
    for (const auto& [id, e] : ctx.debugger.controls().breakpoints()) ids.push_back(id);
    for (int id : ids) {
      auto r = refByNumber(ctx, std::to_string(id), RefAction::Delete);
      result.text += r.text;
      if (!r.ok) result = CommandResult::failure(r.error);
    }
    if (ids.empty()) result.text = "No breakpoints.\n";
    result.data = {{"deleted", ids}};
    return result;
  }
  return refByNumber(ctx, args, RefAction::Delete);
}

CommandResult doDisable(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  return refByNumber(ctx, args, RefAction::Disable);
}

CommandResult doEnable(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  return refByNumber(ctx, args, RefAction::Enable);
}

CommandResult doInfo(Context& ctx, const CommandArgs& parsed) {
  const std::string_view what = parsed.subcommand;
  const std::string_view rest = parsed.ranks;
  CommandResult result;
  if (what == "break") {
    result.data = {{"breakpoints", nlohmann::json::array()}};
    if (ctx.debugger.controls().breakpoints().empty()) {
      result.text = "No breakpoints.\n";
      return result;
    }
    auto hits = ctx.debugger.controls().hits(*ctx.debugger.ranks("all"));  // id -> rank -> hits
    char line[512];
    std::snprintf(line, sizeof line, "%-4s %-8s %-14s %s\n", "Num", "Enabled", "Ranks", "What / hits");
    result.text = line;
    for (const auto& [id, e] : ctx.debugger.controls().breakpoints()) {
      std::snprintf(line, sizeof line, "%-4d %-8s %-14s %s\n", id, e.spec.enabled ? "yes" : "no",
                    e.ranks.toString().c_str(), describe(e.spec).c_str());
      result.text += line;
      std::map<int, std::string> byRank;
      for (const auto& [rank, n] : hits[id]) byRank[rank] = "hit " + std::to_string(n) + (n == 1 ? " time" : " times");
      for (const auto& g : core::groupByText(byRank)) result.text += "     " + g.ranks.toString() + " " + g.text + "\n";
      nlohmann::json entry = breakpointJson(e.spec, e.ranks);
      entry["hits"] = countsJson(hits[id], "hits");
      result.data["breakpoints"].push_back(std::move(entry));
    }
    return result;
  }
  if (what == "entries") {
    auto ranks = commandRanks(ctx, rest);
    if (!ranks) return CommandResult::failure(ranks.error().message);
    auto report = ctx.debugger.controls().entries(*ranks);
    if (!report) return CommandResult::failure("bad entries reply: " + report.error().message);
    const auto& missing = report->missing;
    std::map<std::string, std::map<int, std::string>> byName;
    std::map<std::string, std::map<int, std::uint64_t>> counts;
    for (const auto& e : report->items) {
      byName[e.name][e.rank] = std::to_string(e.hits) + (e.hits == 1 ? " hit" : " hits");
      counts[e.name][e.rank] = e.hits;
    }
    result.data = {{"entries", nlohmann::json::array()}, {"missing", groupsJson(missing, "why")}};
    for (const auto& [name, perRank] : counts)
      result.data["entries"].push_back({{"name", name}, {"hits", countsJson(perRank, "hits")}});
    if (byName.empty()) result.text = "No entry point reached yet on " + ranks->toString() + ".\n";
    for (const auto& [name, perRank] : byName) {
      result.text += name + ":\n";
      for (const auto& g : core::groupByText(perRank)) result.text += "  " + g.ranks.toString() + " " + g.text + "\n";
    }
    for (const auto& [rank, why] : missing) result.text += "[" + std::to_string(rank) + "] did not answer: " + why + "\n";
    return result;
  }
  if (what == "threadlevel") return infoThreadLevel(ctx, rest);
  if (what == "record") return infoRecord(ctx, rest);
  return infoCheck(ctx);  // "check": the parser knows no other subcommand
}

CommandResult doFreeze(Context& ctx, const CommandArgs& args) {
  const bool now = args.flag("--now");
  auto ranks = commandRanks(ctx, args.ranks);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  CommandResult result = renderOutcomes(ctx.debugger.controls().freeze(*ranks, now),
                                        now ? "frozen (--now)" : "will freeze at the next MPI call or entry point");
  result.data["now"] = now;
  return result;
}

namespace {

CommandResult stepRanks(Context& ctx, std::uint64_t count, std::string_view rankText) {
  auto ranks = commandRanks(ctx, rankText);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  CommandResult result = renderOutcomes(ctx.debugger.controls().step(*ranks, count),
                                        count == 1 ? "stepping to the next MPI call or entry point"
                                                   : "stepping over " + std::to_string(count) + " MPI calls or entry points");
  result.data["count"] = count;
  return result;
}

/// `step`/`next` arguments: `[COUNT] [RANKS]`. A first word of decimal digits
/// other than 0 is COUNT (1 when absent); the rest is the rank set. So `step 2`
/// steps twice, as in gdb; one rank once is `step 1 2` or `step [2]`. A count
/// of 0 means nothing, so `step 0` keeps its old meaning: rank 0, once.
CommandResult stepCommand(Context& ctx, std::string_view name, std::string_view args) {
  args = trim(args);
  const auto space = args.find_first_of(" \t");
  const std::string_view first = args.substr(0, space);
  std::uint64_t count = 1;
  const bool digits =
      !first.empty() && std::all_of(first.begin(), first.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits && first.find_first_not_of('0') != std::string_view::npos) {
    auto [ptr, ec] = std::from_chars(first.data(), first.data() + first.size(), count);
    if (ec != std::errc() || ptr != first.data() + first.size() || count == 0 || count > proto::kMaxStepCount)
      return CommandResult::failure("usage: " + std::string(name) + " [COUNT] [RANKS] (COUNT from 1 to " +
                                    std::to_string(proto::kMaxStepCount) + ")");
    args = space == std::string_view::npos ? std::string_view{} : args.substr(space);
  }
  return stepRanks(ctx, count, args);
}

}  // namespace

CommandResult doStep(Context& ctx, const CommandArgs& args) { return stepCommand(ctx, "step", args.rest); }

CommandResult doNext(Context& ctx, const CommandArgs& args) { return stepCommand(ctx, "next", args.rest); }

CommandResult doDetach(Context& ctx, const CommandArgs&) {
  if (!ctx.debugger.session().hasJob()) return CommandResult::failure("no job to detach from");
  ctx.debugger.detach();
  ctx.killedByUser = true;  // the job's end is no longer ours to report
  CommandResult result;
  result.text = "Detached: the job runs on without the debugger.\n";
  result.data = {{"detached", true}};
  return result;
}

}  // namespace mpidbg::cli
