#pragma once

// Keeping the pending-operation table (OpTable) in step with the
// application's requests: recording them when issued, and marking and
// completing them around MPI_Wait* / MPI_Test*.

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <type_traits>

#include "CallScope.hpp"

namespace mpidbg::rt {

/// The request of a point-to-point operation just issued.
struct PointToPoint {
  MpiFunction function = MpiFunction::None;
  std::uint32_t kind = MPIDBG_OP_SEND;  ///< enum mpidbg_op_kind
  /// enum mpidbg_op_flags: MPIDBG_OP_PERSISTENT for MPI_*_init (recorded
  /// inactive; anything else is recorded active), MPIDBG_OP_SYNCHRONOUS.
  std::uint32_t flags = 0;
  const void* buffer = nullptr;
  int count = 0;
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  int peer = 0;  ///< raw MPI dest/source
  int tag = 0;   ///< raw MPI tag
  MPI_Comm comm = MPI_COMM_NULL;
};

/// Records the operation `op` whose request is `request` (after the PMPI
/// call succeeded; MPI threads). Registers the communicator if unseen.
void recordPointToPoint(Runtime& rt, const PointToPoint& op, MPI_Request request) noexcept;

/// Records the request-based one-sided operation `function` (MPI_Rput,
/// MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate and their _c forms) on the
/// window of handle key `winKey` whose request is `request`: kind
/// MPIDBG_OP_RMA, peer the `target` rank of the window, `count` origin
/// elements (-1: not one int), no tag. An MPI_Wait on it then names the
/// operation, and the verdict waits on it as on a flush of that target.
void recordOneSided(Runtime& rt, MpiFunction function, std::uint64_t winKey, int target, int count,
                    MPI_Datatype datatype, const void* buffer, MPI_Request request) noexcept;

/// count * size of `datatype` in bytes, or -1 when unknown (count < 0,
/// MPI_DATATYPE_NULL, an error). Predefined datatypes are answered from a
/// table filled once (their sizes never change); others ask PMPI_Type_size.
std::int64_t elementBytes(int count, MPI_Datatype datatype) noexcept;

/// An outermost MPI_Test* on `count` requests at `requests`, or MPI_Iprobe
/// or MPI_Improbe (`function`) on (`source`, `tag`, `comm`), of `rt` (nullptr: not outermost or inert,
/// nothing to do), entered at `entryNs` (call-clock ticks), returned: tells
/// the rank's PollWatch whether it completed a request or found a message
/// (`done`), or missed; a streak of misses is how a polling rank waits.
void notePoll(Runtime* rt, MpiFunction function, const MPI_Request* requests, int count, std::int64_t entryNs,
              bool done) noexcept;
void noteProbePoll(Runtime* rt, MpiFunction function, int source, int tag, MPI_Comm comm, std::int64_t entryNs,
                   bool done) noexcept;

/// One nonblocking or persistent collective call as its wrapper describes it
/// (NonblockingWrappers.cpp, PersistentCollectives.cpp), for counting,
/// publishing and recording.
struct CollectiveCall {
  MpiFunction function;
  ccs::proto::CollClass collClass;
  MPI_Comm comm;
  bool rooted = false;
  int root = -1;   ///< raw root argument when rooted
  int count = -1;  ///< elements a condition, the history and the queues see; -1 if not one number
  MPI_Datatype datatype = MPI_DATATYPE_NULL;  ///< of `count`
  const void* buffer = nullptr;
};

/// Records the persistent collective `function` of `collClass` whose
/// request `request` its init call (MPI_Bcast_init, ...) made: inactive, not
/// counted; each MPI_Start* counts it (startPersistentCollective). `root` -1
/// when unrooted. Registers the communicator if unseen.
void recordPersistentCollective(Runtime& rt, MpiFunction function, ccs::proto::CollClass collClass, MPI_Comm comm,
                                int root, int count, MPI_Datatype datatype, const void* buffer,
                                MPI_Request request) noexcept;

/// MPI_Start* started the persistent collective `op`: counts one call of its
/// class on its communicator (entry, collSeq, a history record), as a
/// nonblocking collective's issue is counted, and activates `op`, whose
/// completion counts the exit. A communicator freed since the init: only
/// activated.
void startPersistentCollective(Runtime& rt, OpRecord& op) noexcept;

/// Records the nonblocking collective `function` of `collClass` whose
/// request is `request`, as counted at issue (`issued`); `root` -1 when
/// unrooted. When it cannot be recorded (`request` MPI_REQUEST_NULL: the
/// issue failed; or the table is full), counts its exit at once so the class
/// does not look active forever. `collClass` nullopt: a collective in no
/// class (CallScope::issueInNoClass; recorded with coll_class -1), whose
/// record carries only its place in the communicator's collective sequence.
void recordCollective(Runtime& rt, MpiFunction function, std::optional<ccs::proto::CollClass> collClass,
                      const CallScope::Issued& issued, MPI_Comm comm, int root, int count,
                      MPI_Datatype datatype, const void* buffer, MPI_Request request) noexcept;

/// The requests named by one MPI_Wait*/MPI_Test* call and the operations
/// recorded for them. Construct before the PMPI call (it saves the handles,
/// which PMPI may overwrite with MPI_REQUEST_NULL, and marks the operations
/// WAITED); report what the call says completed; the destructor settles the
/// rest: a request whose handle became MPI_REQUEST_NULL completed, any
/// other is no longer waited on. With `rt` nullptr (inert, nested, nothing
/// recorded) every member is a no-op. Allocates only past kInline requests
/// (a per-thread buffer, reused).
class WaitedOps {
 public:
  /// Requests kept without allocating.
  static constexpr int kInline = 32;

  WaitedOps(Runtime* rt, MPI_Request* requests, int count) noexcept;
  ~WaitedOps();
  WaitedOps(const WaitedOps&) = delete;
  WaitedOps& operator=(const WaitedOps&) = delete;

  /// Request `index` completed (MPI_Waitany's index, MPI_Test's flag, ...).
  /// Out-of-range indices (MPI_UNDEFINED) are ignored.
  void completed(int index) noexcept;
  /// Every request completed (MPI_Wait*/Testall success).
  void completedAll() noexcept;

 private:
  /// Trivial (no initializers): the inline buffer costs nothing when unused.
  struct Entry {
    std::uint64_t handle;
    OpRecord* op;
    bool done;
  };

  Runtime* rt_;
  MPI_Request* requests_;
  int count_ = 0;
  Entry* entries_ = nullptr;
  Entry inline_[kInline];
};

}  // namespace mpidbg::rt
