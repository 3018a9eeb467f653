#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/proto/Field.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::proto {

/// mpidbg's own messages between the runtime in each rank and the front end.
/// They travel as the data of plain CCS frames (ccs/transport/Frame.hpp). The payload
/// format is text, one `key=value` pair per line ('\n'), records separated by
/// a line holding only `--`. Values are escaped: '\\' -> "\\\\", '\n' -> "\\n",
/// '=' is allowed in values (only the first '=' splits). Unknown keys are
/// ignored (forward compatibility); missing required keys are an Error.
/// Version of this format, sent in the registration (`version=1`).
inline constexpr int kProtocolVersion = 1;

// ---- CCS handlers served by the runtime (request data in parentheses) ----
/// Status of the rank (no data) -> one RankStatus record.
inline constexpr std::string_view kStatusHandler = "mpidbg/status";
/// Collective state of every communicator (no data) -> CommState records.
inline constexpr std::string_view kCollectivesHandler = "mpidbg/collectives";
/// Unfreezes the rank (data: empty, or a ContinueRequest) -> empty reply.
inline constexpr std::string_view kContinueHandler = "mpidbg/continue";

// ---- Frames on the registration / event channel (rank -> front end) ----
/// First frame on the channel: a Registration record.
inline constexpr std::string_view kRegisterHandler = "mpidbg/register";
/// Every later frame: one Event record.
inline constexpr std::string_view kEventHandler = "mpidbg/event";

/// The collective classes, in the order of mqs_comm_class
/// (../shared/protocols/mqs.md, "The collective extension").
enum class CollClass : std::uint8_t {
  Barrier, Bcast, Allgather, Allgatherv, Allreduce, Alltoall, Alltoallv,
  ReduceScatter, Reduce, Gather, Gatherv, Scan, Scatter, Scatterv
};
inline constexpr std::size_t kCollClassCount = 14;

/// "MPI_Barrier", "MPI_Bcast", ... for a class.
std::string_view collName(CollClass c);

/// Coarse execution state of a rank as its runtime sees it.
enum class RankState : std::uint8_t {
  Running,    ///< executing application code
  Frozen,     ///< held by the runtime (at MPI_Init end, until continue)
  InMpi,      ///< inside an intercepted MPI call (see RankStatus::call)
  Finalized,  ///< MPI_Finalize has returned
};
/// The wire spellings of RankState, indexed by its value.
inline constexpr std::array<std::string_view, 4> kRankStateNames = {"running", "frozen", "in-mpi", "finalized"};
/// "running", "frozen", "in-mpi", "finalized" (the wire spelling).
std::string_view stateName(RankState s);

/// The MPI call a rank is currently inside.
struct MpiCall {
  std::string function;            ///< e.g. "MPI_Recv"
  /// Which argument `peer` is: "source", "dest", "root", or empty for none.
  std::string peerRole;
  std::int32_t peer = 0;           ///< rank in `comm`; -1 = MPI_ANY_SOURCE
  bool hasTag = false;
  std::int32_t tag = 0;            ///< -1 = MPI_ANY_TAG
  std::uint64_t comm = 0;          ///< communicator handle value
  std::string commName;            ///< "MPI_COMM_WORLD" or set/derived name
  /// For collectives: the 1-based call number of this class on `comm`; 0 otherwise.
  std::uint64_t collCall = 0;
  std::uint64_t elapsedUs = 0;     ///< microseconds since the call was entered
  std::uint64_t seq = 0;           ///< per-rank count of intercepted calls so far
  /// The rank polls: it repeats this MPI_Test* on the same requests with
  /// none completing and no other MPI call between (runtime/PollWatch.hpp),
  /// inside one test now or between two (RankStatus::state running).
  /// `elapsedUs` then counts from the first test of the streak, and `seq`
  /// is that test's call number: it stays the same while the streak lasts.
  /// Key `call.polling` (1), only when set.
  bool polling = false;
  /// With `polling`: microseconds since the last test returned, 0 while
  /// inside one. Key `call.sincelastus`, only with `call.polling`.
  std::uint64_t sinceLastUs = 0;

  /// The keys after "call." (appendCall), in wire order.
  static constexpr auto fields() {
    using T = MpiCall;
    return std::tuple{field("function", &T::function),
                      field("peerrole", &T::peerRole),
                      field("peer", &T::peer),
                      field("tag", &T::tag).flaggedBy(&T::hasTag),
                      field("comm", &T::comm),
                      field("commname", &T::commName),
                      field("collcall", &T::collCall),
                      field("elapsedus", &T::elapsedUs),
                      field("seq", &T::seq),
                      field("polling", &T::polling).when(+[](const T& c) { return c.polling; }),
                      field("sincelastus", &T::sinceLastUs).when(+[](const T& c) { return c.polling; })};
  }
};

