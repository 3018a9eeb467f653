#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "debugger/cli/Commands.hpp"

namespace mpidbg::cli {

/// What the completer knows about the session. Everything is optional: an
/// empty context still completes command names, options, keywords and MPI
/// function names (those come from the command table and ccs::cond).
struct CompletionContext {
  /// Numbers of the breakpoints set in this session (ControlService::breakpoints),
  /// offered where a command's syntax has the placeholder `N`.
  std::vector<int> breakpoints;
  /// How many equivalence classes the last `where`/`equiv` found: when > 0,
  /// `$equiv[` and then `$equiv[1]` ... `$equiv[K]` are offered as rank sets.
  std::size_t equivalenceClasses = 0;
  /// Rank-set words besides `all`, offered where a syntax has RANKS or EXPR:
  /// the RankExpr grammar's `focus` and live states (blocked, frozen, ...).
  std::vector<std::string> rankSetWords;
  /// The session's named rank sets (SessionState::namedSets): offered where a
  /// syntax has NAME (`unset NAME`) and, like rankSetWords, as rank sets.
  std::vector<std::string> namedSets;
  /// Entry-point names for `break entry NAME`. The front end does not keep
  /// them (ranks report them only to `info entries`), so this stays empty
  /// unless a caller fills it.
  std::vector<std::string> entryNames;
  /// The session debugs a Charm++ program: `break` targets are its entry
  /// methods (entryNames), not MPI functions.
  bool charm = false;
  /// Lists the paths that start with `prefix` (directories with a trailing
  /// '/'), for FILE arguments such as `where --dot FILE`. Unset: nothing.
  std::function<std::vector<std::string>(std::string_view prefix)> paths;
  /// PUP list names and object fields (`print LIST...`). Called with the
  /// command's name and the word being completed when the command's syntax
  /// has a placeholder starting with LIST, or FIELD. Unset: nothing.
  std::function<std::vector<std::string>(std::string_view command, std::string_view word)> objectWords;
};

/// The result of completing the word that ends at the cursor.
struct Completion {
  /// Byte offset in the line where the completed word starts: the first byte
  /// after the last blank before the cursor (blanks: space and tab).
  std::size_t start = 0;
  /// Full replacements for line[start, cursor), sorted, without duplicates.
  std::vector<std::string> candidates;
  /// False when a single candidate is not a whole word yet (a directory
  /// ending in '/', or `$equiv[`): no blank should follow it.
  bool appendSpace = true;
};

/// Completes the word ending at `cursor` (clamped to line.size()) in `line`:
///   - the first word: command names and aliases (commandTable());
///   - a word starting with '-': the command's options (Command::args) not typed yet;
///   - after an option whose value is a file (OptionValue::File): paths;
///   - the first argument: the syntax's lowercase keywords ("info break",
///     "gdb attach", "delete all"), breakpoint numbers where the syntax has `N`,
///     rank-set words where it has RANKS or EXPR, named sets where it has
///     NAME, command names for `help`;
///   - `break [RANKS]`: the interposed MPI functions (ccs::cond::functions())
///     and `entry`; after `break entry`: entryNames.
/// Pure: reads nothing but its arguments and the static tables.
Completion complete(std::string_view line, std::size_t cursor, const CompletionContext& context);

/// The `--word` options named in `syntax` ("where [--full] [--dot FILE]" ->
/// {"--full", "--dot"}), in order of appearance.
std::vector<std::string> syntaxOptions(std::string_view syntax);

/// The paths on this machine starting with `prefix` ("" lists the current
/// directory, "~/" the home directory as typed), directories with '/', sorted;
/// at most 1000 entries. Hidden entries only when the name part starts with '.'.
std::vector<std::string> filesystemPaths(std::string_view prefix);

}  // namespace mpidbg::cli
