#include "debugger/cli/Console.hpp"

#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "debugger/cli/JsonOutput.hpp"
#include "debugger/core/OutputRelay.hpp"
#include "debugger/core/RankSet.hpp"

namespace mpidbg::cli {

std::atomic<bool> g_interrupted{false};

namespace {
void onSigint(int) { g_interrupted = true; }
}  // namespace

void installSignalHandlers() {
  struct sigaction sa{};
  sa.sa_handler = onSigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: blocking reads see EINTR
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

void Console::print(const std::string& text) {
  endProgress();
  std::fputs((!json_ && colorEnabled() ? paintRankPrefixes(text) : text).c_str(), out_);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', out_);
  std::fflush(out_);
}

void Console::printResult(const std::string& text) {
  if (pagination_ && !json_ && interactive() &&
      needsPager(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), height())) {
    endProgress();
    if (page(colorEnabled() ? paintRankPrefixes(text) : text)) return;
  }
  print(text);
}

bool Console::needsPager(std::size_t lines, int rows) { return rows > 1 && lines >= static_cast<std::size_t>(rows); }

int Console::height() const {
  struct winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_row > 0) return size.ws_row;
  const char* lines = std::getenv("LINES");
  return lines != nullptr ? std::atoi(lines) : 0;
}

bool Console::page(const std::string& text) {
  const char* env = std::getenv("PAGER");
  // -F: no pager when the text fits after all; -R: colours; -X: the text
  // stays on the screen after quitting.
  const std::string pager = env != nullptr ? env : "less -FRX";
  if (pager.empty() || pager == "cat") return false;
  std::fflush(out_);
  std::FILE* pipe = ::popen(pager.c_str(), "w");
  if (pipe == nullptr) return false;
  std::fputs(text.c_str(), pipe);  // a pager quit early gives EPIPE (SIGPIPE is ignored)
  const int status = ::pclose(pipe);
  g_interrupted = false;  // a Ctrl-C in the pager was the pager's
  return status != -1 && !(WIFEXITED(status) && WEXITSTATUS(status) == 127);
}

void Console::setJson(std::FILE* out) {
  endProgress();
  out_ = out;
  json_ = true;
}

void Console::error(const std::string& message) {
  endProgress();
  std::fflush(stdout);
  const bool red = colorWanted(::isatty(STDERR_FILENO) == 1, std::getenv("NO_COLOR"));
  std::fprintf(stderr, "%s %s\n", red ? paint(Style::Error, "error:").c_str() : "error:", message.c_str());
  std::fflush(stderr);
}

void Console::notice(const std::string& line) {
  std::lock_guard lock(mutex_);
  notices_.push_back(line);
}

int Console::drainNotices() {
  std::deque<std::string> pending;
  {
    std::lock_guard lock(mutex_);
    pending.swap(notices_);
  }
  // "[rank] text" notices with the same text are merged into one line with
  // their rank set ("[2,5] hit breakpoint 1: ..."), in order of first arrival.
  std::vector<std::pair<std::string, core::RankSet>> groups;
  std::vector<std::string> lines;  // in order: group texts (marked) and plain lines
  for (const auto& line : pending) {
    int rank = -1;
    std::string text;
    if (line.size() > 3 && line.front() == '[') {
      const auto close = line.find("] ");
      if (close != std::string::npos) {
        const std::string number = line.substr(1, close - 1);
        if (!number.empty() && number.find_first_not_of("0123456789") == std::string::npos &&
            number.size() < 9) {
          rank = std::stoi(number);
          text = line.substr(close + 2);
        }
      }
    }
    if (rank < 0) {
      lines.push_back(json_ ? jsonLine(noticeJson(line, nullptr)) : line);
      continue;
    }
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == text; });
    if (it == groups.end()) {
      groups.emplace_back(text, core::RankSet{});
      it = std::prev(groups.end());
      lines.push_back(std::string(1, '\0') + std::to_string(groups.size() - 1));
    }
    it->second.insert(rank);
  }
  for (const auto& line : lines) {
    if (!line.empty() && line.front() == '\0') {
      const auto& [text, ranks] = groups[std::stoul(line.substr(1))];
      print(json_ ? jsonLine(noticeJson(text, &ranks)) : ranks.toString() + " " + text);
    } else {
      print(line);
    }
  }
  return static_cast<int>(pending.size());
}

bool Console::hasNotices() const {
  std::lock_guard lock(mutex_);
  return !notices_.empty();
}

bool Console::interactive() const { return ::isatty(STDOUT_FILENO) == 1; }

bool Console::colorEnabled() const { return colorWanted(interactive(), std::getenv("NO_COLOR")); }

std::string Console::color(Style style, std::string_view text) const {
  return colorEnabled() ? paint(style, text) : std::string(text);
}