/// Reply of kStatusHandler. Keys: rank, size, state, mpicalls, stop (only
/// while frozen), stopno (only for a numbered stop), and the call.* keys
/// when `call` is set.
struct RankStatus {
  std::int32_t rank = 0;
  std::int32_t size = 0;
  RankState state = RankState::Running;
  std::uint64_t mpiCalls = 0;      ///< intercepted MPI calls since MPI_Init
  std::optional<MpiCall> call;
  /// Why the rank is frozen (state Frozen), e.g. "at the end of MPI_Init",
  /// "breakpoint 1 at MPI_Bcast(root=0, count=16, comm=MPI_COMM_WORLD) call #3",
  /// "frozen at entry solver::step", "stepped to MPI_Send(...)", "frozen
  /// (--now) in application code"; empty otherwise.
  std::string stop;
  /// The number of that stop as its Breakpoint/Stopped event carries it
  /// (Event::stop), so a front end that shows the stop in a status has seen
  /// it before its event arrives (ContinueRequest); 0 when not stopped or
  /// not numbered. Key `stopno`, only when non-zero. Last member, so
  /// existing aggregate initializers keep working.
  std::uint32_t stopNumber = 0;

  /// The record in errors.
  static constexpr std::string_view kName = "rank status";
  /// The keys of encode(const RankStatus&), in wire order.
  static constexpr auto fields() {
    using T = RankStatus;
    return std::tuple{field("rank", &T::rank),
                      field("size", &T::size),
                      field("state", &T::state).names(kRankStateNames),
                      field("mpicalls", &T::mpiCalls),
                      field("stop", &T::stop).when(+[](const T& s) { return !s.stop.empty(); }),
                      field("stopno", &T::stopNumber).when(+[](const T& s) { return s.stopNumber != 0; }),
                      sub("call.", &T::call)};
  }
};

/// Collective counters of one communicator in one rank (reply of
/// kCollectivesHandler, one record per live communicator).
struct CommState {
  std::uint64_t handle = 0;        ///< communicator handle value in this rank
  std::int32_t rootWorldRank = 0;  ///< world rank of the communicator's rank 0
  std::int32_t size = 0;           ///< communicator size
  std::int32_t localRank = 0;      ///< this rank's rank in it
  std::string name;                ///< "MPI_COMM_WORLD", or MPI_Comm_set_name's, or "comm 0x..."
  /// The communicator's identity across the job (key `uid`, optional; 0
  /// when absent): the same in every member process, where `handle` values
  /// may differ (MPICH's rank 0 holds other handles for the same
  /// MPI_Comm_dup than the other ranks). Made by the runtime for
  /// MPI_COMM_WORLD and the communicators of interposed constructors
  /// (runtime/CommWrappers.cpp; runtime/CommTable.hpp childUid); 0 for
  /// the others.
  std::uint64_t uid = 0;
  /// World rank of the process reporting this state (key `world`, optional;
  /// -1 when absent), so replies merged across ranks stay attributable.
  std::int32_t worldRank = -1;
  std::array<std::uint64_t, kCollClassCount> counts{};  ///< calls entered per class
  std::array<bool, kCollClassCount> active{};           ///< inside a call of the class now

  /// The record in errors.
  static constexpr std::string_view kName = "communicator state record";
  /// The keys of appendCommState, in wire order.
  static constexpr auto fields() {
    using T = CommState;
    return std::tuple{field("handle", &T::handle),
                      field("root", &T::rootWorldRank),
                      field("world", &T::worldRank).when(+[](const T& c) { return c.worldRank >= 0; }),
                      field("uid", &T::uid).when(+[](const T& c) { return c.uid != 0; }),
                      field("size", &T::size),
                      field("rank", &T::localRank),
                      field("name", &T::name),
                      field("counts", &T::counts),
                      field("active", &T::active)};
  }
};

/// Names one communicator across the processes of a job (a map key):
/// CommState::uid when known, else (world rank of its rank 0, handle, size),
/// which splits a communicator whose members hold different handle values.
struct CommIdentity {
  std::uint64_t uid = 0;
  std::int32_t rootWorldRank = 0;
  std::uint64_t handle = 0;
  std::int32_t size = 0;
  auto operator<=>(const CommIdentity&) const = default;
};

