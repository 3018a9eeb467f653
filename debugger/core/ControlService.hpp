#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ccs/proto/ControlProtocol.hpp"
#include "ccs/proto/RecordProtocol.hpp"
#include "ccs/proto/ThreadLevelProtocol.hpp"
#include "debugger/core/RankSet.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// What one rank answered to a control request (ccs/proto/ControlProtocol.hpp).
struct ControlOutcome {
  bool ok = false;
  std::string message;  ///< the error, or a note on success ("already stopped")
  /// Not sent: gdb holds the rank (ok is false). Commands report such ranks
  /// as skipped, not as a failure of the command.
  bool skipped = false;
};

/// Each rank's outcome of one control request, by rank. Ranks that never
/// registered have none.
using ControlOutcomes = std::map<int, ControlOutcome>;

/// How the control service reaches the ranks: Debugger::control and
/// Debugger::collect for a job, fakes in tests.
struct ControlChannel {
  /// Sends control `handler` with its encoded record `data` to `ranks` and
  /// returns each rank's outcome (Debugger::control's contract).
  std::function<ControlOutcomes(const RankSet& ranks, std::string_view handler, const std::string& data)> send;
  /// The merged replies of list handler `handler` from the reachable ranks
  /// of `ranks`, and the ranks that did not answer with why (Debugger::collect).
  std::function<std::pair<std::string, std::map<int, std::string>>(const RankSet& ranks, std::string_view handler)>
      collect;
};

/// A breakpoint as the user set it: its number, the ranks it is on (those
/// that accepted it), and the record sent to them.
struct BreakpointEntry {
  int id = 0;
  RankSet ranks;
  ccs::proto::Breakpoint spec;
};

/// What `set` did: the breakpoint sent (its id filled in), the ranks that
/// accepted it (empty: it was not recorded), and every rank's outcome.
struct BreakpointSet {
  ccs::proto::Breakpoint spec;
  RankSet ranks;
  ControlOutcomes outcomes;
};

/// What ranks answered to one of the runtime's list handlers, decoded (one
/// item per rank's record: mpidbg/entries, mpidbg/threadlevel,
/// mpidbg/record), and the ranks that did not answer with why.
template <typename Item>
struct RankReport {
  std::vector<Item> items;
  std::map<int, std::string> missing;
};

/// Execution control of an MPI job's ranks for the commands: the session's
/// breakpoint table and its numbers, and set / delete / enable / disable /
/// list / freeze / step / entries, each encoded into its control request
/// (ccs/proto/ControlProtocol.hpp) and sent through the channel, the replies
/// decoded into typed results. Never prints. Not thread-safe: the commands'
/// thread uses it.
class ControlService {
 public:
  /// `channel` carries every request (both functions must be set).
  explicit ControlService(ControlChannel channel);

  /// The breakpoints set in this session, by number.
  const std::map<int, BreakpointEntry>& breakpoints() const { return table_; }
  /// The breakpoint numbered `id`, or nullptr.
  const BreakpointEntry* find(int id) const;
  /// The number the next breakpoint gets (1 for the first; never reused).
  int nextId() const { return nextId_; }

  /// Sets breakpoint `spec` on `ranks`: it gets the next number (used even
  /// when no rank accepts it), bp/set goes to `ranks`, and the ranks that
  /// answered ok are recorded as the breakpoint's (no entry when none did).
  BreakpointSet set(const RankSet& ranks, ccs::proto::Breakpoint spec);
  /// Deletes breakpoint `id` on its ranks (bp/delete) and forgets it, whatever
  /// they answer. Error: no breakpoint `id`.
  Expected<ControlOutcomes> remove(int id);
  /// Enables or disables breakpoint `id` on its ranks (bp/enable) and records
  /// the new state, whatever they answer. Error: no breakpoint `id`.
  Expected<ControlOutcomes> setEnabled(int id, bool enabled);
  /// Each breakpoint's hits so far on the ranks of `ranks` that answer
  /// bp/list: breakpoint number -> rank -> hits (empty when the reply does
  /// not decode).
  std::map<int, std::map<int, std::uint64_t>> hits(const RankSet& ranks);

  /// Freezes `ranks`: at their next MPI call or entry point, or at once when
  /// `now` (mpidbg/freeze).
  ControlOutcomes freeze(const RankSet& ranks, bool now);
  /// Lets `ranks` run to their `count`-th next MPI call or entry point
  /// (mpidbg/step; 1..ccs::proto::kMaxStepCount).
  ControlOutcomes step(const RankSet& ranks, std::uint64_t count);
  /// The entry points `ranks` reached and their hits (mpidbg/entries).
  /// Error: the reply does not decode (its message).
  Expected<RankReport<ccs::proto::EntryInfo>> entries(const RankSet& ranks);
  /// Each rank's requested, provided and required thread levels and its
  /// violations (mpidbg/threadlevel). Error: the reply does not decode.
  Expected<RankReport<ccs::proto::ThreadLevelInfo>> threadLevels(const RankSet& ranks);
  /// What each rank records and replays (mpidbg/record). Error: the reply
  /// does not decode.
  Expected<RankReport<ccs::proto::RecordInfo>> records(const RankSet& ranks);

  /// Adds `entry` to the table as if it had been set, sending nothing (a
  /// session's breakpoints outlive its job; tests set up such a session).
  /// Replaces an entry of the same number; the next number stays above it.
  void restore(BreakpointEntry entry);
  /// Forgets every breakpoint, sending nothing (after detach the ranks have
  /// dropped theirs). The numbering goes on.
  void clear() { table_.clear(); }

 private:
  /// `handler`'s merged records from `ranks`, decoded by `decode`.
  template <typename Item, typename Decode>
  Expected<RankReport<Item>> report(const RankSet& ranks, std::string_view handler, Decode decode);

  ControlChannel channel_;
  std::map<int, BreakpointEntry> table_;
  int nextId_ = 1;
};

}  // namespace mpidbg::core
