#pragma once

// What a command takes, declared once (its options with their help and value
// types, its rank set, whether it needs a job), and the one parser that turns
// the rest of a command line into CommandArgs. The same declaration feeds
// `help COMMAND`, completion (Completion.cpp), the command reference
// (docgen.cpp) and the syntax line.

#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <system_error>
#include <type_traits>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::cli {

/// The value an option takes: none (a flag), or one word after it.
enum class OptionValue {
  Flag,     ///< no value: `--json`
  Integer,  ///< a whole decimal number, may be negative: `--depth 3`
  Number,   ///< a decimal number, fractions allowed: `--timeout 2.5`
  Text,     ///< any word
  File,     ///< a path (completion offers the file system's)
};

/// One `--option` of a command.
struct OptionSpec {
  std::string name;                        ///< with its dashes: "--json"
  OptionValue value = OptionValue::Flag;   ///< what follows it, if anything
  std::string valueName;                   ///< placeholder of the value in syntax and help ("FILE", "N"); flags: ""
  std::string help;                        ///< one line: what the option does
};

/// Whether a command acts on a rank set.
enum class RankArg {
  None,      ///< no rank set
  Optional,  ///< an optional rank set; without one, the focus (every rank without a focus)
  Required,  ///< a rank set must be given (`gdb RANKS COMMAND`)
};

struct SubcommandSpec;

/// A command's declared arguments besides its name (Command, Commands.hpp):
/// ArgSpec. A template only so that its list of subcommands, whose own
/// arguments are an ArgSpec, is instantiated once SubcommandSpec is complete
/// (clang reads a default member initializer where the class ends).
template <class Subcommand>
struct BasicArgSpec {
  /// Its options, in the order syntax lines and help list them.
  std::vector<OptionSpec> options{};
  /// The rank set it acts on (declared; the parser reads it unless `own`).
  RankArg ranks = RankArg::None;
  /// The operands follow a grammar of the command's own (`break` conditions,
  /// `print` paths, `set NAME = EXPR`, `gdb RANKS COMMAND`): options are read
  /// only before the first other word, and the rest of the line is handed to
  /// the body verbatim as CommandArgs::rest.
  bool own = false;
  /// It talks to the job: without one it fails with kNoJob (Commands.hpp)
  /// once its arguments have been checked.
  bool needsJob = false;
  /// Its subcommands (`info entries`, `info break`): when there are any, the
  /// first word names one, and the rest of the line is parsed against that
  /// subcommand's own ArgSpec (the fields above then describe nothing,
  /// unless subcommandOptional).
  std::vector<Subcommand> subcommands{};
  /// With subcommands: a line whose first word names none is the command's
  /// own form, parsed against the fields above (`gdb RANKS COMMAND` beside
  /// `gdb attach [RANKS]`, `set NAME = EXPR` beside `set pagination`), and
  /// CommandArgs::subcommand stays empty. Without it, such a word is an error.
  bool subcommandOptional = false;
};

/// A command's declared arguments besides its name (Command, Commands.hpp).
using ArgSpec = BasicArgSpec<SubcommandSpec>;

/// One subcommand of a command: `entries` of `info entries [RANKS]`.
struct SubcommandSpec {
  std::string name;
  std::vector<std::string> aliases{};
  std::string summary{};  ///< one line, for help
  ArgSpec args{};         ///< what it takes after its name
  /// Its operands in the syntax line when they are its own grammar
  /// (args.own: "[on|off]"); empty: "[RANKS]" or "RANKS" from args.ranks.
  std::string operands{};
};

/// A command line's arguments as the parser read them against an ArgSpec.
struct CommandArgs {
  /// The flags given, by name ("--json").
  std::vector<std::string> flags;
  /// The value options given, by name, their value as typed (checked against
  /// the option's OptionValue by the parser). A repeated option keeps its last value.
  std::map<std::string, std::string, std::less<>> values;
  /// The rank-set expression (ArgSpec::ranks, not own): the words that are no
  /// options, joined by a blank ("blocked & 0-3"); empty when none was given.
  std::string ranks;
  /// ArgSpec::own: the line after the leading options, trimmed, as typed.
  std::string rest;
  /// ArgSpec::subcommands: the name of the subcommand given (its name, when
  /// an alias was typed); the fields above are its arguments.
  std::string subcommand;