/// The identity of `c` (CommIdentity).
inline CommIdentity identityOf(const CommState& c) noexcept {
  if (c.uid != 0) return {c.uid, 0, 0, 0};
  return {0, c.rootWorldRank, c.handle, c.size};
}

/// First frame of the event channel. Keys: version, rank, size, host, pid,
/// port (the rank's CCS server), mpi (library version string), threadlevel,
/// mac (hex HMAC-SHA256 over the front end's challenge and the record without
/// the mac line; see ccs/transport/Auth.hpp).
struct Registration {
  int version = kProtocolVersion;
  std::int32_t rank = 0;
  std::int32_t size = 0;
  std::string host;
  std::int32_t pid = 0;
  std::uint16_t port = 0;
  /// The address the rank's CCS server is bound to (key "address";
  /// optional, absent from older runtimes): the front end connects there.
  /// Empty, 0.0.0.0 or :: (a wildcard bind) leave the front end to use
  /// 127.0.0.1.
  std::string address;
  std::string mpiLibrary;
  std::int32_t threadLevel = 0;
  /// From the PMIx server the rank runs under (keys pmix_nspace, pmix_rank,
  /// node, pmix_published; all optional, absent without PMIx): the job's
  /// namespace, the rank in it, the node as the launcher names it
  /// (PMIX_HOSTNAME, e.g. Slurm's "n1"), and whether the rank published its
  /// CCS endpoint under "mpidbg.ccs.endpoint" (PMIx_Put + PMIx_Commit).
  std::string pmixNamespace;
  std::int64_t pmixRank = -1;
  std::string node;
  bool pmixPublished = false;
  std::string mac;

  /// The record in errors.
  static constexpr std::string_view kName = "registration";
  /// The keys of encode(const Registration&) before the mac line, in wire
  /// order (the mac, written or not, is added by encode()).
  static constexpr auto fields() {
    using T = Registration;
    constexpr auto pmix = +[](const T& r) { return !r.pmixNamespace.empty(); };
    return std::tuple{field("version", &T::version),
                      field("rank", &T::rank),
                      field("size", &T::size),
                      field("host", &T::host),
                      field("pid", &T::pid),
                      field("port", &T::port),
                      field("address", &T::address).when(+[](const T& r) { return !r.address.empty(); }),
                      field("mpi", &T::mpiLibrary),
                      field("threadlevel", &T::threadLevel),
                      field("pmix_nspace", &T::pmixNamespace).when(pmix),
                      field("pmix_rank", &T::pmixRank).when(pmix),
                      field("node", &T::node).when(pmix).orDefault(),
                      field("pmix_published", &T::pmixPublished).when(pmix)};
  }
};

/// The wire spellings of Event::Kind, indexed by its value.
inline constexpr std::array<std::string_view, 8> kEventKindNames = {
    "finalized", "exited", "signal", "abort", "breakpoint", "stopped", "violation", "notice"};

/// Something that happened in a rank. Keys: kind, and per kind: code (exited,
/// abort; for violation the level the behaviour needs, ccs/proto/ThreadLevelProtocol.hpp),
/// signal (signal), id and where (breakpoint), where (stopped, violation: the
/// offending call), text (abort message; for stopped the reason: "freeze",
/// "step" or "freeze --now"; for violation the whole notice; optional).
struct Event {
  enum class Kind : std::uint8_t {
    Finalized,   ///< MPI_Finalize returned
    Exited,      ///< the process is exiting with `code`
    Signal,      ///< killed by fatal signal `signal`
    Abort,       ///< MPI_Abort(comm, code) called
    Breakpoint,  ///< breakpoint `id` hit at `where`; the rank is now frozen
    Stopped,     ///< frozen by freeze or step at `where`
    /// An MPI thread-level (or lifecycle) rule broken at `where`; `text` says
    /// which, e.g. "MPI_THREAD_FUNNELED violated: thread 4312 (omp) called
    /// MPI_Bcast(comm=MPI_COMM_WORLD) ...; needs MPI_THREAD_SERIALIZED",
    /// `code` the level needed. Sent once per kind and call pair per rank.
    Violation,
    /// A diagnostic of the rank's runtime, `text` ("replay diverged in
    /// MPI_Recv at ..."): shown by the front end instead of being written on
    /// the application's stderr.
    Notice,
  };
  Kind kind = Kind::Exited;
  std::int32_t code = 0;
  std::int32_t signal = 0;
  std::string text;
  /// Breakpoint: the front end's breakpoint number.
  std::int32_t id = 0;
  /// Breakpoint/Stopped: the safe point, e.g. "MPI_Bcast(root=0, count=16,
  /// comm=MPI_COMM_WORLD) call #3", "entry solver::step", "compute (freeze --now)".
  std::string where;
  /// Breakpoint/Stopped: the rank's number for this stop (1, 2, ...; 0 when
  /// the sender does not number stops). A ContinueRequest quotes it back.
  std::uint32_t stop = 0;
  /// Violation: the stacks of the threads involved (the calling thread
  /// first, then the other one), one ccs/proto/StackProtocol.hpp record; "" when
  /// not captured. Key `stacks`, optional.
  std::string stacks;

