#pragma once

#include <string>
#include <vector>

#include "check/core/ProgramModel.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::check {

/// Where the compile flags of the files to check come from, as clang-tidy
/// takes them: a build directory with compile_commands.json (`-p DIR`), or
/// the flags after `--` for every file.
struct ExtractOptions {
  std::string buildDir;                 ///< "" when flags come after `--`
  std::vector<std::string> files;       ///< empty with buildDir: every file of the database
  std::vector<std::string> fixedFlags;  ///< the flags after `--`
  bool haveFixedFlags = false;          ///< `--` was given (possibly with no flags)
};

/// Parses every file with Clang (LibTooling) and builds the ProgramModel of
/// its functions: OpenMP constructs, barriers, MPI calls (communicator
/// argument, constant level of MPI_Init_thread, enclosing conditions whose
/// value flows from MPI_Comm_rank's output through assignments and returns),
/// calls to other functions. A file Clang cannot parse is named in
/// ProgramModel::problems with its first error and left out; the others are
/// checked. Fails (an Error) only when there is nothing to check: no
/// compilation database in buildDir, no files.
Expected<ProgramModel> extractProgram(const ExtractOptions& options);

}  // namespace mpidbg::check
