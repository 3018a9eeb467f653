#pragma once

#include <string>
#include <vector>

namespace mpidbg::cli {

/// `mpidbg core [--mqs] [--json] [--no-frames] [--mqs-dll PATH] CORE...`: the queues and
/// the hang verdict of a job from its ranks' core files, read through the
/// message-queue DLL (no job, no gdb), each waiting rank's call site from its
/// core's stack unless --no-frames. Exit 0 when every core was read, 65
/// when some could not be, 64 on a usage error. `args` are the words after
/// "core".
int coreMain(const std::vector<std::string>& args);

}  // namespace mpidbg::cli
