#pragma once

// Parser for one line of gdb/MI output (GDB manual, "GDB/MI Output Syntax").

#include <cstddef>
#include <string_view>

#include "debugger/gdbmi/Record.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::gdbmi {

/// Turns one line of MI output into a Record. Stateless; safe to call from
/// many threads at once.
class Parser {
 public:
  /// Deepest tuple/list nesting accepted; deeper input is an Error (gdb's own
  /// output stays far below this).
  static constexpr std::size_t kMaxDepth = 128;

  /// Parses `line` (a trailing "\n", "\r" or "\r\n" is ignored). Accepts
  /// result, exec/status/notify async, console/target/log stream records and
  /// the `(gdb)` prompt (trailing blanks allowed). C-string escapes \n \t \r
  /// \" \\ \' \? \a \b \f \v \e, octal \NNN (1-3 digits) and hex \xHH (1-2
  /// digits) are decoded. A stream record whose text does not start with '"'
  /// is raw text with an implicit newline (`~raw` gives text "raw\n"), as the
  /// manual's "GDB/MI Stream Records" allows. After the class, a bare value
  /// where a result belongs (gdb's `+download,{...}`) is kept as a result
  /// with an empty name; inside tuples and lists the grammar is strict.
  /// Malformed input — empty line, unknown prefix, unterminated string, bad
  /// escape, missing '=', unbalanced brackets, trailing garbage, nesting
  /// deeper than kMaxDepth, token overflow — gives an Error whose message
  /// names the 0-based byte offset ("MI parse error at offset 7: ...").
  /// Never throws, never crashes on any byte sequence.
  static Expected<Record> parse(std::string_view line);
};

}  // namespace mpidbg::gdbmi
