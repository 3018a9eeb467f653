#include "debugger/cli/SetCommands.hpp"

#include <cctype>

#include "debugger/cli/JsonOutput.hpp"
#include "debugger/core/RankExpr.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

namespace {

CommandResult text(std::string out, nlohmann::json data) {
  CommandResult result;
  result.text = std::move(out);
  result.data = std::move(data);
  return result;
}

/// `focus` and `unfocus` results: {"focus":{"ranks","rank_list"}} or {"focus":null}.
nlohmann::json focusJson(const SessionState& session) {
  return {{"focus", session.focus ? rankSetJson(*session.focus) : nlohmann::json(nullptr)}};
}

/// `set` alone: {"sets":[{"name","ranks","rank_list"}]} by name.
nlohmann::json namedSetsJson(const SessionState& session) {
  nlohmann::json sets = nlohmann::json::array();
  for (const auto& [name, set] : session.namedSets) sets.push_back(withRanks({{"name", name}}, set));
  return {{"sets", std::move(sets)}};
}

std::string listNamedSets(const SessionState& session) {
  if (session.namedSets.empty()) return "No named rank sets (define one with: set NAME = EXPR).\n";
  std::string out;
  for (const auto& [name, set] : session.namedSets) out += name + " = " + set.toString() + "\n";
  return out;
}

/// Why `name` cannot name a set, for the error message.
std::string badName(std::string_view name) {
  if (core::RankExpr::isKeyword(name))
    return "'" + std::string(name) + "' is a reserved word in rank sets (all, focus, blocked, frozen, running, "
           "exited, held, in, at, where, entry); pick another name";
  if (name.starts_with("MPI_")) return "'" + std::string(name) + "' looks like an MPI function; pick another name";
  return "'" + std::string(name) + "' is not a name: use letters, digits and '_', not starting with a digit";
}

}  // namespace

CommandResult doSet(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  args = trim(args);
  if (parsed.subcommand == "pagination") {
    const std::string_view value = args;  // empty: on, as in gdb
    if (!value.empty() && value != "on" && value != "off")
      return CommandResult::failure("usage: set pagination on|off (long output through $PAGER at the prompt)");
    const bool on = value != "off";
    ctx.console.setPagination(on);
    return text(std::string("Pagination is ") + (on ? "on" : "off") + ".\n", {{"pagination", on}});
  }
  if (args.empty()) return text(listNamedSets(ctx.session), namedSetsJson(ctx.session));
  const auto eq = args.find('=');
  if (eq == std::string_view::npos)
    return CommandResult::failure(
        "usage: set NAME = EXPR (e.g. set S = [0-3] | blocked), or set pagination on|off; 'set' lists the named sets");
  const std::string_view name = trim(args.substr(0, eq));
  const std::string_view expr = trim(args.substr(eq + 1));
  if (!core::RankExpr::isValidName(name)) return CommandResult::failure(badName(name));
  if (expr.empty()) return CommandResult::failure("usage: set NAME = EXPR: no rank set after '='");
  if (auto parsed = core::RankExpr::parse(expr); !parsed) return CommandResult::failure(parsed.error().message);
  if (!ctx.debugger.session().hasJob()) return CommandResult::failure(std::string(kNoJob));
  auto value = ctx.debugger.ranks(expr, ctx.session.names(), ctx.settings.blockedAfter);
  if (!value) return CommandResult::failure(value.error().message);
  ctx.session.namedSets[std::string(name)] = *value;
  return text(std::string(name) + " = " + value->toString() + (value->empty() ? " (empty)" : "") + "\n",
              withRanks({{"name", name}}, *value));
}

CommandResult doUnset(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  const std::string name(trim(args));
  if (name.empty()) return CommandResult::failure("usage: unset NAME ('set' lists the named rank sets)");
  if (ctx.session.namedSets.erase(name) == 0)
    return CommandResult::failure("no rank set named '" + name + "' ('set' lists them)");
  return text("Forgot " + name + ".\n", {{"name", name}});
}

CommandResult doFocus(Context& ctx, const CommandArgs& parsed) {
  std::string_view args = parsed.rest;
  args = trim(args);
  if (args.empty()) {
    if (!ctx.session.focus) return text("No focus: commands without RANKS act on every rank.\n", focusJson(ctx.session));
    return text("Focus: " + ctx.session.focus->toString() + " (commands without RANKS act on these; 'unfocus' clears it)\n",
                focusJson(ctx.session));
  }
  if (auto parsed = core::RankExpr::parse(args); !parsed) return CommandResult::failure(parsed.error().message);
  if (!ctx.debugger.session().hasJob()) return CommandResult::failure(std::string(kNoJob));
  auto value = ctx.debugger.ranks(args, ctx.session.names(), ctx.settings.blockedAfter);
  if (!value) return CommandResult::failure(value.error().message);
  if (value->empty())
    return CommandResult::failure("the set is empty: '" + std::string(args) + "' names no rank; the focus is unchanged");
  if (*value == core::RankSet::all(ctx.debugger.session().job().size())) return doUnfocus(ctx, {});
  ctx.session.focus = *value;
  return text("Focus: " + value->toString() + " (commands without RANKS act on these; 'unfocus' clears it)\n",
              focusJson(ctx.session));
}

CommandResult doUnfocus(Context& ctx, const CommandArgs&) {
  ctx.session.focus.reset();
  return text("No focus: commands without RANKS act on every rank.\n", focusJson(ctx.session));
}

Expected<core::RankSet> commandRanks(Context& ctx, std::string_view text) {
  text = trim(text);
  // The syntax first: a malformed set is reported as such, job or not.
  if (!text.empty())
    if (auto expr = core::RankExpr::parse(text); !expr) return std::unexpected(expr.error());
  if (!ctx.debugger.session().hasJob()) return fail(std::string(kNoJob));
  if (text.empty()) {
    if (ctx.session.focus) return *ctx.session.focus;
    return ctx.debugger.ranks("all");
  }
  auto ranks = ctx.debugger.ranks(text, ctx.session.names(), ctx.settings.blockedAfter);
  if (ranks && ranks->empty()) return fail("the set is empty: '" + std::string(text) + "' names no rank right now");
  return ranks;
}

bool looksLikeRanks(const Context& ctx, std::string_view token) {
  if (token.empty()) return false;
  const char c = token.front();
  if (std::isdigit(static_cast<unsigned char>(c)) || c == '[' || c == '(' || c == '~' || c == '$') return true;
  std::size_t end = 0;
  while (end < token.size() && (std::isalnum(static_cast<unsigned char>(token[end])) || token[end] == '_')) ++end;
  const std::string_view word = token.substr(0, end);
  if (word == "entry") return false;  // break entry NAME
  return core::RankExpr::isKeyword(word) || ctx.session.namedSets.count(std::string(word)) != 0;
}

std::string promptFor(const SessionState& session) {
  if (!session.focus) return "(mpidbg)";
  return "(mpidbg " + session.focus->toString() + ")";
}

}  // namespace mpidbg::cli
