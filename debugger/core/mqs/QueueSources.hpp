#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "ccs/proto/QueueProtocol.hpp"
#include "debugger/core/mqs/SymbolSource.hpp"
#include "debugger/core/mqs/TargetMemory.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::gdbmi {
class Session;
}

namespace mpidbg::core::mqs {

/// Entry points for the CLI (`queues`, `hang`, `mpidbg core --mqs`): pick
/// the DLL, build the memory backend and symbol source, read through the DLL.
///
/// Which DLL: `dllOverride` (the --mqs-dll option) when not empty; else the
/// target's MPIR_dll_name string; else defaultDllPath(). DLLs are loaded once
/// per path for the whole process (MqsHost::shared).

/// lib/libmpidbg-mqs.so beside the running executable's bin/ directory
/// (the build tree and the install share that layout).
std::string defaultDllPath();

/// The DLL to use for a target, by the rule above.
std::string chooseDll(const std::string& dllOverride, TargetMemory& memory,
                      const SymbolSource& symbols);

/// Reads live process `pid` (world rank `worldRank`, -1 = read it from the
/// runtime) with process_vm_readv and /proc/PID/maps. The process should be
/// stopped (SIGSTOP, ptrace, or frozen by the runtime): a running one may
/// give torn values. Errors as readRankQueues, or the pid cannot be read.
Expected<ccs::proto::RankQueues> readLiveRank(int worldRank, pid_t pid,
                                              const std::string& dllOverride);

/// Reads the process `gdb` holds (attached and stopped) through gdb/MI
/// memory reads; symbols from /proc/PID/maps of the attached pid (gdb runs
/// on this host). Also fills RankQueues::frames from `-stack-list-frames`
/// (up to 16, innermost first, "func at file:line" or "func") so a verdict
/// can use inferCollectiveFromFrames when the DLL keeps no collective state.
/// Error when the session is not attached.
Expected<ccs::proto::RankQueues> readGdbRank(int worldRank, gdbmi::Session& gdb,
                                             const std::string& dllOverride);

/// Reads each core file (kernel or gcore): the executable from the core's
/// NT_FILE/auxv, the rank from root.world_rank, source "core:<path as
/// given>". One
/// RankQueues per core, sorted by world rank; a core that cannot be read
/// gives an entry with `error` set (worldRank -1 when unknown) rather than
/// failing the others. Error only when `cores` is empty.
Expected<std::vector<ccs::proto::RankQueues>> readCoreFiles(const std::vector<std::string>& cores,
                                                            const std::string& dllOverride);

}  // namespace mpidbg::core::mqs
