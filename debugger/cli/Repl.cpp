#include "debugger/cli/Repl.hpp"

#include <readline/history.h>
#include <readline/readline.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "debugger/cli/Completion.hpp"
#include "debugger/cli/JsonOutput.hpp"
#include "debugger/core/ObjectQuery.hpp"
#include "debugger/cli/SetCommands.hpp"
#include "debugger/core/RankExpr.hpp"
#include "debugger/core/charm/CharmJob.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

namespace {

Console* g_console = nullptr;
Context* g_context = nullptr;

/// What the completer may know, read from the session at each Tab.
CompletionContext completionContext(Context& ctx) {
  CompletionContext cc;
  for (const auto& [id, entry] : ctx.debugger.controls().breakpoints()) cc.breakpoints.push_back(id);
  cc.equivalenceClasses = ctx.session.equivalenceClasses.size();
  cc.paths = filesystemPaths;
  // Rank-set words of the RankExpr grammar: focus and the live states; and
  // the sets named with `set NAME = EXPR`.
  cc.rankSetWords.emplace_back("focus");
  for (auto state : {core::LiveState::Blocked, core::LiveState::Frozen, core::LiveState::Running,
                     core::LiveState::Exited, core::LiveState::Held})
    cc.rankSetWords.emplace_back(core::liveStateName(state));
  for (const auto& [name, ranks] : ctx.session.namedSets) cc.namedSets.push_back(name);
  // print targets: list names, then object fields and items (one rank asked per Tab).
  core::Debugger* debugger = &ctx.debugger;
  core::charm::CharmJob* charm = ctx.charm;
  cc.objectWords = [debugger, charm](std::string_view, std::string_view word) {
    if (charm != nullptr) return charm->active() ? core::objectCompletions(charm->lists(), word) : std::vector<std::string>{};
    return debugger->session().hasJob() ? core::objectCompletions(*debugger, word) : std::vector<std::string>{};
  };
  if (charm != nullptr && charm->active()) {
    // break [entry] NAME on a Charm++ program: its entry methods, as Chare::method.
    cc.charm = true;
    cc.breakpoints.clear();
    for (const auto& [id, bp] : charm->breakpoints()) cc.breakpoints.push_back(id);
    if (auto entries = charm->entries())
      for (const auto& e : *entries)
        if (!e.system) cc.entryNames.push_back(e.shortName());
  }
  return cc;
}

std::vector<std::string> g_candidates;
std::size_t g_nextCandidate = 0;

char* nextCandidate(const char*, int state) {
  if (state == 0) g_nextCandidate = 0;
  if (g_nextCandidate >= g_candidates.size()) return nullptr;
  return ::strdup(g_candidates[g_nextCandidate++].c_str());
}

/// readline's completion entry: the words come from complete() alone (no
/// fallback to readline's own file-name completion).
char** attemptCompletion(const char* text, int start, int end) {
  rl_attempted_completion_over = 1;
  if (g_context == nullptr || start < 0 || end < start) return nullptr;
  const Completion c = complete(std::string_view(rl_line_buffer, static_cast<std::size_t>(rl_end)),
                                static_cast<std::size_t>(end), completionContext(*g_context));
  if (c.start != static_cast<std::size_t>(start) || c.candidates.empty()) return nullptr;
  g_candidates = c.candidates;
  if (!c.appendSpace) rl_completion_append_character = '\0';
  return rl_completion_matches(text, nextCandidate);
}

/// Ctrl-D at the prompt: true when the session should end. With live ranks
/// it asks first, like gdb: "y" kills the job, end of input again confirms
/// too, anything else returns to the prompt. An attached job is not asked
/// about: leaving detaches from it.
bool confirmEndOfInput(Context& ctx) {
  std::fputs("quit\n", stdout);
  core::charm::CharmJob* charm = ctx.charm;
  // An attached job (or Charm++ program) is left running; a Charm++ program
  // mpidbg started is asked about like a job.
  if (charm != nullptr ? !charm->launched() || !charm->active() : ctx.debugger.session().attached()) return true;
  int live = 0;
  if (charm != nullptr && charm->alive()) live = charm->size();
  if (charm == nullptr && ctx.debugger.session().hasJob() && ctx.debugger.session().jobAlive())
    for (const auto& info : ctx.debugger.session().job().snapshot()) live += info.ended() ? 0 : 1;
  if (live == 0) return true;
  const std::string unit = charm != nullptr ? " PE" : " rank";
  const std::string question = std::string(charm != nullptr ? "The program" : "The job") + " is still running (" +
                               std::to_string(live) + unit + (live == 1 ? "" : "s") + "). Kill it and quit? (y or n) ";
  g_interrupted = false;
  std::unique_ptr<char, decltype(&std::free)> answer(readline(ctx.console.promptColor(Style::Notice, question).c_str()),
                                                     &std::free);
  std::string reply = answer ? std::string(trim(answer.get())) : "y";
  if (!answer) std::fputs("EOF [answered Y]\n", stdout);
  for (char& c : reply) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (reply != "y" && reply != "yes") {
    ctx.console.print("Not confirmed.");
    return false;
  }
  if (charm != nullptr) charm->kill();
  else ctx.debugger.session().kill();
  ctx.killedByUser = true;
  ctx.console.print(charm != nullptr ? "Killed the program." : "Killed the job.");
  return true;
}

/// On a terminal, `where` lines wider than the terminal are shortened in the
/// middle so each keeps its leaf frame and rank set (not --json output).
void fitToTerminal(Context& ctx, std::string_view line, CommandResult& result) {
  line = trim(line);
  const auto space = line.find_first_of(" \t");
  const Command* cmd = findCommand(line.substr(0, space));
  if (cmd == nullptr || cmd->name != "where" || ctx.console.json()) return;
  const auto args = parseCommandArgs(cmd->name, cmd->args, space == std::string_view::npos ? "" : line.substr(space));
  if (args && !args->flag("--json")) result.text = ctx.console.fit(result.text);
}

std::string historyFile() {
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.mpidbg_history";
}

int onSignalAtPrompt();

/// readline's event hook, called about every 100 ms while it waits for a key:
/// drops the typed line after Ctrl-C (readline does not always report the
/// interrupted read to rl_signal_event_hook), and prints queued notices above
/// the prompt without losing the typed line.
int showNoticesAtPrompt() {
  onSignalAtPrompt();
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

void render(Console& console, std::string_view line, const CommandResult& result) {
  if (console.json()) {
    if (!commandNameOf(line).empty()) console.print(jsonLine(commandJson(line, result)));
  } else {
    if (!result.text.empty()) console.printResult(result.text);
    if (!result.ok) console.error(result.error);
  }
  console.drainNotices();
}

namespace {

/// Runs one script line; returns false when the script should stop (quit).
bool runScriptLine(Context& context, const std::string& line, bool& allOk) {
  context.console.drainNotices();
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string::npos || line[first] == '#') return true;  // blank or comment
  if (!context.console.json()) context.console.print("(mpidbg) " + line);
  const CommandResult result = executeLine(context, line);
  render(context.console, line, result);
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
  g_context = &context;
  rl_attempted_completion_function = attemptCompletion;
  rl_completer_word_break_characters = " \t";
  rl_catch_signals = 0;  // our SIGINT handler sets g_interrupted; readline sees EINTR
  rl_event_hook = showNoticesAtPrompt;
  rl_signal_event_hook = onSignalAtPrompt;
  rl_readline_name = "mpidbg";
  const std::string history = historyFile();
  if (read_history(history.c_str()) != 0) write_history(history.c_str());  // append needs the file
  std::string repeatLine;  // the last line, when its command repeats on an empty line
  while (true) {
    context.console.drainNotices();
    g_interrupted = false;
    const std::string prompt = context.console.promptColor(Style::Prompt, promptFor(context.session)) + " ";
    std::unique_ptr<char, decltype(&std::free)> line(readline(prompt.c_str()), &std::free);
    if (!line) {  // Ctrl-D
      if (confirmEndOfInput(context)) break;
      continue;
    }
    std::string text = line.get();
    if (!text.empty()) {
      add_history(text.c_str());
      append_history(1, history.c_str());
    }
    if (trim(text).empty()) {
      // gdb's habit: an empty line repeats the last command if it repeats.
      if (repeatLine.empty()) continue;
      text = repeatLine;
    }
    const Command* command = findCommand(commandNameOf(text));
    repeatLine = command != nullptr && command->repeats ? text : std::string();
    CommandResult result = executeLine(context, text);
    fitToTerminal(context, text, result);
    render(context.console, text, result);
    if (result.quit) break;
  }
  history_truncate_file(history.c_str(), 1000);
  rl_attempted_completion_function = nullptr;
  g_context = nullptr;
  g_console = nullptr;
  return true;
}

}  // namespace mpidbg::cli