  /// The record in errors.
  static constexpr std::string_view kName = "event";
  /// The keys of encode(const Event&), in wire order.
  static constexpr auto fields() {
    using T = Event;
    using K = Kind;
    return std::tuple{
        field("kind", &T::kind).names(kEventKindNames),
        field("code", &T::code).when(+[](const T& e) {
          return e.kind == K::Exited || e.kind == K::Abort || e.kind == K::Violation;
        }),
        field("signal", &T::signal).when(+[](const T& e) { return e.kind == K::Signal; }),
        field("id", &T::id).when(+[](const T& e) { return e.kind == K::Breakpoint; }),
        field("where", &T::where).when(+[](const T& e) {
          return e.kind == K::Breakpoint || e.kind == K::Stopped || e.kind == K::Violation;
        }),
        field("stop", &T::stop).when(+[](const T& e) { return e.stop != 0; }),
        field("text", &T::text).when(+[](const T& e) { return !e.text.empty(); }),
        field("stacks", &T::stacks).when(+[](const T& e) { return !e.stacks.empty(); })};
  }
};

/// The data of a kContinueHandler request. A `continue` can cross a
/// breakpoint hit on the wire: the front end continues a running rank, the
/// rank stops at a breakpoint, then the continue arrives. So the front end
/// says which stops it has seen: a rank releases a breakpoint stop only when
/// its number is at most `seen[rank]` (a freeze or step stop the front end
/// asked for is always released, and a pending freeze or step cancelled).
/// Empty data (older clients, `mpidbg-ccs`) releases any stop. Encoded as
/// one line `seen=RANK:STOP,RANK:STOP,...` (ranks without an entry: 0).
struct ContinueRequest {
  static constexpr std::string_view kName = "continue request";
  std::map<std::int32_t, std::uint32_t> seen;  ///< world rank -> last stop number seen

  static constexpr auto fields() { return std::tuple{field("seen", &ContinueRequest::seen)}; }
};
std::string encode(const ContinueRequest& c);
/// Errors: no `seen` key, a malformed `RANK:STOP` pair.
Expected<ContinueRequest> decodeContinueRequest(std::string_view text);

std::string encode(const RankStatus& s);
Expected<RankStatus> decodeRankStatus(std::string_view text);
/// Several RankStatus records separated by `--` lines (a merged broadcast
/// reply: each rank's status ends with a separator).
Expected<std::vector<RankStatus>> decodeRankStatuses(std::string_view text);
/// Several CommState records separated by `--` lines.
std::string encode(std::span<const CommState> states);
Expected<std::vector<CommState>> decodeCommStates(std::string_view text);
/// Encodes without the mac line when `withMac` is false (the MAC input).
std::string encode(const Registration& r, bool withMac = true);
Expected<Registration> decodeRegistration(std::string_view text);
std::string encode(const Event& e);
Expected<Event> decodeEvent(std::string_view text);

// ---- Building blocks for other ccs protocols (ccs/proto/QueueProtocol.hpp) ----
class Record;  // ccs/proto/TextRecord.hpp, internal to the ccs library

/// Appends the `call.*` lines of `c` (the keys RankStatus uses: call.function,
/// call.peerrole, call.peer, call.tag when it has one, call.comm,
/// call.commname, call.collcall, call.elapsedus, call.seq) to `out`.
void appendCall(std::string& out, const MpiCall& c);
/// The call of a record holding appendCall's keys; std::nullopt when it has
/// no `call.function`. Errors name the missing or malformed key.
Expected<std::optional<MpiCall>> callFrom(const Record& r);
/// Appends the lines of one CommState with every key prefixed by `keyPrefix`
/// (keys handle, root, world when >= 0, size, rank, name, counts, active;
/// kCollectivesHandler replies use an empty prefix).
void appendCommState(std::string& out, std::string_view keyPrefix, const CommState& c);
/// Reads back appendCommState's keys under `keyPrefix`. Errors name the key.
Expected<CommState> commStateFrom(const Record& r, std::string_view keyPrefix);

}  // namespace mpidbg::ccs::proto
