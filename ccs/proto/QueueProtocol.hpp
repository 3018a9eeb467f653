#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/proto/Field.hpp"
#include "ccs/proto/RankProtocol.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::proto {

/// The message-queue and collective state of one rank: what the hang verdict
/// (debugger/core) works from. Two sources fill it: the runtime's CCS handler
/// kQueuesHandler (a live rank whose helper thread answers), and the mqs host
/// reading the runtime's exported state through a message-queue DLL (a rank
/// held by gdb, stopped, or a core file). Text encoding as in RankProtocol.hpp
/// (key=value lines, `--` between records).

/// Queue state of the rank (no data) -> one RankQueues encoding.
inline constexpr std::string_view kQueuesHandler = "mpidbg/queues";

/// Most elements a decoded list (frames, history, communicators, operations,
/// world ranks, waited requests) may claim.
inline constexpr std::size_t kMaxQueueListLength = 1u << 20;

/// Where the rank is in MPI's life (StateLayout.h enum mpidbg_phase).
enum class MpiPhase : std::uint8_t { NotInitialized, Running, Finalizing, Finalized };
/// The wire spellings of MpiPhase, indexed by its value.
inline constexpr std::array<std::string_view, 4> kMpiPhaseNames = {"not-initialized", "running", "finalizing",
                                                                   "finalized"};
/// The wire spellings of PendingOp::Kind, indexed by its value.
inline constexpr std::array<std::string_view, 4> kOpKindNames = {"send", "recv", "collective", "rma"};
/// "not-initialized", "running", "finalizing", "finalized".
std::string_view phaseName(MpiPhase p);

/// One pending operation: a nonblocking request the rank has issued and not
/// yet completed, or the blocking call it is inside (blocking = true).
struct PendingOp {
  /// Rma: a request-based one-sided operation (MPI_Rput, MPI_Rget,
  /// MPI_Raccumulate, MPI_Rget_accumulate), on its window; `peer` its target.
  enum class Kind : std::uint8_t { Send, Recv, Collective, Rma };
  Kind kind = Kind::Send;
  std::string function;         ///< "MPI_Isend", "MPI_Recv", "MPI_Iallreduce", ...
  bool blocking = false;        ///< the blocking call the rank is inside now
  bool persistent = false;      ///< made by MPI_*_init
  bool active = true;           ///< started (false: persistent, never started / not restarted)
  bool waited = false;          ///< the rank is inside an MPI_Wait*/Test* on it
  bool synchronous = false;     ///< completes only when matched (Ssend, Issend)
  std::uint64_t request = 0;    ///< MPI_Request handle value; 0 for blocking calls
  std::uint64_t comm = 0;       ///< communicator handle value
  std::int32_t peer = -1;       ///< rank in comm: dest/source/root; -1 any source (or none), -2 MPI_PROC_NULL
  std::int32_t tag = -1;        ///< -1 = MPI_ANY_TAG (or no tag)
  std::int64_t count = -1;      ///< elements; -1 unknown
  std::int64_t bytes = -1;      ///< -1 unknown
  std::uint64_t buffer = 0;     ///< buffer address in the rank
  std::uint64_t datatype = 0;   ///< MPI_Datatype handle value; 0 unknown (key optional)
  std::int32_t collClass = -1;  ///< CollClass of a collective, else -1
  std::uint64_t collCall = 0;   ///< per-class call number of a collective
  std::uint64_t collSeq = 0;    ///< the communicator's collective sequence number

  /// The keys after "comm.I.LIST.J." (see encode(const RankQueues&)).
  static constexpr auto fields() {
    using T = PendingOp;
    return std::tuple{field("kind", &T::kind).names(kOpKindNames),
                      field("function", &T::function),
                      field("blocking", &T::blocking),
                      field("persistent", &T::persistent),
                      field("active", &T::active),
                      field("waited", &T::waited),
                      field("sync", &T::synchronous),
                      field("request", &T::request).hex(),
                      field("comm", &T::comm).hex(),
                      field("peer", &T::peer),
                      field("tag", &T::tag),
                      field("count", &T::count),
                      field("bytes", &T::bytes),
                      field("buffer", &T::buffer).hex(),
                      field("datatype", &T::datatype).hex().when(+[](const T& op) { return op.datatype != 0; }),
                      field("class", &T::collClass),
                      field("collcall", &T::collCall),
                      field("collseq", &T::collSeq)};
  }
};

