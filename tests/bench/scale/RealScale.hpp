#pragma once

// scale_bench's real mode: MPICH jobs of growing size launched under
// core::Debugger with the runtime preloaded, timed through the forwarding
// tree with the same core calls the commands make.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "ProcMemory.hpp"

namespace mpidbg::bench {

/// What to run.
struct RealOptions {
  std::vector<long> sizes{16, 64, 128, 256};  ///< ranks per job, one job each
  long repeat = 3;          ///< timed rounds of each command (medians are reported)
  std::string program;      ///< the MPI program: examples/hangs/coll_skip
  std::string runtimePath;  ///< libmpidbg-rt.so
  bool baseline = true;     ///< also launch each job without the runtime, for memory
  std::chrono::milliseconds launchTimeout{600000};    ///< until every rank registered
  std::chrono::milliseconds baselineTimeout{300000};  ///< until the plain job is steady
};

/// Medians over a job's rank processes, KiB.
struct RankMemory {
  std::size_t processes = 0;  ///< rank processes read
  MappingKiB total;           ///< smaps_rollup: every mapping
};

/// The measurements of one job size; times in milliseconds (medians of
/// RealOptions::repeat), memory in KiB.
struct RealRow {
  long ranks = 0;             ///< ranks of the job
  bool measured = false;      ///< the job launched and settled
  double launchMs = 0;        ///< launch until every rank registered, frozen at MPI_Init's end
  double settleMs = 0;        ///< continue until every rank is blocked in MPI
  double frozenStatusMs = 0;  ///< `status` while every rank is frozen at MPI_Init's end
  /// CPU the job's rank processes used, in cores (CPU seconds per second over
  /// 2 s), while frozen and while blocked in the hang before the commands:
  /// what the ranks leave to their helper threads on this machine.
  double frozenCores = 0, blockedCores = 0;
  /// The commands with every rank blocked in coll_skip's hang.
  double statusMs = 0, collectivesMs = 0, whereMs = 0;
  /// CPU time of the front end (this process, all threads) per command.
  double statusCpuMs = 0, collectivesCpuMs = 0, whereCpuMs = 0;
  ResidentKiB frontEnd;    ///< VmRSS after the commands, VmHWM since the size started
  RankMemory withRuntime;  ///< each rank under the debugger, after the commands
  std::optional<RankMemory> withoutRuntime;  ///< the plain job (busy-polling in the same hang)
  /// Mappings of files a rank maps only with the runtime (libmpidbg-rt.so and
  /// the libraries it brings): median over ranks. Unset without a baseline.
  std::optional<MappingKiB> runtimeFiles;
  std::vector<std::string> runtimeFilePaths;  ///< those files
  std::string note;                           ///< why something was not measured
  std::vector<std::string> failures;          ///< functional failures (wrong results)
};

/// Runs every size in turn (one job at a time) and returns a row per size.
/// Prints a line of progress per size to stdout.
std::vector<RealRow> runRealJobs(const RealOptions& options);

/// Prints the latency table with growth per doubling, the memory table and
/// the comparison with issue 9's targets.
void printRealTables(const std::vector<RealRow>& rows);

}  // namespace mpidbg::bench
