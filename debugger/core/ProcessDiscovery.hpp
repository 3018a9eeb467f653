#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// A process of a running MPI job, found without the job's help (attach
/// --pid, attach --slurm; ../shared/DESIGN.md "launch/attach providers").
struct FoundRank {
  int rank = 0;
  int size = 0;            ///< the job's size as the process's environment says; 0 when it does not
  pid_t pid = 0;
  std::string executable;  ///< /proc/PID/exe
  bool hasRuntime = false; ///< libmpidbg-rt is mapped into it
  std::string node;        ///< the node as its launcher names it (MPIR host_name); empty when not told
};

/// The value of variable `name` in a process's environment block
/// (`environ`: NUL-separated NAME=VALUE, as /proc/PID/environ), if set.
std::optional<std::string_view> environmentVariable(std::string_view environ, std::string_view name);

/// The bytes of the file at `path` ("" when it cannot be read): /proc files,
/// whose size stat does not tell.
std::string readWholeFile(const std::string& path);

/// The rank of a process from the variables its launcher put in its
/// environment (`environ`: NUL-separated NAME=VALUE): PMI_RANK / PMI_SIZE
/// (MPICH Hydra, Slurm's PMI2), OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_SIZE
/// (Open MPI), PMIX_RANK (any PMIx launcher), SLURM_PROCID with
/// SLURM_STEP_NUM_TASKS or SLURM_NTASKS (srun), first found in that order.
/// Size 0 when no size variable goes with the rank. nullopt when the
/// environment names no rank.
std::optional<FoundRank> rankFromEnvironment(std::string_view environ);

/// Every rank under launcher process `launcher` (mpiexec, mpirun): its
/// descendants, read from /proc, each identified by rankFromEnvironment on
/// its /proc/PID/environ; a rank's own children (which inherit its
/// environment) are not ranks. In rank order. Errors: no such process; its
/// environment cannot be read (another user's job); no descendant names a
/// rank (not an MPI launcher, or the ranks run on other hosts); two
/// processes claim one rank.
Expected<std::vector<FoundRank>> ranksUnderLauncher(pid_t launcher);

/// The ranks on this host of the job of launcher `launcher` (srun, an Open
/// MPI mpirun started under a debugger), from the launcher's MPIR_proctable
/// (readMpirProctable): entry i is rank i; an entry is on this host when a
/// live process has its pid and either names rank i in its environment or,
/// naming no rank, runs an executable of the entry's file name. FoundRank::node
/// is the entry's host name, FoundRank::size the table's size. Errors: those of
/// readMpirProctable; no entry is on this host (naming the hosts).
Expected<std::vector<FoundRank>> ranksFromMpir(pid_t launcher);

/// How ranksOfLauncher found the ranks.
enum class LauncherSource { MpirProctable, ProcessTree };

/// The ranks of launcher `launcher`: from its MPIR_proctable when it has a
/// filled one (ranksFromMpir), else from its process tree
/// (ranksUnderLauncher). Errors: the process tree's, with why MPIR did not
/// serve appended.
Expected<std::pair<std::vector<FoundRank>, LauncherSource>> ranksOfLauncher(pid_t launcher);

/// The ranks of Slurm job step `step` ("JOBID" or "JOBID.STEP") on this
/// node, from `scontrol listpids STEP` (its GLOBALID column is the rank,
/// checked against the environment). Errors: scontrol is missing or fails
/// (its own words), the step has no task on this node.
Expected<std::vector<FoundRank>> ranksOfSlurmStep(const std::string& step);

/// The job's size for `ranks`: the size their environments agree on, else
/// the highest rank + 1; with a note (" ...", empty when all is well) when
/// the sizes disagree or some ranks were not found on this host.
std::pair<int, std::string> jobSizeOf(const std::vector<FoundRank>& ranks);

}  // namespace mpidbg::core
