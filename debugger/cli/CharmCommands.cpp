// Commands on a Charm++ program: PEs stand for ranks (see CharmCommands.hpp).
#include "debugger/cli/CharmCommands.hpp"

#include <algorithm>
#include <charconv>
#include <thread>

#include "debugger/cli/JsonOutput.hpp"
#include "debugger/cli/ListCommands.hpp"
#include "debugger/cli/SetCommands.hpp"
#include "debugger/core/Grouping.hpp"
#include "debugger/core/ObjectQuery.hpp"
#include "debugger/core/charm/CharmJob.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

namespace charm = core::charm;

namespace {

/// The PEs `text` names (all, or the focus, when blank): literals and `all`
/// always; the other rank-set operands when the PE processes are attached.
Expected<core::RankSet> pes(Context& ctx, std::string_view text) {
  text = trim(text);
  if (ctx.charm == nullptr || !ctx.charm->active()) return fail(std::string(kNoJob));
  const int size = ctx.charm->size();
  if (text.empty()) return ctx.session.focus ? *ctx.session.focus : core::RankSet::all(size);
  if (ctx.debugger.session().hasJob()) return commandRanks(ctx, text);
  return core::RankSet::parse(text, size);
}

/// An entry index right-aligned in 5 columns.
std::string fmtIndex(int index) {
  std::string text = std::to_string(index);
  return std::string(text.size() < 5 ? 5 - text.size() : 0, ' ') + text;
}

/// The blank-separated words of `text`.
std::vector<std::string> splitWords(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t') ++j;
    if (j > i) out.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

/// "PEs [0-1]" / "PE 3".
std::string peWords(const core::RankSet& set) {
  return set.size() == 1 ? "PE " + std::to_string(*set.begin()) : "PEs " + set.toString();
}

/// One line per group of PEs that failed for the same reason, by lowest PE.
std::string failedLines(const std::map<int, std::string>& failed) {
  return core::renderGroups(core::groupByText(failed));
}

nlohmann::json failedJson(const std::map<int, std::string>& failed) { return groupsJson(failed, "error"); }

/// The outcome groups of a control command (docs/json-schema.md, "outcomes"):
/// succeeded with `verb` on the PEs of `asked` that did not fail.
nlohmann::json outcomesJson(nlohmann::json data, const std::string& verb, const core::RankSet& asked,
                            const std::map<int, std::string>& failed) {
  std::map<int, std::string> succeeded;
  for (int pe : asked)
    if (!failed.contains(pe)) succeeded[pe] = verb;
  data["succeeded"] = groupsJson(succeeded, "text");
  data["skipped"] = nlohmann::json::array();
  data["failed"] = failedJson(failed);
  return data;
}

/// A breakpoint as docs/json-schema.md describes one (kind "entry").
nlohmann::json breakpointJson(const charm::CharmBreakpoint& bp) {
  return withRanks({{"id", bp.id},
                    {"kind", "entry"},
                    {"target", bp.entry.qualified()},
                    {"condition", ""},
                    {"hit", 0},
                    {"enabled", true},
                    {"description", "entry " + bp.entry.qualified()}},
                   bp.pes);
}

/// The result of a control command: `verb` on the PEs that took it, failures
/// per group; `data` the command's JSON result.
CommandResult controlResult(const std::string& verb, const core::RankSet& asked,
                            const std::map<int, std::string>& failed, nlohmann::json data) {
  core::RankSet done = asked;
  for (const auto& [pe, why] : failed) done.erase(pe);
  CommandResult result;
  if (!done.empty()) result.text = done.toString() + " " + verb + "\n";
  result.text += failedLines(failed);
  result.data = std::move(data);
  if (done.empty() && !failed.empty()) {
    result.ok = false;
    result.error = "no PE " + verb + ": " + failed.begin()->second;
  }
  return result;
}

CommandResult statusResult(Context& ctx, const core::RankSet& set) {
  const auto views = ctx.charm->status(set);
  std::map<int, std::string> textByPe;  // PEs are grouped by what they do
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& view : views) {
    std::string text(charm::peStateName(view.state));
    if (view.state == charm::PeState::AtBreakpoint) {
      const charm::CharmBreakpoint* bp = ctx.charm->breakpointAt(view.pe, view.entry);
      text = bp != nullptr ? "at breakpoint " + std::to_string(bp->id) + " in entry " + bp->entry.qualified()
                           : "at breakpoint in entry " + view.entry;
    } else if (view.state == charm::PeState::Aborted) {
      text = "aborted (frozen): " + view.entry;
    } else if (view.state == charm::PeState::Unknown) {
      text = "not answering: " + view.error;
    }
    textByPe[view.pe] = text;
    // The shape of an MPI rank's status (docs/json-schema.md, "status"), the PE as the rank.
    const bool running = view.state == charm::PeState::Running;
    const bool frozen = charm::isStopped(view.state);
    rows.push_back({{"rank", view.pe},
                    {"state", text},
                    {"runtime_state", running ? nlohmann::json("running") : frozen ? nlohmann::json("frozen") : nlohmann::json()},
                    {"blocked", false},
                    {"settled", !running && view.state != charm::PeState::Unknown},
                    {"held", view.state == charm::PeState::HeldByGdb},
                    {"ended", view.state == charm::PeState::Ended},
                    {"mpi_calls", nullptr},
                    {"call", nullptr},
                    {"call_site", nullptr},
                    {"error", view.error.empty() ? nlohmann::json() : nlohmann::json(view.error)}});
  }
  CommandResult result;
  const auto groups = core::groupByText(textByPe);
  result.text = core::renderGroups(groups);
  nlohmann::json groupRows = nlohmann::json::array();
  for (const auto& group : groups) groupRows.push_back(withRanks({{"state", group.text}}, group.ranks));
  result.data = {{"size", ctx.charm->size()}, {"groups", groupRows}, {"per_rank", rows}};
  return result;
}

CommandResult doCharmStatus(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  auto set = pes(ctx, args);
  if (!set) return CommandResult::failure(set.error().message);
  return statusResult(ctx, *set);
}

CommandResult doCharmInfo(Context& ctx, const CommandArgs& parsed) {
  if (ctx.charm == nullptr || !ctx.charm->active()) return CommandResult::failure(std::string(kNoJob));
  if (parsed.subcommand == "entries") {
    const bool all = parsed.flag("--all");
    auto entries = ctx.charm->entries();
    if (!entries) return CommandResult::failure("cannot read the entry methods (charm/entries on PE 0): " + entries.error().message);
    CommandResult result;
    nlohmann::json rows = nlohmann::json::array();
    std::size_t hidden = 0;
    for (const auto& e : *entries) {
      if (e.system && !all) {
        ++hidden;
        continue;
      }
      result.text += fmtIndex(e.index) + "  " + e.qualified() + (!e.system ? "" : e.chare == "MPI" ? "  (MPI)" : "  (Charm++)") + "\n";
      rows.push_back({{"index", e.index}, {"name", e.name}, {"chare", e.chare}, {"system", e.system}});
    }
    if (hidden > 0)
      result.text += "(" + std::to_string(hidden) +
                     (ctx.charm->servesMpiProgram() ? " MPI functions" : " entry methods of Charm++ itself") +
                     " not shown: info entries --all)\n";
    result.data = {{"charm_entries", rows}, {"hidden", hidden}};
    return result;
  }
  // "breakpoints": the parser knows no other subcommand.
  CommandResult result;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [id, bp] : ctx.charm->breakpoints()) {
    result.text += std::to_string(id) + "  entry " + bp.entry.qualified() + " on " + bp.pes.toString() + "\n";
    nlohmann::json row = breakpointJson(bp);
    row["hits"] = nlohmann::json::array();  // Charm++ does not count hits
    rows.push_back(std::move(row));
  }
  if (rows.empty()) result.text = "No breakpoints.\n";
  result.data = {{"breakpoints", rows}};
  return result;
}

