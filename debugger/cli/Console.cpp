#include "debugger/cli/Console.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

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
  std::fputs(text.c_str(), stdout);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
  std::fflush(stdout);
}

void Console::error(const std::string& message) {
  endProgress();
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s\n", message.c_str());
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
      lines.push_back(line);
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
      print(ranks.toString() + " " + text);
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

void Console::progress(const std::string& line) {
  if (!interactive()) return;
  std::fprintf(stdout, "\r\033[K%s", line.c_str());
  std::fflush(stdout);
  progressShown_ = true;
}

void Console::endProgress() {
  if (!progressShown_) return;
  std::fputs("\r\033[K", stdout);
  std::fflush(stdout);
  progressShown_ = false;
}

}  // namespace mpidbg::cli