/// "send", "recv", "collective", "rma".
std::string_view opKindName(PendingOp::Kind k);

/// One collective call in a rank's recent history.
struct CollRecord {
  std::uint64_t comm = 0;       ///< communicator handle value
  std::uint64_t seq = 0;        ///< 1-based position in the communicator's collective sequence
  std::string function;         ///< "MPI_Bcast", "MPI_Comm_split", "MPI_Ibarrier", ...
  std::int32_t root = -1;       ///< -1 when unrooted
  std::int64_t count = -1;      ///< elements; -1 when not one number

  /// The keys after "hist.I.".
  static constexpr auto fields() {
    using T = CollRecord;
    return std::tuple{field("comm", &T::comm).hex(), field("seq", &T::seq), field("function", &T::function),
                      field("root", &T::root), field("count", &T::count)};
  }
};

/// A receive or probe with MPI_ANY_SOURCE that matched a message: which
/// sender it took (the runtime keeps the last kWildcardMatches per rank).
struct WildcardMatch {
  std::uint64_t comm = 0;       ///< communicator handle value
  std::string function;         ///< "MPI_Recv", "MPI_Probe", "MPI_Sendrecv"
  std::int32_t tag = -1;        ///< the tag asked for; -1 = MPI_ANY_TAG
  std::int32_t source = 0;      ///< the sender it matched, rank in `comm`
  std::int32_t matchedTag = 0;  ///< the tag of the message it matched
  std::uint64_t call = 0;       ///< the rank's MPI call number of the receive (status's mpi_calls)

  /// The keys after "wild.I.".
  static constexpr auto fields() {
    using T = WildcardMatch;
    return std::tuple{field("comm", &T::comm).hex(), field("function", &T::function), field("tag", &T::tag),
                      field("source", &T::source),   field("mtag", &T::matchedTag),     field("call", &T::call)};
  }
};
/// How many wildcard matches a rank keeps (the most recent ones).
inline constexpr std::size_t kWildcardMatches = 16;

/// A passive-target lock this rank holds (MPI_Win_lock returned,
/// MPI_Win_unlock not yet returned), or asks for (inside MPI_Win_lock): the
/// hang verdict's "waits for the rank that holds the lock", and whether the
/// waiter's request conflicts with a shared lock.
struct WindowLock {
  std::uint64_t win = 0;     ///< the window's handle value (its entry in `comms`)
  std::int32_t target = -1;  ///< the locked rank of the window's group; -1 every rank (MPI_Win_lock_all)
  bool exclusive = false;    ///< MPI_LOCK_EXCLUSIVE (MPI_Win_lock_all: shared)
  std::uint64_t call = 0;    ///< the rank's MPI call number of the MPI_Win_lock
  /// False while the rank is inside the MPI_Win_lock that asks for it.
  bool granted = true;

  /// The keys after "lock.I." ("granted" only when false).
  static constexpr auto fields() {
    using T = WindowLock;
    return std::tuple{field("win", &T::win).hex(), field("target", &T::target), field("excl", &T::exclusive),
                      field("call", &T::call),
                      field("granted", &T::granted).when(+[](const T& l) { return !l.granted; })};
  }
};
/// How many locks a rank reports (the oldest ones past that are dropped).
inline constexpr std::size_t kMaxWindowLocks = 256;

