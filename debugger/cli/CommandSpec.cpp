// The one parser of command arguments (CommandSpec.hpp) and the texts derived
// from a command's declared arguments: its syntax line and option help.
#include "debugger/cli/CommandSpec.hpp"

#include <algorithm>
#include <cctype>

#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

bool CommandArgs::flag(std::string_view name) const {
  return std::find(flags.begin(), flags.end(), name) != flags.end();
}

std::string_view optionValueName(OptionValue value) {
  switch (value) {
    case OptionValue::Flag: return "flag";
    case OptionValue::Integer: return "integer";
    case OptionValue::Number: return "number";
    case OptionValue::Text: return "text";
    case OptionValue::File: return "file";
  }
  return "flag";
}

std::string_view rankArgName(RankArg ranks) {
  switch (ranks) {
    case RankArg::None: return "none";
    case RankArg::Optional: return "optional";
    case RankArg::Required: return "required";
  }
  return "none";
}

std::string optionSpelling(const OptionSpec& option) {
  return option.value == OptionValue::Flag ? option.name : option.name + " " + option.valueName;
}

std::string subcommandSyntax(std::string_view command, const SubcommandSpec& sub) {
  const std::string_view ranks = sub.args.ranks == RankArg::Optional   ? "[RANKS]"
                                 : sub.args.ranks == RankArg::Required ? "RANKS"
                                                                       : "";
  return composeSyntax(std::string(command) + " " + sub.name, sub.args, sub.operands.empty() ? ranks : sub.operands);
}

std::string composeSyntax(std::string_view name, const ArgSpec& spec, std::string_view operands) {
  if (!spec.subcommands.empty()) {
    // The own form first (ArgSpec::subcommandOptional), then each subcommand.
    std::string syntax;
    if (spec.subcommandOptional) {
      ArgSpec own = spec;
      own.subcommands.clear();
      syntax = composeSyntax(name, own, operands);
    }
    for (const auto& sub : spec.subcommands) syntax += (syntax.empty() ? "" : " | ") + subcommandSyntax(name, sub);
    return syntax;
  }
  std::string syntax(name);
  for (const auto& option : spec.options) syntax += " [" + optionSpelling(option) + "]";
  if (!operands.empty()) syntax += " " + std::string(operands);
  return syntax;
}

std::string optionsHelp(const ArgSpec& spec, std::string_view indent) {
  std::size_t width = 0;
  for (const auto& option : spec.options) width = std::max(width, optionSpelling(option).size());
  std::string text;
  for (const auto& option : spec.options) {
    std::string spelling = optionSpelling(option);
    spelling.resize(width, ' ');
    text += std::string(indent) + spelling + "  " + option.help + "\n";
  }
  return text;
}

// The rank-set expression ends at the first blank outside (), [] and "":
// "[0-3, 7] bt", "(blocked - frozen) bt", "~(S | 3) bt", "S|T bt". An
// unclosed '(' or '[' takes the whole line (the parser reports it).
std::pair<std::string, std::string> splitRankToken(std::string_view args) {
  args = trim(args);
  std::size_t end = 0;
  int depth = 0;
  bool quoted = false;
  for (; end < args.size(); ++end) {
    const char c = args[end];
    if (quoted) {
      quoted = c != '"';
    } else if (c == '"') {
      quoted = true;
    } else if (c == '(' || c == '[') {
      ++depth;
    } else if ((c == ')' || c == ']') && depth > 0) {
      --depth;
    } else if (depth == 0 && std::isspace(static_cast<unsigned char>(c))) {
      break;
    }
  }
  return {std::string(args.substr(0, end)), std::string(trim(args.substr(end)))};
}

namespace {

/// "--a --b FILE": every option's spelling, for error messages.
std::string optionList(const ArgSpec& spec) {
  std::string list;
  for (const auto& option : spec.options) list += (list.empty() ? "" : " ") + optionSpelling(option);
  return list;
}

/// The error for the unknown option `word`: the closest known one when it is
/// close (at most two edits or a third of its letters, or one a prefix of the
/// other), then the whole list.
Error unknownOption(std::string_view command, const ArgSpec& spec, std::string_view word) {
  if (spec.options.empty())
    return Error{std::string(command) + " takes no options (got '" + std::string(word) + "')"};
  const OptionSpec* best = nullptr;
  std::size_t bestDistance = 0;
  for (const auto& option : spec.options) {
    // Close by edit distance, or one a prefix of the other (--nowhere, --mem).
    const std::size_t d = editDistance(word, option.name);
    const bool close = d <= std::max<std::size_t>(2, option.name.size() / 3) || word.starts_with(option.name) ||
                       std::string_view(option.name).starts_with(word);
    if (close && (best == nullptr || d < bestDistance)) best = &option, bestDistance = d;
  }
  std::string message = std::string(command) + " does not know option '" + std::string(word) + "'";
  if (best != nullptr) message += "; did you mean " + best->name + "?";
  return Error{message + " (options: " + optionList(spec) + ")"};
}

/// What an option of `value`'s kind needs, for "--X needs ...": "a file name".
std::string_view valueKind(OptionValue value) {
  switch (value) {
    case OptionValue::Integer: return "a whole number";
    case OptionValue::Number: return "a number";
    case OptionValue::File: return "a file name";
    default: return "a value";
  }
}

/// Checks `text` as the value of `option`: empty when it fits, else the error.
std::string checkValue(const OptionSpec& option, std::string_view text) {
  auto whole = [&](auto out) {
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && ptr == text.data() + text.size();
  };
  if (option.value == OptionValue::Integer && !whole(0LL))
    return option.name + " takes a whole number (got '" + std::string(text) + "')";
  if (option.value == OptionValue::Number && !whole(0.0))
    return option.name + " takes a number (got '" + std::string(text) + "')";
  return {};
}

}  // namespace