  /// True when the flag `name` was given.
  bool flag(std::string_view name) const;
  /// True when the value option `name` was given.
  bool has(std::string_view name) const { return values.find(name) != values.end(); }
  /// The value of option `name` as T (std::string, int, long long, double),
  /// or nullopt when it was not given (or does not convert: the parser has
  /// checked it against the option's OptionValue, so that is a wrong T).
  template <class T>
  std::optional<T> value(std::string_view name) const {
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    const std::string& text = it->second;
    if constexpr (std::is_same_v<T, std::string>) {
      return text;
    } else {
      T out{};
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
      if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
      return out;
    }
  }
};

/// Splits a leading rank-set expression off `args`: it ends at the first
/// blank outside (), [] and "" (docs/commands.md, "Rank sets"):
/// "[0-3, 7] bt" -> "[0-3, 7]", rest "bt"; "(in MPI_Recv) bt" ->
/// "(in MPI_Recv)", rest "bt"; "2 bt" -> "2", rest "bt". Returns {token, rest}.
std::pair<std::string, std::string> splitRankToken(std::string_view args);

/// Parses `line` (the text after the command's name) against `spec` for the
/// command `command` (named in errors). Words are split as splitRankToken
/// splits them, so "[0-3, 7]" and "(in MPI_Recv)" stay whole. Options are
/// the words starting with "--"; a value option takes the next word.
/// Errors, one message each:
///   - "CMD does not know option '--X'; did you mean --Y? (options: ...)" (the
///     closest option by editDistance, when it is close), or "CMD takes no
///     options (got '--X')";
///   - "--X needs a file name (CMD --X FILE)" when the value is missing ("a
///     whole number", "a number" or "a value" by the option's OptionValue);
///   - "--X takes a whole number (got 'V')" / "... a number ..." for a bad value;
///   - "CMD takes no arguments" for other words when the command takes none
///     ("CMD takes only its options (...)" when it has options), and "CMD needs
///     a rank set (e.g. ...)" when a required one is missing.
///   - for a command with subcommands: "CMD needs a subcommand (usage: SYNTAX)"
///     for none, "CMD does not know 'X'; did you mean Y? (usage: SYNTAX)"
///     for an unknown one (ArgSpec::subcommandOptional: the own form
///     instead, and "CMD SUB takes no options before its name (usage:
///     ...)" for options before a subcommand); then the errors above for
///     "CMD SUB".
Expected<CommandArgs> parseCommandArgs(std::string_view command, const ArgSpec& spec, std::string_view line);

/// The ArgSpec `parsed` was read against: its subcommand's, else `spec`.
const ArgSpec& parsedSpec(const ArgSpec& spec, const CommandArgs& parsed);

/// The syntax line of a command: its name, each option in brackets
/// ("[--json]", "[--dot FILE]"), then `operands` ("[RANKS]") when not empty.
/// A command with subcommands: each one's line ("NAME SUB [--opt] [RANKS]",
/// its rank set from its RankArg) joined by " | ", after the own form's
/// line with ArgSpec::subcommandOptional.
std::string composeSyntax(std::string_view name, const ArgSpec& spec, std::string_view operands);

/// The syntax of subcommand `sub` of `command`: "info entries [RANKS]" (its
/// options, then its rank set from its RankArg).
std::string subcommandSyntax(std::string_view command, const SubcommandSpec& sub);

/// The options of `spec` as help lines, one per option: "  --dot FILE   what it does\n"
/// (names padded to one column), each line starting with `indent`; "" when there are none.
std::string optionsHelp(const ArgSpec& spec, std::string_view indent = "  ");

/// The spelling of an option with its value placeholder: "--dot FILE", "--json".
std::string optionSpelling(const OptionSpec& option);

/// The name of an OptionValue as docs and JSON say it: "flag", "integer", "number", "text", "file".
std::string_view optionValueName(OptionValue value);

/// The name of a RankArg as docs and JSON say it: "none", "optional", "required".
std::string_view rankArgName(RankArg ranks);

}  // namespace mpidbg::cli
