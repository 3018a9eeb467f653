#pragma once

#include <istream>
#include <string>
#include <vector>

#include "debugger/cli/Commands.hpp"

namespace mpidbg::cli {

/// Runs the interactive prompt until `quit`, end of input (Ctrl-D) or the
/// job's end when the user asks to quit. readline with history kept in
/// ~/.mpidbg_history; Ctrl-C clears the line at the prompt and interrupts a
/// waiting command, never the debugger. A failed command is reported and the
/// prompt returns; it does not change the exit status (always true).
bool runRepl(Context& context);

/// Runs `lines` as commands, echoing each as "(mpidbg) line" first (blank
/// lines and # comments are skipped; with Console::json() there is no echo:
/// each command prints its envelope, see render). Stops early only at `quit`.
/// Returns false if any command failed.
bool runScript(Context& context, const std::vector<std::string>& lines);

/// Like runScript, with commands read from `in` one line at a time as they
/// arrive (stdin that is not a terminal), until end of input or `quit`.
bool runScript(Context& context, std::istream& in);

/// Prints the result of command line `line` through the console: its text to
/// stdout and its error to stderr; or, when console.json(), one envelope line
/// (commandJson in cli/JsonOutput.hpp; nothing for a blank line or a comment).
/// Then the queued notices.
void render(Console& console, std::string_view line, const CommandResult& result);

}  // namespace mpidbg::cli
