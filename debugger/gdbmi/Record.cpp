#include "debugger/gdbmi/Record.hpp"

#include "debugger/gdbmi/CString.hpp"

namespace mpidbg::gdbmi {

std::string_view kindName(RecordKind kind) {
  switch (kind) {
    case RecordKind::Result:
      return "result";
    case RecordKind::ExecAsync:
      return "exec";
    case RecordKind::StatusAsync:
      return "status";
    case RecordKind::NotifyAsync:
      return "notify";
    case RecordKind::ConsoleStream:
      return "console";
    case RecordKind::TargetStream:
      return "target";
    case RecordKind::LogStream:
      return "log";
    case RecordKind::Prompt:
      return "prompt";
  }
  return "unknown";
}

std::string Record::toMi() const {
  std::string out;
  char prefix = 0;
  switch (kind) {
    case RecordKind::Prompt:
      return "(gdb)";
    case RecordKind::ConsoleStream:
      return "~" + quoteCString(text);
    case RecordKind::TargetStream:
      return "@" + quoteCString(text);
    case RecordKind::LogStream:
      return "&" + quoteCString(text);
    case RecordKind::Result:
      prefix = '^';
      break;
    case RecordKind::ExecAsync:
      prefix = '*';
      break;
    case RecordKind::StatusAsync:
      prefix = '+';
      break;
    case RecordKind::NotifyAsync:
      prefix = '=';
      break;
  }
  if (token) out += std::to_string(*token);
  out += prefix;
  out += recordClass;
  if (!results.empty()) {
    out += ',';
    out += resultsToMi(results);
  }
  return out;
}

}  // namespace mpidbg::gdbmi