int Console::width() const {
  const bool tty = interactive();
  struct winsize size{};
  const int columns = tty && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
  return widthFrom(tty, columns, std::getenv("COLUMNS"));
}

std::string Console::fit(const std::string& text) const { return fitLines(text, width()); }

bool Console::colorWanted(bool isTerminal, const char* noColor) {
  return isTerminal && (noColor == nullptr || *noColor == '\0');
}

std::string Console::promptColor(Style style, std::string_view text) const {
  return colorEnabled() ? paint(style, text, true) : std::string(text);
}

std::string Console::paint(Style style, std::string_view text, bool readlineMarkers) {
  const char* sgr = "";
  switch (style) {
    case Style::Error: sgr = "\033[1;31m"; break;
    case Style::Ranks: sgr = "\033[36m"; break;
    case Style::Prompt: sgr = "\033[1m"; break;
    case Style::Notice: sgr = "\033[33m"; break;
  }
  const std::string open = readlineMarkers ? "\001" : "", close = readlineMarkers ? "\002" : "";
  return open + sgr + close + std::string(text) + open + "\033[0m" + close;
}

int Console::widthFrom(bool isTerminal, int ioctlColumns, const char* columnsEnv) {
  if (!isTerminal) return 0;
  if (ioctlColumns > 0) return ioctlColumns;
  if (columnsEnv != nullptr) {
    char* end = nullptr;
    const long n = std::strtol(columnsEnv, &end, 10);
    if (end != columnsEnv && *end == '\0' && n > 0 && n < 100000) return static_cast<int>(n);
  }
  return 80;
}

namespace {

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

/// Code points in `line` (UTF-8; stray bytes count one each).
std::size_t columns(std::string_view line) {
  return static_cast<std::size_t>(std::count_if(line.begin(), line.end(), [](char c) { return !continuation(static_cast<unsigned char>(c)); }));
}

/// The byte offset where code point `n` of `line` starts (line.size() past the end).
std::size_t offsetOf(std::string_view line, std::size_t n) {
  std::size_t i = 0;
  for (std::size_t seen = 0; i < line.size(); ++i) {
    if (continuation(static_cast<unsigned char>(line[i]))) continue;
    if (seen++ == n) return i;
  }
  return line.size();
}

}  // namespace

std::string Console::fitLines(const std::string& text, int width) {
  if (width < 10) return text;
  const auto w = static_cast<std::size_t>(width);
  std::string out;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    const bool newline = end != std::string::npos;
    if (!newline) end = text.size();
    const std::string_view line(text.data() + begin, end - begin);
    const std::size_t n = columns(line);
    if (n <= w) {
      out += line;
    } else {
      // Keep a third of the room for the head, the rest for the tail.
      const std::size_t head = (w - 3) / 3, tail = w - 3 - head;
      out += line.substr(0, offsetOf(line, head));
      out += "...";
      out += line.substr(offsetOf(line, n - tail));
    }
    if (newline) out += '\n';
    begin = end + 1;
  }
  return out;
}

std::string Console::paintRankPrefixes(const std::string& text) {
  std::string out;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size() - 1;
    const std::string_view line(text.data() + begin, end - begin + 1);
    std::size_t i = line.find_first_not_of(' ');
    std::size_t close = std::string_view::npos;
    if (i != std::string_view::npos && line[i] == '[') {
      close = line.find(']', i);
      // Only "[ranks] text": not JSON arrays such as "[1,2]" alone on a line.
      if (close != std::string_view::npos &&
          (line.substr(i + 1, close - i - 1).find_first_not_of("0123456789,-") != std::string_view::npos ||
           close + 1 >= line.size() || line[close + 1] != ' '))
        close = std::string_view::npos;
    }
    if (close != std::string_view::npos) {
      out += line.substr(0, i);
      out += paint(Style::Ranks, line.substr(i, close - i + 1));
      out += line.substr(close + 1);
    } else {
      out += line;
    }
    begin = end + 1;
  }
  return out;
}

void Console::progress(const std::string& line) {
  if (json_ || !interactive()) return;
  progressShown_ = true;
  std::fflush(stdout);
  if (relay_ != nullptr && relay_->show(line)) return;
  relay_ = nullptr;  // gone or stuck: the progress line is drawn here from now on
  std::fprintf(stdout, "\r\033[K%s", line.c_str());
  std::fflush(stdout);
}

void Console::endProgress() {
  if (!progressShown_) return;
  progressShown_ = false;
  if (relay_ != nullptr && relay_->clear()) return;
  relay_ = nullptr;
  std::fputs("\r\033[K", stdout);
  std::fflush(stdout);
}

}  // namespace mpidbg::cli
