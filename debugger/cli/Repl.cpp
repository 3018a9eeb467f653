#include "debugger/cli/Repl.hpp"

#include <readline/history.h>
#include <readline/readline.h>

#include <cstdlib>
#include <memory>

namespace mpidbg::cli {

namespace {

Console* g_console = nullptr;

std::string historyFile() {
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.mpidbg_history";
}

/// Prints queued notices above the prompt without losing the typed line.
int showNoticesAtPrompt() {
  if (g_console == nullptr || !g_console->hasNotices()) return 0;
  const int savedPoint = rl_point;
  std::unique_ptr<char, decltype(&std::free)> saved(rl_copy_text(0, rl_end), &std::free);
  rl_save_prompt();
  rl_replace_line("", 0);
  rl_redisplay();
  std::fputs("\r\033[K", stdout);
  g_console->drainNotices();
  rl_restore_prompt();
  rl_replace_line(saved.get(), 0);
  rl_point = savedPoint;
  rl_forced_update_display();
  return 0;
}

/// Ctrl-C at the prompt: drop the typed line and show a fresh prompt.
int onSignalAtPrompt() {
  if (g_interrupted.exchange(false)) {
    rl_replace_line("", 0);
    std::fputs("^C\n", stdout);
    rl_on_new_line();
    rl_redisplay();
  }
  return 0;
}

}  // namespace

void render(Console& console, const CommandResult& result) {
  if (!result.text.empty()) console.print(result.text);
  if (!result.ok) console.error(result.error);
  console.drainNotices();
}

namespace {

/// Runs one script line; returns false when the script should stop (quit).
bool runScriptLine(Context& context, const std::string& line, bool& allOk) {
  context.console.drainNotices();
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string::npos || line[first] == '#') return true;  // blank or comment
  context.console.print("(mpidbg) " + line);
  const CommandResult result = executeLine(context, line);
  render(context.console, result);
  allOk = allOk && result.ok;
  return !result.quit;
}

}  // namespace

bool runScript(Context& context, std::istream& in) {
  bool allOk = true;
  for (std::string line; std::getline(in, line);)
    if (!runScriptLine(context, line, allOk)) break;
  return allOk;
}

bool runScript(Context& context, const std::vector<std::string>& lines) {
  bool allOk = true;
  for (const auto& line : lines)
    if (!runScriptLine(context, line, allOk)) break;
  return allOk;
}

bool runRepl(Context& context) {
  g_console = &context.console;
  rl_catch_signals = 0;  // our SIGINT handler sets g_interrupted; readline sees EINTR
  rl_event_hook = showNoticesAtPrompt;
  rl_signal_event_hook = onSignalAtPrompt;
  rl_readline_name = "mpidbg";
  const std::string history = historyFile();
  if (read_history(history.c_str()) != 0) write_history(history.c_str());  // append needs the file
  while (true) {
    context.console.drainNotices();
    g_interrupted = false;
    std::unique_ptr<char, decltype(&std::free)> line(readline("(mpidbg) "), &std::free);
    if (!line) {  // Ctrl-D
      std::fputs("quit\n", stdout);
      break;
    }
    if (*line.get() != '\0') {
      add_history(line.get());
      append_history(1, history.c_str());
    }
    const CommandResult result = executeLine(context, line.get());
    render(context.console, result);
    if (result.quit) break;
  }
  history_truncate_file(history.c_str(), 1000);
  g_console = nullptr;
  return true;
}

}  // namespace mpidbg::cli
