#include "debugger/core/Backtrace.hpp"

#include <unistd.h>

#include "debugger/gdbmi/ChildProcess.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::core {

std::vector<std::string> parseBacktrace(std::string_view text) {
  std::vector<std::string> frames;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.size() < 2 || line[0] != '#') continue;
    std::size_t i = 1;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
    if (i == 1) continue;
    line = trim(line.substr(i));
    // "0x00007f... in func (...) at file:line": drop the program counter.
    if (line.starts_with("0x")) {
      const std::size_t in = line.find(" in ");
      if (in == std::string_view::npos) continue;
      line = trim(line.substr(in + 4));
    }
    if (!line.empty()) frames.emplace_back(line);
  }
  return frames;
}

GdbFrame splitFrame(std::string_view text) {
  GdbFrame f;
  // The function name ends where its argument list starts: " (".
  const std::size_t args = text.find(" (");
  f.function = std::string(trim(text.substr(0, args)));
  if (args == std::string_view::npos) return f;
  // The argument list may hold parentheses (casts, strings): find its end.
  std::size_t i = args + 1;
  int depth = 0;
  char quote = 0;  // inside a string ("...") or character ('(') argument
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      break;
    }
  }
  std::string_view rest = i < text.size() ? trim(text.substr(i + 1)) : std::string_view{};
  if (rest.starts_with("at ")) {
    rest = trim(rest.substr(3));
    const std::size_t colon = rest.rfind(':');
    int line = 0;
    bool digits = colon != std::string_view::npos && colon + 1 < rest.size();
    for (std::size_t k = colon + 1; digits && k < rest.size(); ++k) {
      if (rest[k] < '0' || rest[k] > '9' || line > 100000000) digits = false;
      else line = line * 10 + (rest[k] - '0');
    }
    if (digits) {
      f.file = std::string(rest.substr(0, colon));
      f.line = line;
    } else {
      f.file = std::string(rest);
    }
  } else if (rest.starts_with("from ")) {
    f.module = std::string(trim(rest.substr(5)));
  }
  return f;
}

namespace {

/// The pc of one frame line of gdb's bt ("#1  0x000055d1c3a0b2c4 in main
/// () ..." -> 0x55d1c3a0b2c4), or 0 when the line carries none.
std::uint64_t programCounterOf(std::string_view line) {
  std::size_t i = 1;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
  line = trim(line.substr(i));
  if (!line.starts_with("0x")) return 0;
  const std::size_t end = line.find(' ');
  return parseHex(line.substr(2, end == std::string_view::npos ? std::string_view::npos : end - 2)).value_or(0);
}

}  // namespace

std::vector<GdbThread> parseAllThreads(std::string_view text) {
  std::vector<GdbThread> threads;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.starts_with("Thread ")) {
      GdbThread t;
      std::size_t i = 7;
      while (i < line.size() && line[i] >= '0' && line[i] <= '9' && t.number < 10000000)
        t.number = t.number * 10 + (line[i++] - '0');
      if (i == 7) continue;
      if (const std::size_t lwp = line.find("(LWP "); lwp != std::string_view::npos) {
        for (std::size_t k = lwp + 5; k < line.size() && line[k] >= '0' && line[k] <= '9' && t.tid < 100000000; ++k)
          t.tid = t.tid * 10 + (line[k] - '0');
      }
      if (const std::size_t q = line.find('"'); q != std::string_view::npos) {
        const std::size_t close = line.find('"', q + 1);
        if (close != std::string_view::npos) t.name = std::string(line.substr(q + 1, close - q - 1));
      }
      threads.push_back(std::move(t));
      continue;
    }
    if (threads.empty() || line.size() < 2 || line[0] != '#') continue;
    for (const std::string& frame : parseBacktrace(line)) {
      GdbFrame f = splitFrame(frame);
      f.pc = programCounterOf(line);
      threads.back().frames.push_back(std::move(f));
    }
  }
  return threads;
}

Expected<std::string> oneShotGdb(const std::string& gdbPath, pid_t pid, const std::string& command,
                                 std::chrono::milliseconds timeout) {
  auto child = gdbmi::ChildProcess::spawn(
      {gdbPath, "-nx", "-q", "-batch", "-p", std::to_string(pid), "-ex", command}, "gdb");
  if (!child) return std::unexpected(child.error());
  auto [out, err, timedOut] = child->readToEnd(timeout);
  if (timedOut) {
    child->kill();
    return fail("gdb did not print a backtrace of pid " + std::to_string(pid) + " within " +
                std::to_string(timeout.count() / 1000) + " s");
  }
  child->waitExit(std::chrono::milliseconds(2000));
  if (parseBacktrace(out).empty()) {
    std::string why = std::string(trim(err));
    if (const std::size_t nl = why.rfind('\n'); nl != std::string::npos) why = why.substr(nl + 1);
    return fail("gdb printed no frame for pid " + std::to_string(pid) + (why.empty() ? "" : ": " + why));
  }
  return out;
}

Expected<std::vector<std::string>> oneShotBacktrace(const std::string& gdbPath, pid_t pid, int depth,
                                                    std::chrono::milliseconds timeout) {
  auto out = oneShotGdb(gdbPath, pid, "bt " + std::to_string(depth), timeout);
  if (!out) return std::unexpected(out.error());
  return parseBacktrace(*out);
}

}  // namespace mpidbg::core
