#pragma once

// The process's record/replay state (Record.hpp), shared by Record.cpp (its
// start, finish, fatal-signal flush, divergence and the completions of
// wildcard MPI_Irecv), RecordHandler.cpp (`info record`) and
// RecordWrappers.cpp (the deciding paths of the wrappers). Internal to the
// runtime.

#include <mpi.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "Record.hpp"
#include "RecordLog.hpp"
#include "ReplayCursor.hpp"
#include "mpidbg/DecisionLog.hpp"

namespace mpidbg::rt::rec {

/// A wildcard MPI_Irecv not completed yet (recording): its request and its
/// ordinal among the rank's wildcard receives.
struct PendingIrecv {
  MPI_Request request;   ///< as MPI_Irecv returned it
  std::int64_t ordinal;  ///< 0, 1, ... per rank (nextIrecvOrdinal)
};

/// The process's record/replay state. Its mutex is never held across an MPI
/// call or a stop.
struct Decisions {
  std::mutex mutex;  ///< guards every member below
  int rank = 0;      ///< in MPI_COMM_WORLD (set by startDecisions)
  int size = 0;      ///< of MPI_COMM_WORLD (set by startDecisions)
  RecordLog log;                      ///< recording
  std::vector<PendingIrecv> pending;  ///< recording
  ReplayCursor cursor;                ///< replaying
  /// Ordinal of the next wildcard MPI_Irecv (recording and replaying).
  std::int64_t irecvOrdinal = 0;
};

/// The one state; never destroyed (fatal signals and atexit use it).
Decisions& state() noexcept;

/// True while decisions are written to a log (gDecisions).
inline bool recording() noexcept { return __atomic_load_n(&gDecisions, __ATOMIC_RELAXED) & kRecording; }
/// True while decisions are taken from a log (gDecisions).
inline bool replaying() noexcept { return __atomic_load_n(&gDecisions, __ATOMIC_RELAXED) & kReplaying; }

/// A decision of `kind` that matched the source and tag of `status`.
inline record::Decision match(record::DecisionKind kind, const MPI_Status& status) {
  record::Decision d;
  d.kind = kind;
  d.matched = true;
  d.source = status.MPI_SOURCE;
  d.tag = status.MPI_TAG;
  return d;
}

/// Appends `decision` to the log (recording only; a no-op otherwise). A
/// write error stops recording, saying so once on stderr.
void recordDecision(const record::Decision& decision) noexcept;

/// Replay stops here: reports `why` at `call` (stderr, and a stop event when
/// the debugger is attached, which holds the rank until continued; without
/// one the job is aborted). Replay is off for this rank afterwards: the call
/// runs as the program asked.
void diverge(const std::string& call, const std::string& why) noexcept;

/// The next decision replay holds for a call of `kind` (described by
/// `call` for a report), or nothing when the call runs as the program
/// asked: replay off, or diverged here (reported by diverge()).
std::optional<record::Decision> nextDecision(record::DecisionKind kind, const std::string& call) noexcept;

/// The recorded match of wildcard MPI_Irecv number `ordinal`, if the
/// recorded run saw it complete (replaying; ReplayCursor::irecvMatch).
std::optional<record::Decision> irecvMatch(std::int64_t ordinal) noexcept;

/// The ordinal of a wildcard MPI_Irecv being posted (0, 1, ... per rank).
std::int64_t nextIrecvOrdinal() noexcept;

/// Wildcard MPI_Irecv `ordinal` was posted as `request` (recording): its
/// completion will be recorded as an IrecvMatch.
void irecvPosted(MPI_Request request, std::int64_t ordinal) noexcept;

/// True when a recorded wildcard MPI_Irecv has not completed yet.
bool anyPendingIrecv() noexcept;

/// The request saved as `request` completed with `status`: when it was a
/// pending wildcard receive, its match is recorded (unless cancelled).
void irecvCompleted(MPI_Request request, const MPI_Status& status) noexcept;

/// The request handles of one MPI_Wait*/MPI_Test* call, saved before PMPI
/// overwrites them, and statuses to use when the program ignores its own
/// (only while a wildcard receive is pending: otherwise nothing is saved and
/// the program's arguments pass through).
class Completions {
 public:
  /// Saves `count` requests; `statusCount` statuses are provided when
  /// `statuses` is MPI_STATUS(ES)_IGNORE.
  Completions(const MPI_Request* requests, int count, MPI_Status* statuses, int statusCount);
  /// The status array to pass to PMPI (the program's, or ours).
  MPI_Status* statuses(MPI_Status* program) noexcept { return active_ ? statuses_ : program; }
  /// Request `index` completed with statuses()[statusIndex].
  void completed(int index, int statusIndex) noexcept;

 private:
  bool active_ = false;
  std::vector<MPI_Request> saved_;
  std::vector<MPI_Status> own_;
  MPI_Status* statuses_ = nullptr;
};

}  // namespace mpidbg::rt::rec
