// The gdb commands (GdbCommands.hpp): `gdb` (console commands, attach,
// detach) and `-mi` on ranks, outputs grouped across ranks; which commands
// only look (isLookCommand, isLookMiCommand: Commands.hpp).
#include "debugger/cli/GdbCommands.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <string>

#include "debugger/cli/CommandsDetail.hpp"
#include "debugger/cli/JsonOutput.hpp"
#include "debugger/cli/SetCommands.hpp"
#include "debugger/core/Grouping.hpp"
#include "debugger/gdbmi/Record.hpp"
#include "debugger/gdbmi/Reply.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

using detail::ranksOrAll;

namespace {

/// True when `args` starts with the word `word` (followed by a blank or the end).
bool startsWithWord(std::string_view args, std::string_view word) {
  return args.starts_with(word) &&
         (args.size() == word.size() || std::isspace(static_cast<unsigned char>(args[word.size()])));
}

/// The progress callback of gdb commands: "attaching gdb: 12/64", rewritten
/// in place on a terminal (Console::progress shows nothing otherwise).
std::function<void(int, int)> gdbProgress(Context& ctx, std::string_view what) {
  return [&ctx, what](int done, int total) {
    if (total > 1) ctx.console.progress(std::string(what) + ": " + std::to_string(done) + "/" + std::to_string(total));
  };
}

/// Renders per-rank texts grouped with value ranges, then per-rank errors
/// under "errors:". Fails (the errors as the message) when no rank succeeded.
CommandResult renderPerRank(const std::map<int, std::string>& texts, const std::map<int, std::string>& errors) {
  CommandResult result;
  result.text = core::renderGroups(core::groupByValues(texts));
  result.data = {{"outputs", groupsJson(texts, "text")}, {"errors", groupsJson(errors, "error")}};
  if (!errors.empty()) {
    std::string msg;
    for (const auto& g : core::groupByText(errors))
      msg += (msg.empty() ? "" : "\n") + g.ranks.toString() + " " + g.text;
    if (texts.empty()) {
      CommandResult failed = CommandResult::failure(msg);
      failed.data = std::move(result.data);
      return failed;
    }
    result.text += "errors:\n" + msg + "\n";
  }
  return result;
}

/// `gdb attach [RANKS]`: a session on each rank, no command.
CommandResult gdbAttach(Context& ctx, std::string_view rankText) {
  auto ranks = ranksOrAll(ctx, rankText);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  const auto outcomes = ctx.debugger.session().gdb().attach(*ranks, gdbProgress(ctx, "attaching gdb"));
  ctx.console.endProgress();
  std::map<int, std::string> texts, errors;
  for (const auto& [rank, r] : outcomes) {
    if (r) texts[rank] = *r ? "attached" : "already attached";
    else errors[rank] = r.error().message;
  }
  CommandResult result = renderPerRank(texts, errors);
  result.data["action"] = "attach";
  return result;
}

/// `gdb detach [RANKS]`.
CommandResult gdbDetach(Context& ctx, std::string_view rankText) {
  auto ranks = ranksOrAll(ctx, rankText);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  std::map<int, std::string> outcome, detached, failed;
  for (auto& [rank, r] : ctx.debugger.session().gdb().detach(*ranks)) {
    outcome[rank] = r ? "detached" : "detach failed: " + r.error().message;
    if (r) detached[rank] = "detached";
    else failed[rank] = r.error().message;
  }
  if (outcome.empty()) return CommandResult::failure("gdb holds none of " + core::describeRanks(*ranks));
  CommandResult result;
  result.text = core::renderGroups(core::groupByText(outcome));
  result.data = {{"action", "detach"}, {"outputs", groupsJson(detached, "text")}, {"errors", groupsJson(failed, "error")}};
  return result;
}

/// The gdb console command for what the user typed after `gdb RANKS`: a
/// backtrace (`bt`, `backtrace`, `where`) with the word `--raw` gets gdb's
/// `-no-filters` instead, showing the runtime's frames the session's frame
/// filter folds (core/GdbFrameScript.hpp). Anything else passes unchanged.
std::string gdbConsoleCommand(std::string_view typed) {
  typed = trim(typed);
  const bool backtrace =
      startsWithWord(typed, "bt") || startsWithWord(typed, "backtrace") || startsWithWord(typed, "where");
  std::string out;
  std::size_t at = 0;
  while (at < typed.size()) {
    const std::size_t space = typed.find(' ', at);
    const std::string_view word = typed.substr(at, space == std::string_view::npos ? typed.npos : space - at);
    if (!out.empty()) out += ' ';
    out += backtrace && word == "--raw" ? std::string_view("-no-filters") : word;
    if (space == std::string_view::npos) break;
    at = typed.find_first_not_of(' ', space);
  }
  return out;
}

/// After a look command: the ranks of `ranks` that gdb did not hold before
/// (`before`) are let go again.
void releaseAfterLook(Context& ctx, const core::RankSet& ranks, const core::RankSet& before) {
  ctx.debugger.session().gdb().release(ranks - before);
}

}  // namespace