CommandResult doCharmBreak(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  args = trim(args);
  if (args.empty()) return CommandResult::failure("break [PES] [entry] NAME: which entry method? ('info entries' lists them)");
  std::string peText;
  if (auto [first, rest] = splitRankToken(args); !trim(rest).empty() && looksLikeRanks(ctx, first)) {
    peText = first;
    args = trim(rest);
  }
  if (args.starts_with("entry ")) args = trim(args.substr(6));
  auto set = pes(ctx, peText);
  if (!set) return CommandResult::failure(set.error().message);
  auto found = ctx.charm->findEntries(args);
  if (!found) return CommandResult::failure("cannot read the entry methods: " + found.error().message);
  if (found->empty()) {
    std::string near;
    if (auto all = ctx.charm->entries())
      for (const auto& e : *all)
        if (!e.system && e.qualified().find(std::string(args)) != std::string::npos) near += "\n  " + e.qualified();
    return CommandResult::failure("no entry method '" + std::string(args) + "'" +
                                  (near.empty() ? " ('info entries' lists them)" : "; did you mean:" + near));
  }
  if (found->size() > 1) {
    std::string list;
    for (const auto& e : *found) list += "\n  " + std::to_string(e.index) + "  " + e.qualified();
    return CommandResult::failure("'" + std::string(args) + "' names " + std::to_string(found->size()) +
                                  " entry methods; give the full name or the index:" + list);
  }
  auto [bp, failed] = ctx.charm->setBreakpoint(found->front(), *set);
  CommandResult result;
  if (!bp.pes.empty())
    result.text = "Breakpoint " + std::to_string(bp.id) + " at entry " + bp.entry.qualified() + " on " +
                  peWords(bp.pes) + "\n";
  result.text += failedLines(failed);
  result.data = outcomesJson({{"breakpoint", breakpointJson(bp)}}, "set", *set, failed);
  if (bp.pes.empty()) {
    result.ok = false;
    result.error = "breakpoint not set: " + (failed.empty() ? std::string("no PE") : failed.begin()->second);
  }
  return result;
}

