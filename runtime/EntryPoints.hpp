#pragma once

#include <vector>

#include "ccs/proto/ControlProtocol.hpp"

namespace mpidbg::rt {

/// Every entry point name reached so far (MPIDBG_ENTRY sites registered on
/// their first hit), with the hits of all sites of that name summed, sorted
/// by name. Names are cut at 256 bytes. Any thread; allocates.
std::vector<ccs::proto::EntryInfo> entryPoints();

}  // namespace mpidbg::rt
