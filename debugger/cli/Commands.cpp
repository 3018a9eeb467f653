// `help`, and the dispatch of a line: names, aliases and unique prefixes, the
// Charm++ table first for a Charm++ program, "did you mean" for unknown
// names, the arguments parsed against the command's ArgSpec. The table is in
// CommandTable.cpp, the commands' bodies in the *Commands.cpp files it names.
#include "debugger/cli/Commands.hpp"

#include <algorithm>
#include <cctype>

#include "debugger/cli/CharmCommands.hpp"
#include "debugger/core/RankExpr.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

std::string commandListLine(std::string_view syntax, std::string_view summary) {
  std::string line = "  " + std::string(syntax);
  if (line.size() < 28) line.resize(28, ' ');
  else line += "  ";
  return line + std::string(summary) + "\n";
}

std::string commandListText() {
  std::string text = "Commands (help COMMAND for details):\n";
  for (const auto& cmd : commandTable()) text += commandListLine(cmd.syntax, cmd.summary);
  text +=
      "\nRANKS: all, 3, 0-3,7 or [0-3,7]; names (set S = ...), $equiv[N], live states\n"
      "(blocked, frozen, running, exited, held, in MPI_Recv, at entry NAME) and algebra\n"
      "(S | T, S & T, S - T, ~S, parentheses). Ranks start frozen at the end of MPI_Init;\n"
      "'run' lets them go.\n";
  return text;
}

std::vector<Command> withSyntax(std::vector<Command> table) {
  for (auto& cmd : table) cmd.syntax = composeSyntax(cmd.name, cmd.args, cmd.operands);
  return table;
}

CommandResult commandHelp(const Command& cmd) {
  CommandResult result;
  result.text = "Usage: " + cmd.syntax + "\n" + cmd.summary + "\n\n" + cmd.help + "\n";
  if (!cmd.args.options.empty()) result.text += "Options:\n" + optionsHelp(cmd.args);
  auto optionsJson = [](const ArgSpec& spec) {
    nlohmann::json options = nlohmann::json::array();
    for (const auto& o : spec.options)
      options.push_back({{"name", o.name}, {"value", optionValueName(o.value)}, {"value_name", o.valueName}, {"help", o.help}});
    return options;
  };
  nlohmann::json options = optionsJson(cmd.args);
  result.data = {{"name", cmd.name},
                 {"aliases", cmd.aliases},
                 {"syntax", cmd.syntax},
                 {"summary", cmd.summary},
                 {"help", cmd.help},
                 {"options", std::move(options)},
                 {"ranks", rankArgName(cmd.args.ranks)},
                 {"needs_job", cmd.args.needsJob}};
  if (!cmd.args.subcommands.empty()) {
    result.text += "Subcommands:\n";
    nlohmann::json subs = nlohmann::json::array();
    for (const auto& sub : cmd.args.subcommands) {
      std::string line = "  " + subcommandSyntax(cmd.name, sub);
      line.resize(std::max<std::size_t>(line.size() + 2, 32), ' ');
      result.text += line + sub.summary + "\n";
      result.text += optionsHelp(sub.args, "    ");
      subs.push_back({{"name", sub.name},
                      {"aliases", sub.aliases},
                      {"summary", sub.summary},
                      {"options", optionsJson(sub.args)},
                      {"ranks", rankArgName(sub.args.ranks)},
                      {"needs_job", sub.args.needsJob}});
    }
    result.data["subcommands"] = std::move(subs);
  }
  if (!cmd.aliases.empty()) {
    result.text += "Aliases:";
    for (const auto& a : cmd.aliases) result.text += " " + a;
    result.text += "\n";
  }
  return result;
}

CommandResult commandListResult(std::string text, const std::vector<const Command*>& commands) {
  CommandResult result;
  result.text = std::move(text);
  result.data = {{"commands", nlohmann::json::array()}};
  for (const Command* cmd : commands)
    result.data["commands"].push_back(
        {{"name", cmd->name}, {"aliases", cmd->aliases}, {"syntax", cmd->syntax}, {"summary", cmd->summary}});
  return result;
}

CommandResult doHelp(Context&, const CommandArgs& parsed) {
  const std::string_view args = parsed.rest;
  if (!args.empty()) {
    const Command* cmd = findCommand(args);
    if (cmd == nullptr) return CommandResult::failure("no command '" + std::string(args) + "'; try 'help'");
    return commandHelp(*cmd);
  }
  std::vector<const Command*> all;
  for (const auto& cmd : commandTable()) all.push_back(&cmd);
  return commandListResult(commandListText(), all);
}

