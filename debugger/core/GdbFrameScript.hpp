#pragma once

// The gdb Python script every gdb session of the GdbPool loads, so that gdb
// lands in the application's code rather than in mpidbg's runtime, the MPI
// library or libc. It uses gdb's Python API (events.stop, frame filters,
// FrameDecorator: gdb manual, "Python API").

#include <string>

namespace mpidbg::core {

/// The name of the gdb command the script defines: selects the innermost
/// frame of the application (the first normal frame, from the innermost,
/// whose object is not machinery by stacks::objectRole()); leaves the
/// selection alone when every frame is machinery. The script also runs it
/// after every stop (gdb.events.stop).
inline constexpr const char* kSelectUserFrameCommand = "mpidbg-select-user-frame";

/// The name of the script's frame filter (gdb: `info frame-filter`,
/// `disable frame-filter global mpidbg-runtime`): it folds each run of
/// frames in libmpidbg-rt into one line "[mpidbg runtime: N frames]" in
/// `backtrace`; `backtrace -no-filters` shows every frame.
inline constexpr const char* kRuntimeFrameFilter = "mpidbg-runtime";

/// The script's Python source (the machinery table of stacks/Machinery.hpp
/// written into it).
std::string gdbFrameScript();

/// One gdb console command that runs gdbFrameScript(): `python exec('...')`
/// with the source as a Python string literal. Fails in a gdb without
/// Python ("Python scripting is not supported in this copy of GDB.").
std::string gdbFrameScriptCommand();

}  // namespace mpidbg::core
