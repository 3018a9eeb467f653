#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// The frames of gdb's `bt` console output, innermost first, without the
/// frame number and program counter: "#1  0x000055d1 in main () at x.c:20"
/// becomes "main () at x.c:20". Lines that are not frames are skipped.
std::vector<std::string> parseBacktrace(std::string_view text);

/// The top `depth` frames of the main thread of live process `pid`, from a
/// one-shot `gdb -nx -q -batch -p PID -ex "bt DEPTH"`: the process is stopped
/// for the duration (about half a second) and resumes when gdb detaches.
/// Errors: gdb cannot be started, times out (killed after `timeout`), or
/// prints no frame (with gdb's last error line, e.g. "ptrace: Operation not
/// permitted.").
Expected<std::vector<std::string>> oneShotBacktrace(const std::string& gdbPath, pid_t pid, int depth,
                                                    std::chrono::milliseconds timeout);

}  // namespace mpidbg::core