namespace {

/// The names and aliases that start with `prefix`, each with its command,
/// in table order.
std::vector<std::pair<std::string, const Command*>> prefixMatches(std::string_view prefix) {
  std::vector<std::pair<std::string, const Command*>> out;
  for (const auto& cmd : commandTable()) {
    if (cmd.name.starts_with(prefix)) out.emplace_back(cmd.name, &cmd);
    for (const auto& alias : cmd.aliases)
      if (alias.starts_with(prefix)) out.emplace_back(alias, &cmd);
  }
  return out;
}

/// Parses `args` against `cmd`'s ArgSpec, checks for the job it needs (a
/// malformed rank set first), and runs it.
CommandResult run(Context& context, const Command& cmd, std::string_view args) {
  auto parsed = parseCommandArgs(cmd.name, cmd.args, args);
  if (!parsed) return CommandResult::failure(parsed.error().message);
  const ArgSpec& spec = parsedSpec(cmd.args, *parsed);
  if (spec.needsJob && !spec.own && !context.debugger.session().hasJob()) {
    if (!parsed->ranks.empty())
      if (auto expr = core::RankExpr::parse(parsed->ranks); !expr) return CommandResult::failure(expr.error().message);
    return CommandResult::failure(std::string(kNoJob));
  }
  return cmd.execute(context, *parsed);
}

}  // namespace

// An exact name or alias first; else, like gdb, a prefix that only names and
// aliases of one command start with ("sta" -> status, "cont" -> run).
const Command* findCommand(std::string_view name) {
  if (name.empty()) return nullptr;
  for (const auto& cmd : commandTable()) {
    if (cmd.name == name) return &cmd;
    for (const auto& alias : cmd.aliases)
      if (alias == name) return &cmd;
  }
  const Command* found = nullptr;
  for (const auto& [word, cmd] : prefixMatches(name)) {
    if (found != nullptr && found != cmd) return nullptr;  // ambiguous
    found = cmd;
  }
  return found;
}

CommandResult executeLine(Context& context, std::string_view line) {
  line = trim(line);
  if (line.empty() || line.front() == '#') return {};
  const auto space = line.find_first_of(" \t");
  const std::string_view name = line.substr(0, space);
  const std::string_view args = space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
  const Command* cmd = findCommand(name);
  if (context.charm != nullptr) {
    // A Charm++ program: its own commands first (by name or alias, or the
    // command a prefix names), then the MPI table's commands that apply.
    const Command* charmCmd = nullptr;
    for (const auto& c : charmCommandTable())
      if (c.name == name || std::find(c.aliases.begin(), c.aliases.end(), name) != c.aliases.end() ||
          (cmd != nullptr && c.name == cmd->name))
        charmCmd = &c;
    if (charmCmd != nullptr) return run(context, *charmCmd, args);
    if (cmd != nullptr && charmOnlyMpi(cmd->name))
      return CommandResult::failure("'" + cmd->name + "' is for MPI jobs: a Charm++ program has no MPI state to "
                                    "show ('help' lists what works on a Charm++ program)");
    if (cmd != nullptr && cmd->name == "help") {
      const std::string_view topic = trim(args);
      if (topic.empty()) return charmHelpList();
      for (const auto& c : charmCommandTable())
        if (c.name == topic || std::find(c.aliases.begin(), c.aliases.end(), topic) != c.aliases.end())
          return commandHelp(c);
    }
  }
  if (cmd == nullptr) {
    if (const auto matches = prefixMatches(name); matches.size() > 1) {
      std::string list;
      for (const auto& [word, c] : matches) list += (list.empty() ? "" : ", ") + word;
      return CommandResult::failure("ambiguous command '" + std::string(name) + "': " + list);
    }
    std::string suggestion;
    for (const auto& c : commandTable())
      if (editDistance(name, c.name) <= 2 || c.name.starts_with(name))
        suggestion += (suggestion.empty() ? "" : ", ") + c.name;
    return CommandResult::failure("unknown command '" + std::string(name) + "'" +
                                  (suggestion.empty() ? "; try 'help'" : "; did you mean: " + suggestion + "?"));
  }
  return run(context, *cmd, args);
}

}  // namespace mpidbg::cli