CommandResult doGdb(Context& ctx, const CommandArgs& parsed) {
  if (parsed.subcommand == "attach") return gdbAttach(ctx, parsed.ranks);
  if (parsed.subcommand == "detach") return gdbDetach(ctx, parsed.ranks);
  const std::string_view args = parsed.rest;
  const bool keep = parsed.flag("--keep");
  if (args.empty())
    return CommandResult::failure(
        "usage: gdb [--keep] RANKS COMMAND (e.g. 'gdb 2 bt'), gdb attach RANKS, or gdb detach RANKS");
  auto [rankText, command] = splitRankToken(args);
  if (trim(command).empty())
    return CommandResult::failure("usage: gdb RANKS COMMAND: no gdb command given after '" + rankText + "'");
  auto ranks = commandRanks(ctx, rankText);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  const core::RankSet before = ctx.debugger.session().gdb().attached();
  const auto outputs =
      ctx.debugger.session().gdb().run(*ranks, gdbConsoleCommand(command), gdbProgress(ctx, "attaching gdb"));
  ctx.console.endProgress();
  if (!keep && isLookCommand(command)) releaseAfterLook(ctx, *ranks, before);
  std::map<int, std::string> texts, errors;
  for (const auto& [rank, out] : outputs) {
    if (out) texts[rank] = *out;
    else errors[rank] = out.error().message;
  }
  CommandResult result = renderPerRank(texts, errors);
  result.data["action"] = "command";
  result.data["command"] = std::string(trim(command));
  result.data["held"] = rankSetJson(ctx.debugger.session().gdb().attached() & *ranks);
  return result;
}

/// `-mi RANKS COMMAND`: one raw MI command; each rank's result record,
/// grouped with value ranges.
CommandResult doMi(Context& ctx, const CommandArgs& line) {
  const std::string_view args = line.rest;
  const bool keep = line.flag("--keep");
  auto [rankText, command] = splitRankToken(args);
  if (rankText.empty())
    return CommandResult::failure("usage: -mi RANKS COMMAND (e.g. '-mi 0-3 -stack-info-depth')");
  if (command.empty())
    return CommandResult::failure("usage: -mi RANKS COMMAND: no MI command given after '" + rankText + "'");
  if (std::isdigit(static_cast<unsigned char>(command.front())))
    return CommandResult::failure("give the MI command without a token ('" + command +
                                  "'): mpidbg adds its own");
  auto ranks = commandRanks(ctx, rankText);
  if (!ranks) return CommandResult::failure(ranks.error().message);
  const core::RankSet before = ctx.debugger.session().gdb().attached();
  const auto replies = ctx.debugger.session().gdb().mi(*ranks, command, gdbProgress(ctx, "attaching gdb"));
  ctx.console.endProgress();
  if (!keep && isLookMiCommand(command)) releaseAfterLook(ctx, *ranks, before);
  std::map<int, std::string> texts, errors;
  std::map<int, nlohmann::json> parsed;  // by rank: {"class","results"}
  for (const auto& [rank, reply] : replies) {
    if (!reply) {
      errors[rank] = reply.error().message;
      continue;
    }
    gdbmi::Record record;
    record.kind = gdbmi::RecordKind::Result;
    record.recordClass = reply->resultClass;
    record.results = reply->results;
    texts[rank] = record.toMi();
    parsed[rank] = {{"class", reply->resultClass}, {"results", miValueJson(gdbmi::Value{reply->results})}};
  }
  CommandResult result = renderPerRank(texts, errors);
  result.data["command"] = command;
  // Ranks grouped by identical record share one parse: the group's first rank's.
  for (auto& group : result.data["outputs"]) group.update(parsed.at(group["rank_list"][0].get<int>()));
  return result;
}

bool isLookCommand(std::string_view command) {
  command = trim(command);
  const std::string_view word = command.substr(0, command.find_first_of(" /"));
  static constexpr std::string_view kLooks[] = {
      "bt", "backtrace", "where", "print", "p", "output", "printf", "echo", "x", "info", "i",
      "list", "l", "ptype", "whatis", "disassemble", "show", "call", "inspect"};
  if (std::find(std::begin(kLooks), std::end(kLooks), word) != std::end(kLooks)) return true;
  // `thread apply LIST [FLAGS] CMD` looks when CMD does; `thread N` selects.
  if (startsWithWord(command, "thread") && startsWithWord(trim(command.substr(6)), "apply")) {
    std::string_view rest = trim(trim(command.substr(6)).substr(5));
    auto listOrFlag = [](std::string_view w) {
      return w == "all" || w.starts_with('-') ||
             (!w.empty() && w.find_first_not_of("0123456789-.") == std::string_view::npos);
    };
    while (!rest.empty() && listOrFlag(rest.substr(0, rest.find(' '))))
      rest = rest.find(' ') == std::string_view::npos ? std::string_view{} : trim(rest.substr(rest.find(' ')));
    return !rest.empty() && isLookCommand(rest);
  }
  return false;
}

bool isLookMiCommand(std::string_view command) {
  if (command.starts_with("-stack-select-frame") || command.starts_with("-thread-select")) return false;
  static constexpr std::string_view kLooks[] = {"-data-", "-stack-", "-symbol-", "-thread-info",
                                                "-list-", "-file-", "-info-"};
  return std::any_of(std::begin(kLooks), std::end(kLooks),
                     [&](std::string_view prefix) { return command.starts_with(prefix); });
}

}  // namespace mpidbg::cli
