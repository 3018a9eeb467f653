#pragma once

#include <map>
#include <string>
#include <vector>

#include "ccs/StackProtocol.hpp"
#include "debugger/core/Backtrace.hpp"
#include "debugger/core/stacks/StackTree.hpp"

namespace mpidbg::core {

/// What `where` and `equiv` work from (Debugger::stacks): each rank's stacks
/// from its runtime (module + offset per frame, symbolized in the front end),
/// or, where the runtime cannot answer, from gdb (already symbolized by gdb),
/// or the reason there are none.
struct StackInput {
  std::vector<ccs::proto::RankStacks> captured;  ///< answered by the ranks' runtimes (kStacksHandler)
  std::map<int, std::vector<GdbThread>> viaGdb;  ///< rank -> its application threads as gdb printed them
  std::map<int, std::string> gdbReason;          ///< rank in viaGdb -> why gdb was asked ("held by gdb", ...)
  std::map<int, std::string> failed;             ///< rank -> why nothing could be read
};

/// How much of each stack goes into the tree.
enum class StackDepth {
  /// From `main` (or `start_thread` for other threads; the C library's
  /// start-up frames above it left out, as gdb leaves them out) down to the
  /// outermost MPI_* / PMPI_* frame: MPI library and runtime internals are
  /// left out, so "main > solve > MPI_Allreduce" is the leaf whether the
  /// rank polls, sleeps or is inside the progress engine; a rank held by
  /// freeze --now shows where it was interrupted (cutRuntimeHandler).
  ToMpiCall,
  /// Every frame, from _start down to the innermost (futex, poll,
  /// ucp_worker_progress).
  All,
};

/// Builds the merged tree (STAT's call-prefix tree) of `input`: captured
/// stacks symbolized with `symbolizer`, gdb's frames as gdb named them,
/// failures kept with their reasons. The runtime's own helper threads (named
/// "mpidbg-...") are left out of gdb's threads as the runtime leaves them out
/// of its own.
stacks::StackTree buildStackTree(const StackInput& input, stacks::NodeKey key, StackDepth depth,
                                 stacks::Symbolizer& symbolizer);

/// `frames` (innermost first) cut below the outermost frame whose function
/// is an MPI entry point (MPI_*, PMPI_* or the runtime's MPI_*_slow, all
/// shown as MPI_*): what StackDepth::ToMpiCall keeps. Unchanged when no
/// frame is one.
std::vector<stacks::SymbolFrame> cutAtMpiCall(std::vector<stacks::SymbolFrame> frames);

/// `frames` (innermost first) without the runtime's own signal handler: when
/// a frame inside the innermost signal trampoline (`__restore_rt`, gdb's
/// "<signal handler called>") is the runtime's (mpidbg::rt::..., the
/// freeze --now handler holding the rank), that handler and the trampoline
/// go, and the interrupted frame is the leaf. Unchanged otherwise (the
/// application's own handlers stay).
std::vector<stacks::SymbolFrame> cutRuntimeHandler(std::vector<stacks::SymbolFrame> frames);

/// `frames` (innermost first) without the frames outer of the outermost
/// `main` or `start_thread` (_start, __libc_start_main, clone3). Unchanged
/// when neither is there.
std::vector<stacks::SymbolFrame> cutAboveMain(std::vector<stacks::SymbolFrame> frames);

/// The stacks of a thread-level violation (ccs::proto::Event::stacks: the
/// offending thread first, then the other one), one line per thread,
/// outermost frame first and cut as `where` cuts them (at the MPI call, above
/// main): "    thread 4312 (app): main > solve > MPI_Allreduce (solve.c:42)",
/// the place being the MPI call's caller. No trailing newline; "" for an
/// empty `encoded`, one line with the reason when it does not decode.
/// Symbolizes with one process-wide Symbolizer, under a mutex.
std::string renderViolationStacks(const std::string& encoded);

}  // namespace mpidbg::core
