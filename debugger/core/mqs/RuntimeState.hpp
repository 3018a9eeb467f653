#pragma once

#include <cstdint>
#include <string>

#include "debugger/core/mqs/SymbolSource.hpp"
#include "debugger/core/mqs/TargetMemory.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core::mqs {

/// The few facts the host reads from the runtime's exported state itself
/// (common/include/mpidbg/StateLayout.h); everything else goes through the
/// mqs DLL. The target's byte order must be the host's.

/// root.world_rank of the runtime in the target: finds `mpidbg_layout`,
/// checks its magic and version, looks up the "root" rows "magic" and
/// "world_rank", and reads them at `mpidbg_state`. Errors: "no mpidbg
/// runtime in <target> (symbol mpidbg_layout not found)", a bad magic or
/// version, "the runtime in <target> has not attached yet", read failures.
Expected<std::int32_t> readWorldRank(TargetMemory& memory, const SymbolSource& symbols);

/// The string at the target's `MPIR_dll_name` (a char array, the MPIR
/// convention): the mqs DLL the MPI library or runtime names. Errors when
/// the symbol is absent, the string is empty, unreadable or over 4096 bytes.
Expected<std::string> readDllName(TargetMemory& memory, const SymbolSource& symbols);

}  // namespace mpidbg::core::mqs
