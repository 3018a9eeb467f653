#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// The frames of gdb's `bt` console output, innermost first, without the
/// frame number and program counter: "#1  0x000055d1 in main () at x.c:20"
/// becomes "main () at x.c:20". Lines that are not frames are skipped.
std::vector<std::string> parseBacktrace(std::string_view text);

/// One frame of gdb's `bt` output, split into its parts: "func (a=1) at
/// x.c:20" -> function "func", file "x.c", line 20; "write () from
/// /lib/x86_64-linux-gnu/libc.so.6" -> function "write", module the library;
/// "?? ()" -> function "??".
struct GdbFrame {
  std::string function;
  std::string file;    ///< as gdb prints it; empty when gdb printed none
  int line = 0;        ///< 0 when gdb printed none
  std::string module;  ///< the "from LIB" part; empty when absent
  /// The frame's program counter as gdb printed it ("#1  0x000055d1 in
  /// ..."): the interrupted pc for frame 0 and past a signal trampoline,
  /// else a return address; 0 when gdb printed none (frame 0 at the start of
  /// a line, or an inlined frame, unless bt ran with -frame-info
  /// location-and-address).
  std::uint64_t pc = 0;
};
/// Splits one frame text as parseBacktrace() returns it.
GdbFrame splitFrame(std::string_view frameText);

/// One thread of gdb's `thread apply all bt` output.
struct GdbThread {
  int number = 0;              ///< gdb's thread number
  int tid = 0;                 ///< the LWP id; 0 when gdb printed none
  std::string name;            ///< the quoted thread name, if any
  std::vector<GdbFrame> frames;  ///< innermost first
};
/// Parses `thread apply all bt` output ("Thread 2 (Thread 0x7f.. (LWP 12)
/// "name"):" headers, each followed by its "#N ..." frames), in the order
/// printed. Text outside threads is ignored.
std::vector<GdbThread> parseAllThreads(std::string_view text);

/// Runs the backtrace command `command` ("bt 6", "thread apply all bt") as
/// `gdb -nx -q -batch -p PID -ex COMMAND` on live process `pid` (stopped for
/// the duration, resumed when gdb detaches) and returns gdb's standard
/// output. Errors: gdb cannot be started; "gdb did not print a backtrace of
/// pid N within S s" (killed after `timeout`); "gdb printed no frame for pid
/// N: <its last stderr line, e.g. ptrace: Operation not permitted.>".
Expected<std::string> oneShotGdb(const std::string& gdbPath, pid_t pid, const std::string& command,
                                 std::chrono::milliseconds timeout);

/// The top `depth` frames of the main thread of live process `pid`, from a
/// one-shot `gdb -nx -q -batch -p PID -ex "bt DEPTH"`: the process is stopped
/// for the duration (about half a second) and resumes when gdb detaches.
/// Errors: gdb cannot be started, times out (killed after `timeout`), or
/// prints no frame (with gdb's last error line, e.g. "ptrace: Operation not
/// permitted.").
Expected<std::vector<std::string>> oneShotBacktrace(const std::string& gdbPath, pid_t pid, int depth,
                                                    std::chrono::milliseconds timeout);

}  // namespace mpidbg::core