CommandResult doCharmDelete(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  args = trim(args);
  if (ctx.charm == nullptr || !ctx.charm->active()) return CommandResult::failure(std::string(kNoJob));
  std::vector<int> ids;
  if (args.empty() || args == "all") {
    for (const auto& [id, bp] : ctx.charm->breakpoints()) ids.push_back(id);
  } else {
    for (const auto& word : splitWords(args)) {
      int id = 0;
      auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), id);
      if (ec != std::errc() || end != word.data() + word.size()) return CommandResult::failure("delete takes breakpoint numbers or 'all': '" + word + "'");
      ids.push_back(id);
    }
  }
  CommandResult result;
  nlohmann::json deleted = nlohmann::json::array();
  for (int id : ids) {
    auto removed = ctx.charm->removeBreakpoint(id);
    if (!removed) return CommandResult::failure(removed.error().message);
    result.text += "Deleted breakpoint " + std::to_string(id) + "\n" + failedLines(*removed);
    deleted.push_back(id);
  }
  if (ids.empty()) result.text = "No breakpoints.\n";
  result.data = {{"deleted", deleted}};
  return result;
}

CommandResult doCharmFreeze(Context& ctx, const CommandArgs& parsed) {
  const std::string_view args = parsed.rest;
  if (parsed.flag("--now")) return CommandResult::failure("freeze --now is for MPI ranks: Charm++ freezes a PE between entry methods");
  auto set = pes(ctx, args);
  if (!set) return CommandResult::failure(set.error().message);
  auto failed = ctx.charm->freeze(*set);
  return controlResult("frozen", *set, failed, outcomesJson({{"now", false}}, "frozen", *set, failed));
}

CommandResult doCharmRun(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  auto set = pes(ctx, args);
  if (!set) return CommandResult::failure(set.error().message);
  auto failed = ctx.charm->resume(*set);
  core::RankSet done = *set;
  for (const auto& [pe, why] : failed) done.erase(pe);
  return controlResult("continued", *set, failed,
                       {{"continued", withRanks(nlohmann::json::object(), done)}, {"not_continued", groupsJson(failed, "why")}});
}

CommandResult doCharmStep(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  args = trim(args);
  auto set = pes(ctx, args);
  if (!set) return CommandResult::failure(set.error().message);
  auto failed = ctx.charm->step(*set);
  core::RankSet stepped = *set;
  for (const auto& [pe, why] : failed) stepped.erase(pe);
  CommandResult result = controlResult("stepped (one message delivered; still frozen)", *set, failed,
                                       outcomesJson({{"count", 1}}, "stepped", *set, failed));
  if (!stepped.empty()) {
    // The message's entry method runs before the PE answers again.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    result.text += statusResult(ctx, stepped).text;
  }
  return result;
}

