#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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
/// merged reply with the list decoders.

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
/// "mpi", "entry", "violation" (the wire spelling).
std::string_view breakKindName(BreakKind k) noexcept;

/// One breakpoint. Keys: id, kind, target, condition (may be empty or
/// absent = none), hit, enabled (0|1), and in list replies hits and rank.
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
};

/// Names a breakpoint. Keys: id, and enabled (bp/enable only).
struct BreakpointRef {
  std::int32_t id = 0;
  bool enabled = true;
};

/// Request of kFreezeHandler. Key: now (0 = at the next safe point, 1 = at
/// once, by a real-time signal to the rank's main thread).
struct FreezeRequest {
  bool now = false;
};

/// Request of kStepHandler. Key: count, 1..kMaxStepCount: resume, and stop
/// again at the count-th next safe point (MPI call or entry point).
struct StepRequest {
  std::uint64_t count = 1;
};
/// Largest accepted step count.
inline constexpr std::uint64_t kMaxStepCount = 1000000000;

/// One entry point name a rank has reached. Keys: name, hits, rank.
struct EntryInfo {
  std::string name;
  std::uint64_t hits = 0;
  std::int32_t rank = -1;  ///< the rank that reached it; -1 = absent
};

/// Reply of set/delete/enable/freeze/step/detach. Keys: result (ok|error),
/// message (the error a user reads, or an optional note on success, e.g.
/// "already stopped"), rank.
struct ControlReply {
  bool ok = true;
  std::string message;
  std::int32_t rank = -1;  ///< the answering rank; -1 = absent
};

/// Longest accepted target name, in bytes.
inline constexpr std::size_t kMaxTargetBytes = 256;
/// Longest accepted condition text, in bytes: the record's limit and the
/// condition language's (cond::kMaxText, ccs/condition/Condition.hpp).
inline constexpr std::size_t kMaxConditionBytes = 1024;

/// The request form (no hits, no rank).
std::string encode(const Breakpoint& b);
/// Decodes one Breakpoint; also checks id > 0, a non-empty target of at most
/// kMaxTargetBytes, and a condition of at most kMaxConditionBytes.
Expected<Breakpoint> decodeBreakpoint(std::string_view text);
/// The bp/list reply: every record with hits (and rank when >= 0), each
/// followed by a `--` line.
std::string encode(std::span<const Breakpoint> list);
Expected<std::vector<Breakpoint>> decodeBreakpoints(std::string_view text);

/// Writes `enabled` only when `withEnabled`.
std::string encode(const BreakpointRef& r, bool withEnabled);
/// `enabled` is required when `withEnabled`.
Expected<BreakpointRef> decodeBreakpointRef(std::string_view text, bool withEnabled);

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
