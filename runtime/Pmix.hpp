#pragma once

// Facts from the PMIx server a rank runs under (issue 9): Slurm's srun
// --mpi=pmix, Open MPI's mpirun. The runtime links no PMIx library: it uses
// the libpmix the MPI library has loaded already (dlopen RTLD_NOLOAD), so a
// rank without PMIx (MPICH under Hydra or srun --mpi=pmi2) pays nothing and
// needs nothing installed.

#include <cstdint>
#include <string>

namespace mpidbg::rt {

/// What PMIx says about this process.
struct PmixFacts {
  bool available = false;  ///< a PMIx client is initialized in this process
  std::string nspace;      ///< the job's namespace (PMIX_NAMESPACE)
  std::int64_t rank = -1;  ///< this process's rank in it
  std::string node;        ///< PMIX_HOSTNAME: the node as the launcher names it ("n1"); "" if not given
  std::int64_t nodeId = -1;     ///< PMIX_NODEID
  std::int64_t localRank = -1;  ///< PMIX_LOCAL_RANK: rank among the job's processes on this node
  /// Why not available, for a log line ("no PMIx client in this process").
  std::string why;
};

/// Reads the facts (PMIx_Get of PMIX_HOSTNAME, PMIX_NODEID, PMIX_LOCAL_RANK
/// for this process's PMIX_NAMESPACE / PMIX_RANK from the environment). Call
/// after MPI_Init, which initialized the PMIx client. Never throws.
PmixFacts readPmixFacts() noexcept;

/// Publishes `endpoint` ("host:port" of the rank's CCS server) under the
/// key kPmixEndpointKey with PMIx_Put(PMIX_GLOBAL) and PMIx_Commit, so that
/// tools querying the PMIx server find the rank's server; then reads it back
/// with PMIx_Get. Returns "" on success, else why it failed.
std::string publishPmixEndpoint(const PmixFacts& facts, const std::string& endpoint) noexcept;

/// The PMIx key of the published endpoint.
inline constexpr const char* kPmixEndpointKey = "mpidbg.ccs.endpoint";

}  // namespace mpidbg::rt