/// One rank's generalized active-target (PSCW) synchronisation with one peer
/// of one window, as its runtime counted it (runtime/WindowEpochs.hpp): how
/// many access epochs it opened to the peer (MPI_Win_start with the peer in
/// its group) and closed (MPI_Win_complete, counted on entry: the call is
/// made), and how many exposure epochs it opened to the peer (MPI_Win_post)
/// and ended (MPI_Win_wait or a successful MPI_Win_test returned). The hang
/// verdict matches an origin's k-th access epoch to a target with the
/// target's k-th exposure epoch to it (MPI 4.0 §12.5.2): an origin in
/// MPI_Win_start or _complete whose target has posted fewer epochs to it
/// waits for that target; a target in MPI_Win_wait whose origin has
/// completed fewer epochs than it posted waits for that origin.
struct WindowEpoch {
  std::uint64_t win = 0;       ///< the window's handle value (its entry in `comms`)
  std::int32_t peer = -1;      ///< the peer, rank in the window's group
  std::uint64_t started = 0;   ///< access epochs opened to `peer`
  std::uint64_t completed = 0; ///< of those, closed (MPI_Win_complete entered)
  std::uint64_t posted = 0;    ///< exposure epochs opened to `peer`
  std::uint64_t waited = 0;    ///< of those, ended (MPI_Win_wait returned)
  bool access = false;         ///< `peer` is in the open access epoch's group
  bool exposure = false;       ///< `peer` is in the open exposure epoch's group

  /// The keys after "epoch.I.".
  static constexpr auto fields() {
    using T = WindowEpoch;
    return std::tuple{field("win", &T::win).hex(),         field("peer", &T::peer),
                      field("started", &T::started),       field("completed", &T::completed),
                      field("posted", &T::posted),         field("waited", &T::waited),
                      field("access", &T::access),         field("exposure", &T::exposure)};
  }
};
/// How many (window, peer) rows a rank reports (the oldest windows' rows past
/// that are dropped).
inline constexpr std::size_t kMaxWindowEpochs = 1024;

/// What one rank sent to, or received from, one peer with one tag on one
/// communicator, as its runtime counted them (runtime/MessageLedger.hpp):
/// the hang verdict compares a sender's counts with its receiver's to name
/// messages sent and not received ("a tag mismatch?", issue 23 item 6).
/// Only outermost calls count (an MPI library's own calls through the MPI
/// symbols are not the program's). Sends: blocking ones on entry,
/// nonblocking ones when a wait or test completes them. Receives: blocking
/// ones with a named source and tag on entry; blocking ones with
/// MPI_ANY_SOURCE or MPI_ANY_TAG on return, by the envelope of the message
/// they matched; MPI_Mprobe and MPI_Improbe by the message they matched;
/// nonblocking ones with a named source and tag on completion. A receive
/// whose sender the runtime cannot know (a nonblocking wildcard receive, a
/// receive request freed or not recorded) counts under peer -1 with its tag
/// (-1 for MPI_ANY_TAG): messages with that tag may have gone to it.
struct MessageCount {
  std::uint64_t comm = 0;      ///< communicator handle value
  std::int32_t peer = -1;      ///< dest or source, rank in `comm`; -1: a receive whose sender is not known
  std::int32_t tag = -1;       ///< the message's tag; -1 only with peer -1 (MPI_ANY_TAG)
  std::uint64_t sent = 0;      ///< messages sent to `peer` with `tag`
  std::uint64_t received = 0;  ///< messages received from `peer` with `tag`
  std::string function;        ///< the first send's function ("MPI_Send"); empty when nothing was sent

  /// The keys after "msg.I." ("function" only when set).
  static constexpr auto fields() {
    using T = MessageCount;
    return std::tuple{field("comm", &T::comm).hex(), field("peer", &T::peer),
                      field("tag", &T::tag),         field("sent", &T::sent),
                      field("recvd", &T::received),
                      field("function", &T::function).when(+[](const T& m) { return !m.function.empty(); })};
  }
};
/// Most message counts a rank keeps (runtime/MessageLedger.hpp's table).
inline constexpr std::size_t kMaxMessageCounts = 4096;

