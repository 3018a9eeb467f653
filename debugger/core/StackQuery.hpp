#pragma once

#include <map>
#include <string>
#include <vector>

#include "ccs/proto/StackProtocol.hpp"
#include "debugger/core/Backtrace.hpp"
#include "debugger/core/stacks/ProcessModules.hpp"
#include "debugger/core/stacks/StackTree.hpp"

namespace mpidbg::core {

/// What `where` and `equiv` work from (Debugger::stacks): each rank's stacks
/// from its runtime (module + offset per frame, symbolized in the front end),
/// or, where the runtime cannot answer, from gdb (its pcs symbolized in the
/// front end too when the process's modules are known, else as gdb named
/// them), or the reason there are none.
struct StackInput {
  std::vector<ccs::proto::RankStacks> captured;  ///< answered by the ranks' runtimes (kStacksHandler)
  std::map<int, std::vector<GdbThread>> viaGdb;  ///< rank -> its application threads as gdb printed them
  std::map<int, std::string> gdbReason;          ///< rank in viaGdb -> why gdb was asked ("held by gdb", ...)
  /// rank in viaGdb -> the modules of its process, when it runs on this host
  /// and its maps could be read: gdb's pcs are then symbolized like captured
  /// frames (symbolizeGdbThread), so identical stacks merge.
  std::map<int, stacks::ProcessModules> gdbModules;
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

/// Which threads go into the tree.
enum class ThreadChoice {
  /// The application's threads: a thread other than the main thread is left
  /// out when every frame of it lies in the machinery (stacks/Machinery.hpp:
  /// the runtime, the MPI library and its transports, libc) and at least one
  /// in the runtime or the MPI library: UCX's progress thread
  /// (start_thread > ucs_event_set_wait > epoll_wait), Open MPI's libevent
  /// and PMIx threads. A frame whose object is unknown (a pc in no module; a
  /// gdb frame of a process whose modules are not known, printed without
  /// "from LIB") keeps its thread.
  Application,
  All,  ///< every thread (`where --all-threads`)
};

/// Threads buildStackTree left out, for the note that says so.
struct HiddenThreads {
  RankSet ranks;            ///< ranks with at least one thread left out
  std::size_t threads = 0;  ///< threads left out, over all ranks
};

/// Builds the merged tree (STAT's call-prefix tree) of `input`: captured
/// stacks and gdb's frames symbolized with `symbolizer` (symbolizeGdbThread),
/// failures kept with their reasons. The runtime's own helper threads (named
/// "mpidbg-...") are left out of gdb's threads as the runtime leaves them out
/// of its own; the machinery's threads as `threads` says, counted in
/// `hidden` when given. In every thread the unknown callee of
/// `__libc_start_call_main` / `__libc_start_main` is named `main` (a binary
/// without symbols); with NodeKey::Function, runs of unknown frames of one
/// object become one frame "?? xN" (labelled "?? x17 (nwchem.mpich)").
stacks::StackTree buildStackTree(const StackInput& input, stacks::NodeKey key, StackDepth depth,
                                 stacks::Symbolizer& symbolizer,
                                 ThreadChoice threads = ThreadChoice::Application,
                                 HiddenThreads* hidden = nullptr);

/// The frames of one thread gdb printed, innermost first, as the runtime's
/// captures of the same stack would give them: each pc located in `modules`
/// and symbolized by `symbolizer` (an inlined chain gdb printed as frames of
/// one pc becomes the symbolizer's expansion of it; frame 0 and the frame
/// past "<signal handler called>" are exact pcs, the others return
/// addresses). A frame without a pc, the trampoline itself, and every frame
/// when `modules` is nullptr keep gdb's names (module only from gdb's "from
/// LIB"); a pc the module's tables cannot name keeps gdb's name.
std::vector<stacks::SymbolFrame> symbolizeGdbThread(const GdbThread& thread, const stacks::ProcessModules* modules,
                                                    stacks::Symbolizer& symbolizer);

/// `frames` (innermost first) with an unknown ("??") frame whose caller is
/// glibc's `__libc_start_call_main` or `__libc_start_main` named `main`.
std::vector<stacks::SymbolFrame> nameMain(std::vector<stacks::SymbolFrame> frames);

/// `frames` (innermost first) with each run of two or more consecutive
/// unknown ("??") frames of one module made one frame, function "?? xN"
/// (N frames), keeping the innermost frame's module and offset.
std::vector<stacks::SymbolFrame> foldUnknownRuns(std::vector<stacks::SymbolFrame> frames);

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

/// Where each rank of `input` made the MPI call it is in: the caller of the
/// outermost MPI_* / PMPI_* frame of its main thread, or, when the main
/// thread is in no MPI call, of the first other thread that is (a program
/// whose MPI calls are made by a thread of its own), as "deadlock.c:19 in
/// main" (file without its directory), "solver+0x1a2b in solve" when the
/// binary has no line information, "solver+0x1a2b in ??" without symbols
/// ("?? (solver)" from gdb, which gives no offset). Ranks whose threads were
/// not read are left out. Captured stacks are symbolized with `symbolizer`;
/// gdb's frames are taken as gdb named them. A rank with no thread in MPI (a
/// rank polling between two MPI_Test calls) gives its main thread's
/// innermost frame in the application's code.
std::map<int, std::string> mpiCallSites(const StackInput& input, stacks::Symbolizer& symbolizer);

/// The stacks of a thread-level violation (ccs::proto::Event::stacks: the
/// offending thread first, then the other one), one line per thread,
/// outermost frame first and cut as `where` cuts them (at the MPI call, above
/// main): "    thread 4312 (app): main > solve > MPI_Allreduce (solve.c:42)",
/// the place being the MPI call's caller. No trailing newline; "" for an
/// empty `encoded`, one line with the reason when it does not decode.
/// Symbolizes with one process-wide Symbolizer, under a mutex.
/// `sites`: per thread, in the same order, where its MPI call was made
/// ("solve.c:42"; "" when unknown), for the join with `mpidbg check`.
struct ViolationStacks {
  std::string text;
  std::vector<std::string> sites;
};
ViolationStacks renderViolationStacks(const std::string& encoded);

}  // namespace mpidbg::core
