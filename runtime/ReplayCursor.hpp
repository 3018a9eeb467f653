#pragma once

// The replay side of record and replay (Record.hpp): a decision log read
// back, and the cursor that hands its decisions to the calls that ask for
// them in order. No MPI: the wrappers (RecordWrappers.cpp) turn what it
// answers into MPI arguments, and a divergence into a stop or an abort.
// Not thread-safe: its owner (RecordState.hpp Decisions) holds a mutex.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mpidbg/DecisionLog.hpp"

namespace mpidbg::rt {

/// What the cursor answers a call that asks for a decision.
struct ReplayStep {
  /// The recorded decision the call must make; empty when the call runs as
  /// the program asked (replay off, or `why` says where it diverged).
  std::optional<record::Decision> decision;
  /// Why the call cannot be replayed ("" unless it diverges here): passed to
  /// ReplayCursor::diverge by the caller.
  std::string why;
};

/// One rank's replay: off until load() or open(). Sequential decisions are
/// taken in the log's order by next(); the matches of wildcard MPI_Irecv are
/// looked up by their ordinal (irecvMatch), in any order.
class ReplayCursor {
 public:
  /// Starts replaying the log file `path` for rank `rank` of `size`: reads
  /// it and load()s it; an unreadable file makes the cursor broken ("cannot
  /// read PATH: strerror"). Replay is on afterwards in every case; a broken
  /// log diverges at the first next().
  void open(std::string path, std::int32_t rank, std::int32_t size);

  /// Starts replaying the encoded log `bytes` (read from `path`, which
  /// names it in reports) for rank `rank` of `size`. A log that does not
  /// decode ("PATH: why") or was recorded for another rank or job size
  /// makes the cursor broken. Replay is on afterwards in every case.
  void load(std::string path, std::string_view bytes, std::int32_t rank, std::int32_t size);

  /// The next decision for a call of `kind`: the log's next sequential
  /// decision when it is of `kind` (the cursor moves past it); a divergence
  /// (`why` set, the cursor stays) when the log is broken, used up, or holds
  /// another kind next; neither when replay is off.
  ReplayStep next(record::DecisionKind kind);

  /// The recorded match of wildcard MPI_Irecv number `ordinal` (0-based
  /// among the rank's wildcard MPI_Irecv calls), if the recorded run saw it
  /// complete; counts as one decision replayed. Empty when replay is off,
  /// the log is broken, or the log holds no match for `ordinal` (the
  /// receive then runs as the program asked: no divergence). A lookup, not a
  /// consumption: asking twice answers twice.
  std::optional<record::Decision> irecvMatch(std::int64_t ordinal);

  /// Replay stops: returns the report "decision #N: why" (N = decisions
  /// replayed + 1) and keeps it as diverged(); replay is off afterwards.
  /// Empty when replay was already off (only the first divergence counts).
  std::optional<std::string> diverge(const std::string& why);

  /// True while decisions are taken from the log.
  bool replaying() const noexcept { return replaying_; }
  /// The log file replayed ("" when replay never started).
  const std::string& path() const noexcept { return path_; }
  /// Decisions handed out so far (next() and irecvMatch()).
  std::uint64_t replayed() const noexcept { return replayed_; }
  /// Decisions the log holds (0 when broken).
  std::uint64_t total() const noexcept { return total_; }
  /// True when the log has its end marker (the recorded run finished).
  bool complete() const noexcept { return complete_; }
  /// Why the log cannot be replayed ("" when it can).
  const std::string& broken() const noexcept { return broken_; }
  /// The divergence report once one happened, else broken().
  const std::string& diverged() const noexcept { return !diverged_.empty() ? diverged_ : broken_; }

 private:
  std::string path_;
  bool replaying_ = false;
  std::vector<record::Run> runs_;  ///< the sequential decisions (IrecvMatch taken out)
  std::size_t run_ = 0;            ///< the run the cursor is in
  std::uint64_t usedInRun_ = 0;    ///< decisions of runs_[run_] already taken
  std::unordered_map<std::int64_t, record::Decision> irecvMatches_;
  std::uint64_t replayed_ = 0;
  std::uint64_t total_ = 0;
  bool complete_ = false;
  std::string broken_;    ///< why the log cannot be replayed ("" when it can)
  std::string diverged_;  ///< the divergence report, once one happened
};

}  // namespace mpidbg::rt