/// One communicator as this rank sees it.
struct CommQueues {
  CommState state;                  ///< handle, size, local rank, name, per-class counts and active flags
  std::vector<std::int32_t> worldRanks;  ///< world rank of each local rank (empty if unknown)
  std::uint64_t collSeq = 0;        ///< collective calls issued on it (all classes)
  std::vector<PendingOp> sends;     ///< pending sends (nonblocking and the blocking one)
  std::vector<PendingOp> recvs;     ///< pending receives
  std::vector<PendingOp> unexpected;  ///< unexpected messages, where the source knows them
  std::vector<PendingOp> collectives; ///< pending nonblocking collectives
  std::vector<PendingOp> rma;       ///< pending request-based one-sided operations (on a window)

  /// The keys after "comm.I.": the CommState's, then the rest.
  static constexpr auto fields() {
    using T = CommQueues;
    constexpr std::size_t n = kMaxQueueListLength;
    return std::tuple{inlined(&T::state),
                      field("worldranks", &T::worldRanks).atMost(n),
                      field("collseq", &T::collSeq),
                      items("sends", "send", &T::sends, n),
                      items("recvs", "recv", &T::recvs, n),
                      items("unexpected", "unexp", &T::unexpected, n),
                      items("collectives", "coll", &T::collectives, n),
                      items("rma", "rma", &T::rma, n).whenNonEmpty()};
  }
};

/// Everything the verdict needs from one rank.
struct RankQueues {
  std::int32_t worldRank = -1;
  MpiPhase phase = MpiPhase::Running;
  std::optional<MpiCall> call;      ///< the call the rank is inside, if any
  /// Requests named by the MPI_Wait*/Test* the rank is inside (handle values,
  /// MPI_REQUEST_NULL entries left out); empty otherwise.
  std::vector<std::uint64_t> waitingOn;
  std::vector<CommQueues> comms;
  std::vector<CollRecord> history;  ///< recent collectives, oldest first
  /// Recent wildcard matches, oldest first (CCS only; empty from memory).
  std::vector<WildcardMatch> wildcards;
  /// Passive-target locks held or asked for (CCS only; empty from memory).
  std::vector<WindowLock> locks;
  /// PSCW epochs per window and peer (CCS only; empty from memory and from
  /// runtimes before session 23).
  std::vector<WindowEpoch> epochs;
  /// Messages sent and received per communicator, peer and tag (CCS only;
  /// empty from memory and from runtimes before session 19).
  std::vector<MessageCount> messages;
  /// True when the rank's table was full and some messages went uncounted:
  /// its counts are then not to be compared.
  bool messagesPartial = false;
  /// Top stack frames, innermost first, where the source had them ("solve() at
  /// solver.c:88"); empty otherwise.
  std::vector<std::string> frames;
  /// How this state was read: "ccs", "mqs:<dll>", "core:<file>".
  std::string source;
  /// Set when the rank could not be read; then only worldRank is meaningful.
  std::string error;
  /// Set while the debugger's runtime holds the rank, with how: its stop
  /// text ("frozen (--now) in application code", "breakpoint 1 at ...",
  /// "frozen at ...", "stepped to ...", "at the end of MPI_Init"); empty
  /// while the rank runs by itself (and when read from memory).
  std::string held;

  /// The keys of encode(const RankQueues&) before its `==` line.
  static constexpr auto fields() {
    using T = RankQueues;
    constexpr std::size_t n = kMaxQueueListLength;
    return std::tuple{
        field("world", &T::worldRank),
        field("phase", &T::phase).names(kMpiPhaseNames),
        field("source", &T::source),
        field("error", &T::error).when(+[](const T& q) { return !q.error.empty(); }),
        field("held", &T::held).when(+[](const T& q) { return !q.held.empty(); }),
        sub("call.", &T::call),
        field("waiting", &T::waitingOn).hex().atMost(n),
        items("frames", "frame", &T::frames, n),
        items("history", "hist", &T::history, n),
        items("wild", "wild", &T::wildcards, kWildcardMatches).whenNonEmpty().counting("matches"),
        items("locks", "lock", &T::locks, kMaxWindowLocks).whenNonEmpty().counting("locks"),
        items("epochs", "epoch", &T::epochs, kMaxWindowEpochs).whenNonEmpty().counting("epoch rows"),
        items("msgs", "msg", &T::messages, kMaxMessageCounts).whenNonEmpty().counting("message counts"),
        field("msgs.partial", &T::messagesPartial).when(+[](const T& q) { return q.messagesPartial; }),
        items("comms", "comm", &T::comms, n)};
  }
};

