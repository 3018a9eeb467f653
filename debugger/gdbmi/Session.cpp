#include "debugger/gdbmi/Session.hpp"

#include <signal.h>

#include <algorithm>
#include <array>
#include <utility>

#include "debugger/gdbmi/CString.hpp"
#include "debugger/gdbmi/Parser.hpp"
#include "mpidbg/Deadline.hpp"

namespace mpidbg::gdbmi {
namespace {

using Clock = LineReader::Clock;
using std::chrono::milliseconds;

/// Async records kept for takeEvents() before the oldest are dropped.
constexpr std::size_t kMaxEvents = 1024;

std::string ms(milliseconds t) { return std::to_string(t.count()) + " ms"; }

std::string lastLine(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  const std::size_t nl = text.rfind('\n');
  return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

/// gdb's message for an ^error, with what it means appended where gdb's own
/// words do not say it. gdb 13 (Debian 12's) sizes the x86 XSAVE area for
/// registers up to AVX-512; on a CPU with AMX tile registers (Intel Sapphire
/// Rapids and later) the kernel's PTRACE_SETREGSET then fails with EFAULT, so
/// every expression that calls a function in the process fails (fixed in gdb
/// 14). Reading memory and registers still works.
std::string explainError(std::string message) {
  if (message.find("Couldn't write extended state status") != std::string::npos)
    message += " (this gdb cannot call functions in a process on a CPU with AMX registers, a gdb 13 limit "
               "fixed in gdb 14: print values without calling functions, or give mpidbg --gdb PATH of a newer gdb)";
  return message;
}

}  // namespace

Session::Session(ChildProcess gdb)
    : gdb_(std::move(gdb)), reader_(gdb_.stdoutFd(), gdb_.stderrFd()) {}

Expected<std::unique_ptr<Session>> Session::start(const SessionOptions& options) {
  std::vector<std::string> argv = {options.gdbPath, "--interpreter=mi3", "-nx", "-q"};
  argv.insert(argv.end(), options.extraArgs.begin(), options.extraArgs.end());
  auto child = ChildProcess::spawn(argv, "gdb");
  if (!child) {
    std::string message = child.error().message;
    if (options.gdbPath != "gdb") message += " (" + options.gdbPath + ")";
    return fail(std::move(message));
  }
  std::unique_ptr<Session> session(new Session(std::move(*child)));

  const auto deadline = Clock::now() + options.startTimeout;
  while (true) {
    auto record =
        session->readRecord(deadline, "gdb printed no prompt within " + ms(options.startTimeout));
    if (!record) return fail("cannot start gdb: " + record.error().message);
    if (record->kind == RecordKind::Prompt) break;
    if (record->isAsync()) {
      session->noteAsync(*record);
      session->events_.push_back(std::move(*record));
    }
  }

  static constexpr std::array<std::string_view, 5> kSetup = {
      "-gdb-set pagination off", "-gdb-set confirm off", "-gdb-set width 0", "-gdb-set height 0",
      "-gdb-set debuginfod enabled off"};
  for (std::string_view setting : kSetup) {
    auto reply = session->command(setting, options.startTimeout);
    if (!reply) return fail("cannot start gdb: " + reply.error().message);
    // Older gdbs lack debuginfod; that setting is best effort.
    if (reply->isError() && !setting.starts_with("-gdb-set debuginfod")) {
      return fail("cannot start gdb: '" + std::string(setting) +
                  "' failed: " + reply->errorMessage());
    }
  }
  return session;
}

Session::~Session() {
  if (!deadMessage_ && gdb_.running()) {
    // Ask gdb to quit (it detaches from attached processes), draining its
    // output meanwhile so it cannot block on a full pipe; then kill.
    const auto deadline = Clock::now() + milliseconds(1500);
    if (gdb_.writeAll("-gdb-exit\n", milliseconds(200))) {
      while (gdb_.running() && Clock::now() < deadline) {
        auto line = reader_.readLine(std::min(deadline, Clock::now() + milliseconds(20)));
        if (!line && line.error() == LineReader::Failure::Closed) break;
      }
      gdb_.waitExit(timeLeft(deadline));
    }
  }
  gdb_.kill();
}

Error Session::gdbGone() {
  if (!deadMessage_) {
    if (!gdb_.waitExit(milliseconds(1000))) gdb_.kill();
    std::string message = "gdb " + gdb_.describeExit();
    const std::string why = lastLine(reader_.stderrTail());
    if (!why.empty()) message += ": " + why;
    deadMessage_ = std::move(message);
  }
  return Error{*deadMessage_};
}

Expected<Record> Session::readRecord(Clock::time_point deadline, std::string_view timeoutMessage) {
  while (true) {
    auto line = reader_.readLine(deadline);
    if (!line) {
      if (line.error() == LineReader::Failure::Closed) return std::unexpected(gdbGone());
      return fail(std::string(timeoutMessage));
    }
    if (line->empty() || *line == "\r") continue;
    auto record = Parser::parse(*line);
    if (record) return record;
    // Not MI: the inferior's own output on gdb's stdout. Pass it on as target text.
    Record raw;
    raw.kind = RecordKind::TargetStream;
    raw.text = std::move(*line) + "\n";
    return raw;
  }
}

void Session::noteAsync(const Record& record) {
  if (record.kind == RecordKind::ExecAsync) {
    if (record.recordClass == "running") stopped_ = false;
    if (record.recordClass == "stopped") stopped_ = true;
  } else if (record.kind == RecordKind::NotifyAsync &&
             record.recordClass == "thread-group-exited" &&
             record.results.getString("exit-code") != nullptr) {
    attached_.reset();  // the attached process itself exited
  }
}

Expected<Reply> Session::command(std::string_view miCommand, milliseconds timeout) {
  if (deadMessage_) return fail(*deadMessage_);
  if (miCommand.find_first_of("\r\n") != std::string_view::npos) {
    return fail("an MI command must be one line");
  }
  const auto deadline = Clock::now() + timeout;
  const std::uint64_t token = nextToken_++;
  const std::string line = std::to_string(token) + std::string(miCommand) + "\n";
  if (auto sent = gdb_.writeAll(line, timeout); !sent) {
    // A gdb that is dying closes its input before the kernel reports its
    // exit: give it a moment to be reaped, so the error says how it ended.
    if (gdb_.waitExit(milliseconds(1000))) return std::unexpected(gdbGone());
    return fail("cannot send '" + std::string(miCommand) + "' to gdb: " + sent.error().message);
  }
  Reply reply;
  reply.asyncs = std::exchange(events_, {});
  const std::string timeoutMessage =
      "gdb did not answer '" + std::string(miCommand) + "' within " + ms(timeout);
  while (true) {
    auto record = readRecord(deadline, timeoutMessage);
    if (!record) return std::unexpected(record.error());
    switch (record->kind) {
      case RecordKind::Result:
        if (record->token != token) {
          // A late answer to a timed-out command: the stream text read so
          // far was its output, not this command's.
          reply.console.clear();
          reply.target.clear();
          reply.log.clear();
          break;
        }
        reply.resultClass = std::move(record->recordClass);
        reply.results = std::move(record->results);
        return reply;
      case RecordKind::ExecAsync:
      case RecordKind::StatusAsync:
      case RecordKind::NotifyAsync:
        noteAsync(*record);
        reply.asyncs.push_back(std::move(*record));
        break;
      case RecordKind::ConsoleStream:
        reply.console += record->text;
        break;
      case RecordKind::TargetStream:
        reply.target += record->text;
        break;
      case RecordKind::LogStream:
        reply.log += record->text;
        break;
      case RecordKind::Prompt:
        break;
    }
  }
}

Expected<Reply> Session::consoleReply(std::string_view cliCommand, milliseconds timeout) {
  auto reply = command("-interpreter-exec console " + quoteCString(cliCommand), timeout);
  if (!reply) return std::unexpected(reply.error());
  if (reply->isError()) {
    std::string message = explainError(reply->errorMessage());
    if (message.empty()) message = "gdb rejected '" + std::string(cliCommand) + "'";
    return fail(std::move(message));
  }
  return reply;
}

Expected<std::string> Session::console(std::string_view cliCommand, milliseconds timeout) {
  auto reply = consoleReply(cliCommand, timeout);
  if (!reply) return std::unexpected(reply.error());
  return std::move(reply->console);
}

Expected<std::string> Session::consoleUntilStopped(std::string_view cliCommand, milliseconds timeout,
                                                   milliseconds runTimeout) {
  auto reply = consoleReply(cliCommand, timeout);
  if (!reply) return std::unexpected(reply.error());
  std::string text = std::move(reply->console);
  if (reply->resultClass != "running") return text;
  auto stopped = readUntilStopped(Clock::now() + runTimeout, text);
  if (!stopped) return std::unexpected(stopped.error());
  if (*stopped) return text;
  const std::string still = "still running after " + ms(runTimeout);
  if (remote_ || !attached_) return fail(still);
  // To the main thread: a process-wide SIGINT goes to whichever thread runs,
  // often MPI's progress thread while gdb single-steps the main one, and gdb
  // then reports the stop (and selects) that thread.
  ::tgkill(*attached_, *attached_, SIGINT);
  stopped = readUntilStopped(Clock::now() + std::chrono::seconds(5), text);
  if (!stopped) return std::unexpected(stopped.error());
  if (!*stopped) return fail(still + ", and did not stop on SIGINT");
  return text + "(" + still + ": " + std::string(kInterruptedNote) + ")\n";
}

Expected<bool> Session::readUntilStopped(Clock::time_point deadline, std::string& text) {
  while (true) {
    auto record = readRecord(deadline, "");
    if (!record) {
      if (!gdb_.running() || deadMessage_) return std::unexpected(record.error());
      return false;
    }
    if (record->kind == RecordKind::ConsoleStream) text += record->text;
    if (!record->isAsync()) continue;
    noteAsync(*record);
    if (record->kind == RecordKind::ExecAsync && record->recordClass == "stopped") return true;
    if (events_.size() >= kMaxEvents) events_.erase(events_.begin());
    events_.push_back(std::move(*record));
  }
}

Expected<void> Session::attach(pid_t pid, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const std::string what = "cannot attach to pid " + std::to_string(pid) + ": ";
  stopped_ = false;
  auto reply = command("-target-attach " + std::to_string(pid), timeout);
  if (!reply) return fail(what + reply.error().message);
  if (reply->isError()) return fail(what + reply->errorMessage());
  attached_ = pid;
  if (!stopped_) {
    auto stop = waitForAsync("stopped", timeLeft(deadline));
    if (!stop) return fail(what + stop.error().message);
  }
  return {};
}

Expected<void> Session::connectRemote(const std::string& host, std::uint16_t port,
                                      milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const std::string address =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  const std::string what = "cannot connect to gdbserver at " + address + ": ";
  stopped_ = false;
  auto reply = command("-target-select extended-remote " + address, timeout);
  if (!reply) return fail(what + reply.error().message);
  if (reply->isError()) return fail(what + reply->errorMessage());
  // A gdbserver started with --attach reports its process as stopped; one
  // started with --multi has none yet (its thread-group stays unattached).
  const bool hasProcess = std::any_of(reply->asyncs.begin(), reply->asyncs.end(), [](const Record& r) {
    return r.recordClass == "thread-group-started";
  });
  if (hasProcess && !stopped_) {
    auto stop = waitForAsync("stopped", timeLeft(deadline));
    if (!stop) return fail(what + stop.error().message);
  }
  remote_ = true;
  return {};
}

Expected<void> Session::detach(milliseconds timeout) {
  auto reply = command("-target-detach", timeout);
  if (!reply) return fail("cannot detach: " + reply.error().message);
  if (reply->isError()) return fail("cannot detach: " + reply->errorMessage());
  attached_.reset();
  stopped_ = false;
  return {};
}

Expected<Record> Session::waitForAsync(std::string_view asyncClass, milliseconds timeout) {
  auto queued = std::find_if(events_.begin(), events_.end(),
                             [&](const Record& r) { return r.recordClass == asyncClass; });
  if (queued != events_.end()) {
    Record found = std::move(*queued);
    events_.erase(queued);
    return found;
  }
  if (deadMessage_) return fail(*deadMessage_);
  const auto deadline = Clock::now() + timeout;
  const std::string timeoutMessage =
      "gdb printed no *" + std::string(asyncClass) + " record within " + ms(timeout);
  while (true) {
    auto record = readRecord(deadline, timeoutMessage);
    if (!record) return std::unexpected(record.error());
    if (!record->isAsync()) continue;  // stream text outside a command is dropped
    noteAsync(*record);
    if (record->recordClass == asyncClass) return std::move(*record);
    if (events_.size() >= kMaxEvents) events_.erase(events_.begin());
    events_.push_back(std::move(*record));
  }
}

std::vector<Record> Session::takeEvents() { return std::exchange(events_, {}); }

bool Session::alive() { return !deadMessage_ && gdb_.running(); }

}  // namespace mpidbg::gdbmi
