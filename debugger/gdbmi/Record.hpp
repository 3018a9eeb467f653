#pragma once

// One line of gdb/MI output, typed (GDB manual, "GDB/MI Output Syntax" and
// "GDB/MI Output Records").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "debugger/gdbmi/Value.hpp"

namespace mpidbg::gdbmi {

/// What kind of output record a line is; the comment gives its prefix.
enum class RecordKind {
  Result,         ///< `[token]^class[,results]`: the answer to one command.
  ExecAsync,      ///< `[token]*class[,results]`: target state (running, stopped).
  StatusAsync,    ///< `[token]+class[,results]`: progress of slow operations.
  NotifyAsync,    ///< `[token]=class[,results]`: library, thread, breakpoint news.
  ConsoleStream,  ///< `~"text"`: CLI output meant for the user.
  TargetStream,   ///< `@"text"`: output of the running program.
  LogStream,      ///< `&"text"`: gdb's own log and error text.
  Prompt,         ///< `(gdb)`: end of one batch of output.
};

/// Short name of a kind, for messages ("result", "exec", "console", ...).
std::string_view kindName(RecordKind kind);

/// One parsed line. Which fields are meaningful depends on `kind`:
/// result and async records use `token`, `recordClass` and `results`;
/// stream records use only `text`; a prompt uses nothing.
struct Record {
  RecordKind kind = RecordKind::Prompt;
  /// The numeric token the command was sent with, if the line carried one.
  std::optional<std::uint64_t> token;
  /// Result class ("done", "running", "connected", "error", "exit") or async
  /// class ("stopped", "thread-group-added", ...).
  std::string recordClass;
  /// The `,name=value` pairs after the class, in order.
  Tuple results;
  /// Stream text with C escapes already decoded.
  std::string text;

  /// True for exec, status and notify async records.
  bool isAsync() const {
    return kind == RecordKind::ExecAsync || kind == RecordKind::StatusAsync ||
           kind == RecordKind::NotifyAsync;
  }
  /// True for console, target and log stream records.
  bool isStream() const {
    return kind == RecordKind::ConsoleStream || kind == RecordKind::TargetStream ||
           kind == RecordKind::LogStream;
  }
  /// Renders the record back as one MI line (no newline). Parsing the
  /// rendering gives an equal record.
  std::string toMi() const;

  friend bool operator==(const Record&, const Record&) = default;
};

}  // namespace mpidbg::gdbmi