/// One RankQueues as text; decodeRankQueues reads it back exactly.
///
/// The encoding is ONE record of `key=value` lines (RankProtocol.hpp escaping)
/// whose nested lists use indexed key prefixes, followed by a terminator line
/// `==` (so replies of many ranks concatenate; no `--` line occurs inside):
///
///     world=3                       worldRank
///     phase=running                 phaseName()
///     source=ccs
///     error=...                     only when set
///     held=...                      only when set
///     call.function=MPI_Recv ...    the call.* keys of RankStatus, when set
///     waiting=0xac000001,0xac000003 waitingOn, hex, comma-separated (may be empty)
///     frames=2                      then frame.0=..., frame.1=...
///     history=N                     then per record i: hist.i.comm, hist.i.seq,
///                                   hist.i.function, hist.i.root, hist.i.count
///     wild=N                        optional; then per match i: wild.i.comm,
///                                   wild.i.function, wild.i.tag, wild.i.source,
///                                   wild.i.mtag, wild.i.call
///     locks=N                       optional; then per lock i: lock.i.win (hex),
///                                   lock.i.target, lock.i.excl (0/1), lock.i.call,
///                                   lock.i.granted (0/1, optional: 1)
///     epochs=N                      optional; then per row i: epoch.i.win (hex),
///                                   epoch.i.peer, epoch.i.started, epoch.i.completed,
///                                   epoch.i.posted, epoch.i.waited, epoch.i.access
///                                   (0/1), epoch.i.exposure (0/1)
///     msgs=N                        optional; then per count i: msg.i.comm (hex),
///                                   msg.i.peer, msg.i.tag, msg.i.sent,
///                                   msg.i.recvd, msg.i.function (optional)
///     msgs.partial=1                optional; messagesPartial
///     comms=N                       then per communicator i, with P = "comm.i.":
///       P + the CommState keys of kCollectivesHandler (handle, root, world,
///         size, rank, name, counts, active),
///       P.worldranks=0,2,4 (may be empty), P.collseq=7,
///       P.sends=N, P.recvs=N, P.unexpected=N, P.collectives=N, P.rma=N
///       (optional: 0), and per operation j of list L (send, recv, unexp,
///       coll, rma), with
///       Q = P + L + ".j.": Q.kind (opKindName), Q.function, Q.blocking,
///       Q.persistent, Q.active, Q.waited, Q.sync (0/1), Q.request, Q.comm,
///       Q.peer, Q.tag, Q.count, Q.bytes, Q.buffer, Q.datatype (hex,
///       optional: absent when unknown), Q.class, Q.collcall, Q.collseq
///     ==
///
/// Every key above is required except error and call.*; unknown keys are
/// ignored. List lengths are bounded (kMaxQueueListLength).
std::string encode(const RankQueues& q);
/// One encoding, with or without its `==` line. Errors ("bad rank queues:
/// ...") name the missing or malformed key, an unknown phase or kind, a
/// list longer than kMaxQueueListLength, or a second record.
Expected<RankQueues> decodeRankQueues(std::string_view text);
/// Several RankQueues (a merged broadcast reply: each ends with `==` line).
/// Text after the last `==` (other than blank lines) is an error: a reply cut
/// short. Errors name the 0-based encoding ("bad rank queues 2: ...").
Expected<std::vector<RankQueues>> decodeRankQueuesList(std::string_view text);

/// The terminator line of one RankQueues encoding.
inline constexpr std::string_view kQueuesTerminator = "==";

}  // namespace mpidbg::ccs::proto
