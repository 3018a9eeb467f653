#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "debugger/cli/CommandSpec.hpp"
#include "debugger/cli/Console.hpp"
#include "debugger/cli/SessionState.hpp"
#include "debugger/core/Debugger.hpp"

namespace mpidbg::core::charm {
class CharmJob;
}

namespace mpidbg::cli {

/// What a command produced. Commands never print or exit by themselves: the
/// caller renders the result (text to stdout, the error to stderr).
struct CommandResult {
  bool ok = true;
  std::string text;   ///< output for stdout (may be empty)
  std::string error;  ///< when !ok: one message a user can act on
  bool quit = false;  ///< the session should end after this command
  /// The command's structured result, printed as the envelope's "result"
  /// under `mpidbg --json` (one shape per command: docs/json-schema.md); null
  /// when the command has nothing structured to say. Rank sets follow one
  /// convention (cli/JsonOutput.hpp): "ranks":"[0-3,7]" with
  /// "rank_list":[0,1,2,3,7] beside it. A failure may still carry the part
  /// it could report (per-rank errors); the text is then rendered as usual.
  nlohmann::json data;

  static CommandResult failure(std::string message) {
    CommandResult r;
    r.ok = false;
    r.error = std::move(message);
    return r;
  }
};

/// Settings shared by commands.
struct Settings {
  /// A rank inside one MPI call at least this long counts as blocked.
  std::chrono::milliseconds blockedAfter{1000};
  /// Default timeout of `wait` without an argument.
  std::chrono::milliseconds defaultWait{60000};
};

/// What a command can reach.
struct Context {
  core::Debugger& debugger;
  Console& console;
  Settings settings;
  /// Set by `kill`: the job's end is the user's doing, not the job's.
  bool killedByUser = false;
  /// The Charm++ program of the session, when it debugs one (mpidbg --
  /// charmrun ..., mpidbg attach charm HOST:PORT); `debugger` then holds its
  /// PE processes, attached by pid, for gdb and where.
  core::charm::CharmJob* charm = nullptr;
  /// The focus, named sets and equivalence classes of this session.
  SessionState session{};
};

/// One command, declared: its name, aliases, operands, one-line summary,
/// longer help, the function that executes it with its parsed arguments,
/// whether an empty line repeats it, and its ArgSpec (options, rank set,
/// whether it needs a job). executeLine parses the line with
/// parseCommandArgs against `args`; help, completion and docgen read the same
/// declaration. Build tables with withSyntax, which fills `syntax`.
struct Command {
  std::string name;
  std::vector<std::string> aliases;
  /// The syntax after the name and the options: "[RANKS]", "RANKS COMMAND".
  std::string operands;
  std::string summary;
  std::string help;
  std::function<CommandResult(Context&, const CommandArgs&)> execute;
  /// At the interactive prompt, an empty line right after this command runs
  /// it again, as gdb repeats step, next and the like.
  bool repeats = false;
  /// What it takes besides its operands' own grammar (CommandSpec.hpp).
  ArgSpec args;
  /// Derived (composeSyntax): name, options, operands: "where [--full] [RANKS]".
  std::string syntax{};
};

/// `table` with each command's `syntax` composed from its name, options and operands.
std::vector<Command> withSyntax(std::vector<Command> table);

/// The error of a command that needs the job when the session has none.
inline constexpr std::string_view kNoJob = "no job: it was killed or never started";

/// Success (ok, nothing else) when the session has a job, else the failure
/// kNoJob. Commands that talk to the ranks check their arguments first and
/// then call this (or commandRanks, which checks too), so a malformed line
/// gets its own error with or without a job.
CommandResult needJob(Context& ctx);

/// The longest `wait SECONDS` (about three years): the deadline, now plus
/// the timeout in nanoseconds, must stay within steady_clock's range.
inline constexpr long long kMaxWaitSeconds = 100'000'000;

/// The timeout of `wait [SECONDS]`: `fallback` when `args` is blank, else
/// SECONDS, a decimal number (fractions allowed) from 0 to kMaxWaitSeconds.
/// Error: anything else, as "wait takes a number of seconds ...".
Expected<std::chrono::milliseconds> parseWaitTimeout(std::string_view args, std::chrono::milliseconds fallback);

/// `help [COMMAND]`: commandListText, or commandHelp of the command named.
CommandResult doHelp(Context& ctx, const CommandArgs& args);

/// The table of every command, in the order `help` lists them.
const std::vector<Command>& commandTable();

/// Finds the command named or aliased `name`, or the only one `name` is a
/// prefix of (as gdb: `sta` -> status); nullptr when none or ambiguous.
const Command* findCommand(std::string_view name);

/// `help` without an argument: one line per command of the table (syntax,
/// summary), then the rank-set notation. Also printed by `mpidbg` started
/// without a launcher command.
std::string commandListText();

/// One line of a command list: two blanks, `syntax` padded to 28 columns
/// (or followed by two blanks when longer), `summary`, a newline.
std::string commandListLine(std::string_view syntax, std::string_view summary);

/// `help COMMAND` for `cmd`: "Usage: SYNTAX", the summary, the help text, the
/// options (optionsHelp) and the aliases; JSON {name, aliases, syntax, summary,
/// help, options: [{name, value, value_name, help}], ranks, needs_job}.
CommandResult commandHelp(const Command& cmd);

/// `help` without an argument: `text`, and JSON {commands: [{name, aliases,
/// syntax, summary}]} for `commands`.
CommandResult commandListResult(std::string text, const std::vector<const Command*>& commands);

/// Executes one command line (leading/trailing blanks ignored; empty lines and
/// lines starting with '#' do nothing). Unknown commands get an error naming
/// the closest known ones. The arguments are parsed against the command's
/// ArgSpec first (its errors are the command's); a command that needs the job
/// then fails with kNoJob without one (a malformed rank set is reported first).
CommandResult executeLine(Context& context, std::string_view line);

/// True when the gdb console command `command` only looks at a rank (a
/// backtrace, a value, memory, source, `info ...`, `thread apply LIST` of
/// such a command): `gdb RANKS COMMAND` then releases the ranks it attached
/// for it alone. Execution, breakpoints and frame or thread selection
/// (`next`, `break`, `frame`, `up`, `thread 2`, anything not listed) keep them.
bool isLookCommand(std::string_view command);

/// The MI counterpart of isLookCommand, for `-mi`: -data-*, -stack-* (not
/// -stack-select-frame), -symbol-*, -thread-info, -list-*, -file-*, -info-*.
bool isLookMiCommand(std::string_view command);

}  // namespace mpidbg::cli
