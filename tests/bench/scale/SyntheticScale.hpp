#pragma once

// scale_bench's synthetic mode (STAT's benchmark mode): thousands of
// emulated runtime endpoints (EndpointHost) in a few forked host processes,
// and this process as the front end sending the status broadcast through the
// forwarding tree and merging the reply as `status` does.
#include <chrono>
#include <string>
#include <vector>

#include "ProcMemory.hpp"
#include "ccs/tree/Tree.hpp"

namespace mpidbg::bench {

/// What to run.
struct SyntheticOptions {
  std::vector<long> sizes{4096, 16384};  ///< emulated ranks, one job each
  long repeat = 10;                      ///< timed broadcasts (after 2 untimed)
  std::size_t perHost = 2048;            ///< endpoints per host process
  /// N > 0: N threads per host sweep pollOnce(0) over its endpoints while
  /// a broadcast is in flight (EndpointHost). 0: one poll thread per
  /// endpoint, as each rank's runtime has its helper thread; that takes about
  /// two thread ids per endpoint (poll thread and the parent's forwarding
  /// worker), so it is refused beyond /proc/sys/kernel/pid_max, and on two
  /// cores it breaks down well before (thousands of threads waking 10 times
  /// a second each).
  long pollers = 1;
  std::size_t fanOut = ccs::kDefaultFanOut;   ///< of the forwarding tree
  std::chrono::milliseconds deadline{60000};  ///< of each broadcast
};

/// The measurements of one emulated size; times in ms (medians of repeat).
struct SyntheticRow {
  long ranks = 0;              ///< emulated ranks
  std::size_t hosts = 0;       ///< host processes they were spread over
  std::string polling;         ///< "thread per endpoint" or "N sweeping pollers per host"
  bool measured = false;       ///< every host started and the broadcasts ran
  double firstMs = 0;          ///< the first broadcast, opening the tree's connections
  double broadcastMs = 0;      ///< request to rendered status: tree + front end
  double treeMs = 0;           ///< the forward call: down the tree, merge on the way up
  double frontEndMs = 0;       ///< decoding the merged records, the views, renderStatus
  double frontEndCpuMs = 0;    ///< this process's CPU per broadcast
  double hostsCpuMs = 0;       ///< all host processes' CPU per broadcast (the emulated ranks)
  std::size_t replyBytes = 0;  ///< merged payload size
  ResidentKiB frontEnd;        ///< VmRSS after, VmHWM during this size
  double hostsRssKiB = 0;      ///< VmRSS of all host processes together
  std::string note;            ///< why it was not measured
  std::vector<std::string> failures;  ///< wrong results
};

/// Runs each size in turn; prints a progress line per size.
std::vector<SyntheticRow> runSynthetic(const SyntheticOptions& options);

/// Prints the table of the synthetic mode.
void printSyntheticTable(const std::vector<SyntheticRow>& rows);

}  // namespace mpidbg::bench
