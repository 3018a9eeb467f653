#pragma once

// Memory and CPU of processes as Linux reports them in /proc (proc(5)):
// /proc/PID/status (VmRSS, VmHWM), /proc/PID/smaps_rollup and
// /proc/PID/smaps (Rss, Pss, Anonymous per mapping), /proc/PID/stat.
#include <sys/types.h>

#include <map>
#include <optional>
#include <set>
#include <string>

namespace mpidbg::bench {

/// Resident set and its peak of one process, in KiB (VmRSS and VmHWM of
/// /proc/PID/status).
struct ResidentKiB {
  double rss = 0;
  double hwm = 0;
};

/// VmRSS and VmHWM of `pid` (0: this process); nullopt when the process is
/// gone or the file lacks the fields.
std::optional<ResidentKiB> readResident(pid_t pid = 0);

/// Resets this process's VmHWM to its current VmRSS (writes "5" to
/// /proc/self/clear_refs, Linux 4.0+). False when the kernel refused.
bool resetPeakResident();

/// Rss, Pss and anonymous memory of a set of mappings, in KiB. Pss divides
/// each shared page by the number of processes mapping it, so summing Pss
/// over processes does not count shared library code more than once.
struct MappingKiB {
  double rss = 0;
  double pss = 0;
  double anon = 0;
};

/// The totals of every mapping of `pid` (/proc/PID/smaps_rollup); nullopt
/// when the process is gone.
std::optional<MappingKiB> readRollup(pid_t pid);

/// The totals per file path of `pid`'s file-backed mappings (/proc/PID/smaps;
/// anonymous and [special] mappings are left out); empty when the process is
/// gone.
std::map<std::string, MappingKiB> readFileMappings(pid_t pid);

/// The sum of `mappings` over the paths in `paths`.
MappingKiB sumPaths(const std::map<std::string, MappingKiB>& mappings,
                    const std::set<std::string>& paths);

/// User + system CPU time of `pid` (fields 14 and 15 of /proc/PID/stat), in
/// milliseconds; nullopt when the process is gone.
std::optional<double> readCpuMs(pid_t pid);

}  // namespace mpidbg::bench
