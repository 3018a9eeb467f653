#pragma once

#include <string_view>

namespace mpidbg::check {

/// Whether the MPI function `name` is a collective over a communicator
/// (MPI 4.0 chapters 6 and 7: the blocking and nonblocking collectives, the
/// neighborhood collectives, the communicator and topology constructors).
bool isCollective(std::string_view name) noexcept;

}  // namespace mpidbg::check
