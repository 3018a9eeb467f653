#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ccs/proto/Field.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::proto {

/// Execution control between the front end and each rank's runtime (issue 4):
/// breakpoints, freeze, step, entry points. Same text record format as
/// ccs/proto/RankProtocol.hpp: `key=value` lines, records separated by `--`, values
/// escaped ('\\' -> "\\\\", newline -> "\\n"), unknown keys ignored, a missing
/// required key / duplicate key / bad number is an error naming the key.
/// Events (breakpoint hit, stopped) travel on the event channel as
/// ccs::proto::Event kinds `breakpoint` and `stopped` (RankProtocol.hpp).
///
/// Every reply of the handlers below carries the answering rank (`rank` key)
/// and ends with a `--` line, so the replies of many ranks concatenate into
/// one record list (MergeRule::Concatenate in the forwarding tree); decode a
/// merged reply with the list decoders. Each message lists its keys once
/// (`fields()`, ccs/proto/Field.hpp); the encoders and decoders below and
/// the runtime's typed handlers (runtime/TypedHandler.hpp) derive from that.

// ---- CCS handlers served by the runtime (request -> reply) ----
/// Every handler below, for the forwarding tree's merge table (all concatenate).
inline constexpr std::string_view kControlHandlers[] = {
    "mpidbg/bp/set", "mpidbg/bp/delete", "mpidbg/bp/enable", "mpidbg/bp/list",
    "mpidbg/freeze", "mpidbg/step",      "mpidbg/entries",   "mpidbg/detach"};

/// Breakpoint record -> ControlReply. Sets (or replaces, same id) a breakpoint.
inline constexpr std::string_view kBreakSetHandler = "mpidbg/bp/set";
/// BreakpointRef record (`id`) -> ControlReply. Error if the id is not set.
inline constexpr std::string_view kBreakDeleteHandler = "mpidbg/bp/delete";
/// BreakpointRef record (`id`, `enabled`) -> ControlReply.
inline constexpr std::string_view kBreakEnableHandler = "mpidbg/bp/enable";
/// No data -> Breakpoint records (with `hits`), in id order; empty when none.
inline constexpr std::string_view kBreakListHandler = "mpidbg/bp/list";
/// FreezeRequest record (`now`; empty data means now=0) -> ControlReply, at once.
inline constexpr std::string_view kFreezeHandler = "mpidbg/freeze";
/// StepRequest record (`count`; empty data means 1) -> ControlReply.
inline constexpr std::string_view kStepHandler = "mpidbg/step";
/// No data -> EntryInfo records, one per entry point name seen, by name.
inline constexpr std::string_view kEntriesHandler = "mpidbg/entries";
/// No data -> ControlReply. The front end leaves: clear breakpoints, cancel
/// freeze/step, resume every stop (what the rank also does when the event
/// channel closes).
inline constexpr std::string_view kDetachHandler = "mpidbg/detach";

/// What a breakpoint stops on.
enum class BreakKind : std::uint8_t {
  Mpi,    ///< an interposed MPI function, e.g. MPI_Bcast
  Entry,  ///< an application entry point, MPIDBG_ENTRY("name")
  /// An MPI thread-level violation (issue 12): the offending thread stops
  /// where the runtime detects it; target "violation", no condition.
  Violation,
};
/// The wire spellings of BreakKind, indexed by its value.
inline constexpr std::array<std::string_view, 3> kBreakKindNames = {"mpi", "entry", "violation"};
/// "mpi", "entry", "violation" (the wire spelling).
std::string_view breakKindName(BreakKind k) noexcept;

/// Longest accepted target name, in bytes.
inline constexpr std::size_t kMaxTargetBytes = 256;
/// Longest accepted condition text, in bytes: the record's limit and the
/// condition language's (cond::kMaxText, ccs/condition/Condition.hpp).
inline constexpr std::size_t kMaxConditionBytes = 1024;

/// One breakpoint. Keys: id (> 0), kind, target (1 to kMaxTargetBytes
/// bytes), condition (at most kMaxConditionBytes; may be empty or absent =
/// none), hit, enabled (0|1), and in list replies, where the runtime stamps
/// its rank, hits and rank (both written only when rank >= 0).
struct Breakpoint {
  std::int32_t id = 0;      ///< the front end's number, > 0
  BreakKind kind = BreakKind::Mpi;
  std::string target;       ///< "MPI_Bcast" or the entry point name
  std::string condition;    ///< ccs/condition/Condition.hpp text; empty = always
  /// 0: stop at every matching call; N > 0: stop only at the Nth matching
  /// call counted from when the breakpoint was set ("#N").
  std::uint64_t hit = 0;
  bool enabled = true;
  /// Matching calls so far (condition true), in bp/list replies only.
  std::uint64_t hits = 0;
  /// The rank that listed it (bp/list replies); -1 = absent.
  std::int32_t rank = -1;

  /// The record in errors.
  static constexpr std::string_view kName = "breakpoint";
  /// The keys, in wire order.
  static constexpr auto fields() {
    using T = Breakpoint;
    constexpr auto listed = +[](const T& b) { return b.rank >= 0; };
    return std::tuple{field("id", &T::id).positive(),
                      field("kind", &T::kind).names(kBreakKindNames),
                      field("target", &T::target).notEmpty().atMost(kMaxTargetBytes),
                      field("condition", &T::condition).atMost(kMaxConditionBytes).orDefault(),
                      field("hit", &T::hit),
                      field("enabled", &T::enabled),
                      field("hits", &T::hits).when(listed),
                      field("rank", &T::rank).when(listed)};
  }
};

