#pragma once

#include <string>
#include <vector>

#include "debugger/gdbmi/Record.hpp"
#include "debugger/gdbmi/Value.hpp"

namespace mpidbg::gdbmi {

/// Everything gdb printed in answer to one MI command: the result record
/// plus the stream text and async records that arrived before it.
struct Reply {
  /// "done", "running", "connected", "error" or "exit".
  std::string resultClass;
  /// The result record's `name=value` pairs (e.g. stack=[...], msg="...").
  Tuple results;
  /// Concatenated `~` console stream text, escapes decoded.
  std::string console;
  /// Concatenated `@` target stream text plus any non-MI lines (the
  /// inferior's own output when it shares gdb's stdout), one per line.
  std::string target;
  /// Concatenated `&` log stream text (gdb echoes and error text).
  std::string log;
  /// Exec, status and notify async records, in arrival order.
  std::vector<Record> asyncs;

  /// True when gdb answered ^error.
  bool isError() const { return resultClass == "error"; }
  /// gdb's `msg` for an ^error (empty if absent or not an error).
  std::string errorMessage() const {
    if (!isError()) return {};
    const std::string* msg = results.getString("msg");
    return msg ? *msg : std::string();
  }
};

}  // namespace mpidbg::gdbmi