CommandResult doCharmWait(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  auto timeout = parseWaitTimeout(args, ctx.settings.defaultWait);
  if (!timeout) return CommandResult::failure(timeout.error().message);
  if (ctx.charm == nullptr || !ctx.charm->active()) return CommandResult::failure(std::string(kNoJob));
  const auto start = std::chrono::steady_clock::now();
  using Outcome = charm::CharmJob::WaitOutcome;
  const Outcome outcome = ctx.charm->waitForEvent(*timeout, [] { return g_interrupted.load(); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ctx.console.drainNotices();
  if (outcome == Outcome::Ended || !ctx.charm->alive()) {
    CommandResult result;
    result.text = "The program has ended.\n";
    result.data = {{"outcome", "ended"}, {"seconds", seconds}, {"launcher", nullptr}};
    return result;
  }
  CommandResult result = statusResult(ctx, core::RankSet::all(ctx.charm->size()));
  if (outcome == Outcome::TimedOut) result.text = "Still running after the wait:\n" + result.text;
  if (outcome == Outcome::Cancelled) result.text = "Interrupted:\n" + result.text;
  result.data = {{"outcome", outcome == Outcome::Stopped   ? "stopped"
                             : outcome == Outcome::Settled ? "settled"
                             : outcome == Outcome::TimedOut ? "timed_out"
                                                            : "interrupted"},
                 {"seconds", seconds},
                 {"launcher", nullptr}};
  return result;
}

CommandResult doCharmLists(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  auto set = pes(ctx, args);
  if (!set) return CommandResult::failure(set.error().message);
  return listsOn(ctx.charm->lists(), *set, "PE");
}

CommandResult doCharmPrint(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  if (ctx.charm == nullptr || !ctx.charm->active()) return CommandResult::failure(std::string(kNoJob));
  return printOn(ctx.charm->lists(), [&ctx](std::string_view text) { return pes(ctx, text); }, args, "PE");
}

CommandResult doCharmDetach(Context& ctx, const CommandArgs&) {
  if (ctx.charm == nullptr || !ctx.charm->active()) return CommandResult::failure(std::string(kNoJob));
  if (ctx.charm->launched())
    return CommandResult::failure("a program mpidbg started ends with the session ('kill' or 'quit'); to leave one "
                                  "running, start it yourself with ++server ++server-port PORT +cpd and use "
                                  "'mpidbg attach charm HOST:PORT'");
  ctx.charm->detach();
  CommandResult result;
  result.text = "Detached: breakpoints removed, every PE continued.\n";
  result.data = {{"detached", true}};
  return result;
}

CommandResult doCharmKill(Context& ctx, const CommandArgs&) {
  if (ctx.charm == nullptr || !ctx.charm->active()) return CommandResult::failure(std::string(kNoJob));
  ctx.charm->kill();
  ctx.killedByUser = true;
  CommandResult result;
  result.text = "Killed the program.\n";
  result.data = {{"killed", true}};
  return result;
}

}  // namespace

const std::vector<Command>& charmCommandTable() {
  // Charm++'s freeze has no --now; declared so that it says so.
  const OptionSpec now{"--now", OptionValue::Flag, "", "for MPI ranks only: Charm++ freezes a PE between entry methods"};
  static const std::vector<Command> table = withSyntax({
      {"run", {"continue", "c", "r", "unfreeze"}, "[PES]", "Let frozen PEs go (all by default)",
       "Sends Charm++'s debug/charm/continue: a PE at a breakpoint runs the entry method it stopped in, then the "
       "messages queued while it was frozen.",
       doCharmRun, false, {.ranks = RankArg::Optional, .own = true}},
      {"break", {"b"}, "[PES] [entry] NAME", "Stop PEs when an entry method is about to run",
       "NAME: Chare::method, method, the full name with parameters, or the index 'info entries' shows. The PE "
       "freezes before the method runs; 'run' runs it, 'step' runs it and stays frozen.",
       doCharmBreak, false, {.ranks = RankArg::Optional, .own = true}},
      {"delete", {"d"}, "[N...|all]", "Delete breakpoints (all by default)", "Removes them from every PE.",
       doCharmDelete, false, {.own = true}},
      {"info", {"i"}, "", "List entry methods or breakpoints",
       "info entries: the program's entry methods with their indexes (--all: Charm++'s own too).", doCharmInfo, false,
       {.subcommands = {{"entries",
                         {"entry"},
                         "the program's entry methods",
                         {.options = {{"--all", OptionValue::Flag, "", "Charm++'s own entry methods too"}}}},
                        {"breakpoints", {"break", "b"}, "the breakpoints set"}}}},
      {"freeze", {}, "[PES]", "Freeze PEs between entry methods",
       "Sends debug/converse/freeze; a PE busy in an entry method freezes when it returns. Messages that arrive "
       "meanwhile wait in its queue (print converse/localqueue).",
       doCharmFreeze, false, {.options = {now}, .ranks = RankArg::Optional, .own = true}},
      {"step", {"s", "next", "n"}, "[PES]", "Deliver one message on frozen PEs",
       "Sends debug/charm/next: a PE at a breakpoint runs that entry method, another frozen PE the first queued "
       "message; it stays frozen.",
       doCharmStep, true, {.ranks = RankArg::Optional, .own = true}},
      {"status", {"st"}, "[PES]", "What each PE does: running, frozen, at a breakpoint",
       "Asks each PE (debug/converse/status); breakpoint and abort details come from the program's output "
       "(programs mpidbg started).",
       doCharmStatus, false, {.ranks = RankArg::Optional, .own = true}},
      {"wait", {}, "[SECONDS]", "Wait for a breakpoint hit, or until every PE is frozen",
       "Returns at a breakpoint hit, an abort, when every PE is frozen or the program ended, or after SECONDS.",
       doCharmWait, false, {.own = true}},
      {"lists", {}, "[PES]", "The CpdLists the PEs serve, with their lengths",
       "charm/arrayElements, charm/chares, charm/entries, converse/localqueue, ...", doCharmLists, false, {.ranks = RankArg::Optional, .own = true}},
      {"print", {"p"}, "[PES] LIST[[I]|[A:B]][.FIELD]", "Print list items, merged across PEs",
       "Items decoded from Charm++'s PUP .fmt form; an array element's memory (Charm++ sends the bytes) is "
       "decoded into its members by the program's DWARF. Values equal on every PE print once, others with "
       "their PEs. Examples: print converse/localqueue, print charm/arrayElements, "
       "print 0 charm/arrayElements[1].fields.hits",
       doCharmPrint, false, {.ranks = RankArg::Optional, .own = true}},
      {"detach", {}, "", "Leave an attached program running",
       "Removes the breakpoints, continues every PE and detaches gdb.", doCharmDetach, false, {.own = true}},
      {"kill", {}, "", "End the program", "Detaches gdb and ends charmrun and every PE process.", doCharmKill, false, {.own = true}},
  });
  return table;
}

bool charmOnlyMpi(std::string_view name) {
  static const std::vector<std::string_view> mpi = {"hang", "queues", "collectives", "disable", "enable",
                                                    "record", "replay", "threadlevel", "check"};
  return std::find(mpi.begin(), mpi.end(), name) != mpi.end();
}

CommandResult charmHelpList() {
  std::vector<const Command*> commands;
  for (const auto& cmd : charmCommandTable()) commands.push_back(&cmd);
  std::string text = "Commands on a Charm++ program (PEs stand for ranks; help COMMAND for details):\n";
  for (const Command* cmd : commands) text += commandListLine(cmd->syntax, cmd->summary);
  // The MPI table's commands that act on the PE processes as on ranks; where
  // their summary says what differs here, this one.
  const std::pair<const char*, const char*> shared[] = {
      {"where", "Merged stack tree of the PE processes (through gdb)"},
      {"gdb", nullptr},
      {"-mi", nullptr},
      {"ranks", "List the PE processes: host, pid, life"},
      {"help", nullptr},
      {"quit", "Leave the debugger (killing a program it started)"}};
  for (const auto& [name, summary] : shared)
    if (const Command* cmd = findCommand(name)) {
      commands.push_back(cmd);
      text += commandListLine(cmd->syntax, summary != nullptr ? summary : cmd->summary);
    }
  text += "\nPES: 3, [0-3,7], all (PE numbers); named sets and focus as for ranks.\n";
  return commandListResult(std::move(text), commands);
}

}  // namespace mpidbg::cli