/// Request of kBreakDeleteHandler: names a breakpoint. Key: id.
struct BreakpointRef {
  std::int32_t id = 0;

  /// The record in errors.
  static constexpr std::string_view kName = "breakpoint reference";
  /// The keys, in wire order.
  static constexpr auto fields() { return std::tuple{field("id", &BreakpointRef::id)}; }
};

/// Request of kBreakEnableHandler. Keys: id, enabled (0|1).
struct BreakpointEnable {
  std::int32_t id = 0;
  bool enabled = true;

  /// The record in errors.
  static constexpr std::string_view kName = "breakpoint reference";
  /// The keys, in wire order.
  static constexpr auto fields() {
    using T = BreakpointEnable;
    return std::tuple{field("id", &T::id), field("enabled", &T::enabled)};
  }
};

/// Largest accepted step count.
inline constexpr std::uint64_t kMaxStepCount = 1000000000;

/// Request of kFreezeHandler. Key: now (0 = at the next safe point, 1 = at
/// once, by a real-time signal to the rank's main thread); empty data means 0.
struct FreezeRequest {
  bool now = false;

  /// The record in errors.
  static constexpr std::string_view kName = "freeze request";
  /// The keys, in wire order.
  static constexpr auto fields() { return std::tuple{field("now", &FreezeRequest::now).orDefault()}; }
};

/// Request of kStepHandler. Key: count, 1..kMaxStepCount (empty data means
/// 1): resume, and stop again at the count-th next safe point (MPI call or
/// entry point).
struct StepRequest {
  std::uint64_t count = 1;

  /// The record in errors.
  static constexpr std::string_view kName = "step request";
  /// The keys, in wire order.
  static constexpr auto fields() {
    return std::tuple{field("count", &StepRequest::count).between(1, kMaxStepCount).orDefault()};
  }
};

/// One entry point name a rank has reached. Keys: name, hits, rank (when
/// >= 0). A list item: each record is followed by a `--` line.
struct EntryInfo {
  std::string name;
  std::uint64_t hits = 0;
  std::int32_t rank = -1;  ///< the rank that reached it; -1 = absent

  /// The record in errors.
  static constexpr std::string_view kName = "entry record";
  static constexpr bool kListItem = true;
  /// The keys, in wire order.
  static constexpr auto fields() {
    using T = EntryInfo;
    return std::tuple{field("name", &T::name), field("hits", &T::hits),
                      field("rank", &T::rank).when(+[](const T& e) { return e.rank >= 0; })};
  }
};

/// The wire spellings of ControlReply::ok: false, true.
inline constexpr std::array<std::string_view, 2> kControlResultNames = {"error", "ok"};

/// Reply of set/delete/enable/freeze/step/detach. Keys: result (ok|error),
/// message (the error a user reads, or an optional note on success, e.g.
/// "already stopped"; written when not empty or an error, and an error
/// reply must have one), rank (when >= 0). A list item: the record is
/// followed by a `--` line.
struct ControlReply {
  bool ok = true;
  std::string message;
  std::int32_t rank = -1;  ///< the answering rank; -1 = absent

  /// The record in errors.
  static constexpr std::string_view kName = "control reply";
  static constexpr bool kListItem = true;
  /// The keys, in wire order.
  static constexpr auto fields() {
    using T = ControlReply;
    return std::tuple{field("result", &T::ok).names(kControlResultNames),
                      field("message", &T::message).when(+[](const T& r) { return !r.ok || !r.message.empty(); }).orDefault(),
                      field("rank", &T::rank).when(+[](const T& r) { return r.rank >= 0; })};
  }
  /// An error reply says what went wrong.
  static Expected<void> check(const ControlReply& r) {
    if (!r.ok && r.message.empty()) return fail("an error reply has no message");
    return {};
  }
};

/// The request form (no hits, no rank, when rank is -1).
std::string encode(const Breakpoint& b);
/// Decodes one Breakpoint, with the checks of its fields.
Expected<Breakpoint> decodeBreakpoint(std::string_view text);
/// The bp/list reply: every record, each followed by a `--` line.
std::string encode(std::span<const Breakpoint> list);
Expected<std::vector<Breakpoint>> decodeBreakpoints(std::string_view text);

std::string encode(const BreakpointRef& r);
Expected<BreakpointRef> decodeBreakpointRef(std::string_view text);
std::string encode(const BreakpointEnable& r);
Expected<BreakpointEnable> decodeBreakpointEnable(std::string_view text);

std::string encode(const FreezeRequest& r);
Expected<FreezeRequest> decodeFreezeRequest(std::string_view text);
std::string encode(const StepRequest& r);
Expected<StepRequest> decodeStepRequest(std::string_view text);

/// The mpidbg/entries reply: each record followed by a `--` line.
std::string encode(std::span<const EntryInfo> entries);
Expected<std::vector<EntryInfo>> decodeEntries(std::string_view text);

/// One ControlReply record followed by a `--` line.
std::string encode(const ControlReply& r);
/// Exactly one reply record (a single rank's answer).
Expected<ControlReply> decodeControlReply(std::string_view text);
/// The replies of several ranks, concatenated (forwarding tree).
Expected<std::vector<ControlReply>> decodeControlReplies(std::string_view text);

}  // namespace mpidbg::ccs::proto
