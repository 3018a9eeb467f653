#include "debugger/cli/Console.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdio>

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
  for (const auto& line : pending) print(line);
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
