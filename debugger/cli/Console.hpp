#pragma once

#include <atomic>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>

namespace mpidbg::core {
class OutputRelay;
}

namespace mpidbg::cli {

/// What a piece of terminal text is, for its colour (Console::color).
enum class Style {
  Error,   ///< "error:" (red)
  Ranks,   ///< a rank set such as [0-3] at the start of a line (cyan)
  Prompt,  ///< the "(mpidbg)" prompt (bold)
  Notice,  ///< the confirmation question at Ctrl-D (yellow)
};

/// Where the debugger's text goes. Results go to stdout, errors to stderr as
/// "error: ...". Asynchronous notices (from the event thread) are queued and
/// printed by the main thread between commands, during waits, and at the
/// prompt, so they never tear a line the user is typing.
class Console {
 public:
  /// Prints `text` to stdout (adding a newline when missing).
  void print(const std::string& text);
  /// Prints a command's result: like print(), but while paging is on (the
  /// interactive prompt on a terminal, `set pagination on`) a text taller
  /// than the terminal goes through the pager, as gdb's long output does:
  /// $PAGER, else `less -FRX`; PAGER empty or `cat` means none, and a pager
  /// that cannot run (exit 127) falls back to print().
  void printResult(const std::string& text);
  /// Turns the pager on or off (`set pagination on|off`). Off by default;
  /// main() turns it on for the interactive prompt.
  void setPagination(bool on) { pagination_ = on; }
  /// Whether printResult() may page.
  bool pagination() const { return pagination_; }
  /// Whether a text of `lines` lines is paged on a terminal of `rows` rows
  /// (0: unknown): it does not fit above the prompt. Pure.
  static bool needsPager(std::size_t lines, int rows);
  /// Prints "error: <message>" to stderr.
  void error(const std::string& message);
  /// Queues a notice; thread-safe.
  void notice(const std::string& line);
  /// Prints queued notices to stdout; returns how many. Main thread only.
  int drainNotices();
  /// True when notices are waiting.
  bool hasNotices() const;
  /// Transient progress on a terminal (rewritten in place); nothing otherwise.
  void progress(const std::string& line);
  /// Clears a progress line, if one is shown.
  void endProgress();
  /// Progress lines go through `relay` (the job's output relay, which clears
  /// them before the job's output) while it answers; nullptr: written here.
  /// `relay` must outlive the console's use of it.
  void setRelay(core::OutputRelay* relay) { relay_ = relay; }
  /// True when stdout is a terminal.
  bool interactive() const;

  /// Switches to JSON lines (mpidbg --json, docs/json-schema.md): print()
  /// writes to `out` from now on, without colours; drainNotices() prints each
  /// notice (grouped by rank set as in text) as one event object per line
  /// (noticeJson in cli/JsonOutput.hpp); progress() shows nothing. `out`
  /// must stay open while the console is used.
  void setJson(std::FILE* out);
  /// True after setJson(): everything print() writes is one JSON object per line.
  bool json() const { return json_; }

  /// True when text for stdout may carry ANSI colours: stdout is a terminal
  /// and NO_COLOR is unset or empty (https://no-color.org).
  bool colorEnabled() const;
  /// `text` in the colour of `style` when colorEnabled(); `text` unchanged
  /// otherwise. For stderr text use colorWanted(isatty(2), NO_COLOR) instead.
  std::string color(Style style, std::string_view text) const;
  /// Like color(), for a readline prompt: the escape sequences are enclosed
  /// in readline's \001 ... \002 markers so the prompt's width stays right.
  std::string promptColor(Style style, std::string_view text) const;
  /// Columns of the terminal on stdout (ioctl TIOCGWINSZ, else $COLUMNS, else
  /// 80); 0 when stdout is not a terminal, meaning "do not lay out".
  int width() const;
  /// `text` with every line wider than width() shortened in the middle to
  /// "head...tail" of exactly width() columns, so the line's end (a rank
  /// set, a leaf frame) stays visible. Unchanged when width() is 0.
  std::string fit(const std::string& text) const;

  /// Whether colours are wanted for an output that `isTerminal`, given the
  /// value of NO_COLOR (nullptr when unset). Pure.
  static bool colorWanted(bool isTerminal, const char* noColor);
  /// `text` wrapped in the SGR sequence of `style` and a reset; with
  /// `readlineMarkers` each sequence is enclosed in \001 ... \002. Pure.
  static std::string paint(Style style, std::string_view text, bool readlineMarkers = false);
  /// Terminal columns from what is known: `isTerminal`, the ioctl's column
  /// count (0 when it failed) and $COLUMNS (nullptr when unset). Pure.
  static int widthFrom(bool isTerminal, int ioctlColumns, const char* columnsEnv);
  /// `text` with lines wider than `width` columns cut in the middle with
  /// "..." to exactly `width` columns (one column per UTF-8 code point; cuts
  /// fall between code points); `width` < 10 leaves it unchanged. Pure.
  static std::string fitLines(const std::string& text, int width);
  /// `text` with the rank set that starts each line ("[0-3] ...", also after
  /// leading blanks; followed by a blank) painted as Style::Ranks. Pure.
  static std::string paintRankPrefixes(const std::string& text);

 private:
  mutable std::mutex mutex_;
  std::deque<std::string> notices_;
  bool progressShown_ = false;
  core::OutputRelay* relay_ = nullptr;
  /// Rows of the terminal on stdout (ioctl TIOCGWINSZ, else $LINES), 0 when
  /// unknown.
  int height() const;
  /// Writes `text` through the pager; false when the pager could not run.
  bool page(const std::string& text);
  std::FILE* out_ = stdout;  ///< where print() writes (setJson changes it)
  bool json_ = false;
  bool pagination_ = false;
};

/// Set by the SIGINT handler; commands that wait poll it and give up.
extern std::atomic<bool> g_interrupted;

/// Installs the SIGINT handler that sets g_interrupted (Ctrl-C interrupts a
/// waiting command, never the debugger) and ignores SIGPIPE.
void installSignalHandlers();

}  // namespace mpidbg::cli