const ArgSpec& parsedSpec(const ArgSpec& spec, const CommandArgs& parsed) {
  for (const auto& sub : spec.subcommands)
    if (sub.name == parsed.subcommand) return sub.args;
  return spec;
}

namespace {

/// `line` against the options, rank set and own grammar of `spec` (its subcommands aside).
Expected<CommandArgs> parseWords(std::string_view command, const ArgSpec& spec, std::string_view line);

/// True when `word` is `sub`'s name or one of its aliases.
bool names(const SubcommandSpec& sub, std::string_view word) {
  return sub.name == word || std::find(sub.aliases.begin(), sub.aliases.end(), word) != sub.aliases.end();
}

/// Reads the subcommand `line` starts with, then its arguments; with
/// ArgSpec::subcommandOptional, a line whose first word names none is the
/// command's own form.
Expected<CommandArgs> parseSubcommand(std::string_view command, const ArgSpec& spec, std::string_view line) {
  const auto [word, rest] = splitRankToken(line);
  const auto found = std::find_if(spec.subcommands.begin(), spec.subcommands.end(),
                                  [&](const SubcommandSpec& sub) { return names(sub, word); });
  if (found == spec.subcommands.end() && spec.subcommandOptional) {
    auto args = parseWords(command, spec, line);
    if (!args || !spec.own) return args;
    // Options before a subcommand's name ("gdb --keep attach 0") are the own form's: refused.
    const std::string first = splitRankToken(args->rest).first;
    for (const auto& sub : spec.subcommands)
      if (names(sub, first))
        return fail(std::string(command) + " " + sub.name + " takes no options before its name (usage: " +
                    subcommandSyntax(command, sub) + ")");
    return args;
  }
  const std::string usage = " (usage: " + composeSyntax(command, spec, "") + ")";
  if (word.empty()) return fail(std::string(command) + " needs a subcommand" + usage);
  if (found == spec.subcommands.end()) {
    const SubcommandSpec* closest = nullptr;
    std::size_t closestDistance = 0;
    for (const auto& sub : spec.subcommands) {
      const std::size_t d = editDistance(word, sub.name);
      if (d <= std::max<std::size_t>(2, sub.name.size() / 3) && (closest == nullptr || d < closestDistance))
        closest = &sub, closestDistance = d;
    }
    return fail(std::string(command) + " does not know '" + word + "'" +
                (closest != nullptr ? "; did you mean " + closest->name + "?" : std::string()) + usage);
  }
  auto args = parseCommandArgs(std::string(command) + " " + found->name, found->args, rest);
  if (args) args->subcommand = found->name;
  return args;
}

}  // namespace

Expected<CommandArgs> parseCommandArgs(std::string_view command, const ArgSpec& spec, std::string_view line) {
  if (!spec.subcommands.empty()) return parseSubcommand(command, spec, line);
  return parseWords(command, spec, line);
}

namespace {

Expected<CommandArgs> parseWords(std::string_view command, const ArgSpec& spec, std::string_view line) {
  CommandArgs args;
  std::string_view rest = trim(line);
  std::vector<std::string> words;
  while (!rest.empty()) {
    // One word: an option, its value, or a token of the operands (splitRankToken's rule).
    const std::string_view word = rest.substr(0, splitRankToken(rest).first.size());
    if (!word.starts_with("--") || word == "--") {
      if (spec.own) break;  // the command's own grammar from here on
      words.emplace_back(word);
      rest = trim(rest.substr(word.size()));
      continue;
    }
    rest = trim(rest.substr(word.size()));
    const auto option = std::find_if(spec.options.begin(), spec.options.end(),
                                     [&](const OptionSpec& o) { return o.name == word; });
    if (option == spec.options.end()) return std::unexpected(unknownOption(command, spec, word));
    if (option->value == OptionValue::Flag) {
      if (!args.flag(word)) args.flags.emplace_back(word);
      continue;
    }
    const std::string_view value = rest.substr(0, rest.find_first_of(" \t"));
    if (value.empty() || value.starts_with("--"))
      return fail(option->name + " needs " + std::string(valueKind(option->value)) + " (" + std::string(command) + " " +
                  optionSpelling(*option) + ")");
    if (std::string error = checkValue(*option, value); !error.empty()) return fail(std::move(error));
    args.values[option->name] = std::string(value);
    rest = trim(rest.substr(value.size()));
  }
  if (spec.own) {
    args.rest = std::string(rest);
    return args;
  }
  if (!words.empty() && spec.ranks == RankArg::None) {
    if (spec.options.empty()) return fail(std::string(command) + " takes no arguments");
    return fail(std::string(command) + " takes only its options (got '" + words.front() +
                "'; options: " + optionList(spec) + ")");
  }
  for (const auto& word : words) args.ranks += (args.ranks.empty() ? "" : " ") + word;
  if (args.ranks.empty() && spec.ranks == RankArg::Required)
    return fail(std::string(command) + " needs a rank set (e.g. " + std::string(command) + " 0-3)");
  return args;
}

}  // namespace

}  // namespace mpidbg::cli
