#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/proto/QueueProtocol.hpp"
#include "debugger/core/mqs/MqsHost.hpp"
#include "debugger/core/mqs/SymbolSource.hpp"
#include "debugger/core/mqs/TargetMemory.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core::mqs {

/// One rank to read through an mqs DLL.
struct Target {
  /// MPI_COMM_WORLD rank; -1 = unknown: the reader then reads the runtime's
  /// root.world_rank (RuntimeState.hpp) and keeps -1 when that fails.
  int worldRank = -1;
  /// How to read the rank's memory (live, gdb or core); used only during the call.
  TargetMemory& memory;
  /// The rank's executable and libraries (symbols for the DLL's lookups).
  SymbolSource& symbols;
  /// The executable (the mqs image name in messages); "" = the symbol
  /// source's main executable.
  std::string executable;
  /// RankQueues::source to report; "" = "mqs:<DLL file name>".
  std::string source;
};

/// Appended to RankQueues::source when the DLL keeps no collective state
/// (no mqs_get_comm_coll_state, or it answered mqs_no_information for every
/// class): CommState counts are then 0 and the verdict must infer
/// collectives from stack frames (inferCollectiveFromFrames).
inline constexpr std::string_view kCollectivesFromFrames = " (collectives from frames)";

/// The message of mqs_image_has_queues / mqs_process_has_queues, a printf
/// format with one %s (mpi_interface.h), with the first %s replaced by
/// `image` and %% by %; everything else kept verbatim (no other conversion
/// is interpreted: the text comes from the DLL). Trailing whitespace is
/// dropped.
std::string formatQueuesMessage(std::string_view format, std::string_view image);

/// True when `q.source` carries kCollectivesFromFrames.
bool collectivesFromFrames(const ccs::proto::RankQueues& q);

/// Reads one rank's message queues and collective state through `host`
/// (mqs/include/mpi_interface.h): sets up an image and a process for the
/// target, asks mqs_image_has_queues / mqs_process_has_queues, walks every
/// communicator (group, pending sends, pending receives, unexpected messages
/// where the DLL sees them, mpidbg's pending collectives, collective state of
/// all 14 classes, collective sequence number) and, with mpidbg's
/// extensions, the current call and the collective history. The DLL's
/// per-image and per-process data are destroyed before returning.
/// Errors carry the DLL's own words: "<dll>: no message queues in <image>:
/// <the has_queues message with %s replaced by the image> [<the DLL's error
/// string> (mqs code N)]" (plus "; the target has no DWARF for type T" when
/// the DLL's type lookups failed, e.g. Open MPI against a stripped libmpi),
/// and "<dll>: mqs_next_operation failed on communicator <name>: <error
/// string>: <why the memory callback failed>". Holds host.lock() throughout.
/// Counts read from the DLL are bounded (communicators, operations, group
/// sizes, history records), so a hostile target cannot make it loop.
Expected<ccs::proto::RankQueues> readRankQueues(MqsHost& host, Target& target);

/// The collective class a stack is inside, from its frames (innermost
/// first): the first frame whose function is MPI_<Name> or PMPI_<Name> for
/// one of the 14 classes of ccs::proto::CollClass (Barrier, Bcast,
/// Allgather, Allgatherv, Allreduce, Alltoall, Alltoallv, Reduce_scatter,
/// Reduce, Gather, Gatherv, Scan, Scatter, Scatterv; Fortran spellings
/// mpi_barrier_ / MPI_BARRIER too). A frame may be a bare name or
/// "name(args) at file:line" / "#3 0x... in name (...)". nullopt when no
/// frame is such a call (nonblocking MPI_I* calls are not collectives in
/// progress).
std::optional<ccs::proto::CollClass> inferCollectiveFromFrames(
    const std::vector<std::string>& frames);

}  // namespace mpidbg::core::mqs
