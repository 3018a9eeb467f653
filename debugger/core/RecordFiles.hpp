#pragma once

// Reading the decision logs of record and replay (issue 11) in the front
// end: a recorded run's directory, summaries per rank, and the comparison of
// two runs' decision sequences (`mpidbg record show|compare`). The format is
// common/include/mpidbg/DecisionLog.hpp.

#include <cstdint>
#include <map>
#include <string>

#include "mpidbg/DecisionLog.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// The decision logs of one recorded run: DIR/rank-R.rec for every R found.
struct RecordedRun {
  std::string dir;
  /// The readable logs by rank (the rank in the file name).
  std::map<int, record::Log> logs;
  /// Logs that could not be read or decoded, by rank: the reason.
  std::map<int, std::string> errors;
};

/// The log of rank R is DIR/rank-R.rec.
std::string recordFileOf(const std::string& dir, int rank);

/// Reads and decodes one log file. Errors name the file.
Expected<record::Log> readRecordFile(const std::string& path);

/// Reads every rank-R.rec in `dir`. Errors: `dir` is not a readable
/// directory, or it holds no rank-R.rec (the message says how a record is
/// made). Files that fail to decode are in `errors`, not an error.
Expected<RecordedRun> readRecordDir(const std::string& dir);

/// Decisions of a log per MPI function ("MPI_Recv" -> 40), IrecvMatch
/// counted under "MPI_Irecv".
std::map<std::string, std::uint64_t> countByFunction(const record::Log& log);

/// One line per log: "40 decisions (MPI_Recv 20, MPI_Waitany 20), 97 bytes,
/// 2.4 bytes per decision" and ", cut short" when the end marker is missing.
std::string summarize(const record::Log& log);

/// Where two logs' decision sequences first differ, "" when they are the
/// same: "decision #12: MPI_Waitany index=2 here, MPI_Waitany index=0
/// there", or "decision #41: this log ends, the other goes on with ...".
/// Linear in the number of runs.
std::string firstDifference(const record::Log& a, const record::Log& b);

}  // namespace mpidbg::core
