#pragma once

// C-string quoting for gdb/MI command arguments (GDB manual, "GDB/MI Input
// Syntax": a c-string is a double-quoted string with C escapes).

#include <string>
#include <string_view>

namespace mpidbg::gdbmi {

/// Escapes `text` for use inside an MI c-string: backslash and double quote
/// are backslashed, \n \t \r get their C escapes, other bytes below 0x20 and
/// 0x7f become three-digit octal escapes. Bytes >= 0x80 pass through.
/// Never fails. Does not add the surrounding quotes.
std::string escapeCString(std::string_view text);

/// `"` + escapeCString(text) + `"`: a complete MI c-string argument, e.g. for
/// `-interpreter-exec console "bt 5"`.
std::string quoteCString(std::string_view text);

}  // namespace mpidbg::gdbmi
