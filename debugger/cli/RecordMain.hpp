#pragma once

#include <string>
#include <vector>

namespace mpidbg::cli {

/// `mpidbg record show [--decisions] [--json] DIR|FILE...` and `mpidbg record
/// compare [--json] DIR1 DIR2`: the decision logs of record and replay
/// (issue 11) without a job. `args` are the words after "record". Exit 0
/// when every log was read (show) or the runs took the same decisions
/// (compare); 65 when a log is unreadable or the runs differ; 64 on a usage
/// error.
int recordMain(const std::vector<std::string>& args);

/// Checks and normalizes --record/--replay directories before a launch:
/// `recordDir` is created (with parents) when missing; `replayDir` must hold
/// decision logs; both become absolute, and they must differ. Returns an
/// error message, or "" when fine.
std::string prepareRecordDirs(std::string& recordDir, std::string& replayDir);

}  // namespace mpidbg::cli
