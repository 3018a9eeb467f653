// mpidbg: the terminal debugger for MPI jobs. Thin: the subcommands (core,
// record, check) go to their own mains; a session's options are parsed
// (SessionOptions.hpp) and the session run (Session.hpp).

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "debugger/cli/CoreMain.hpp"
#include "debugger/cli/ExitCodes.hpp"
#include "debugger/cli/RecordMain.hpp"
#include "debugger/cli/Session.hpp"

using namespace mpidbg;

namespace {

/// `mpidbg check ARGS`: runs mpidbg-check next to this executable with ARGS
/// (docs/check.md). Returns only when it could not be started (64).
int checkMain(char** args) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string tool = ec ? "mpidbg-check" : (exe.parent_path() / "mpidbg-check").string();
  std::vector<char*> argv{const_cast<char*>(tool.c_str())};
  for (char** a = args; *a; ++a) argv.push_back(*a);
  argv.push_back(nullptr);
  ::execv(tool.c_str(), argv.data());
  std::cerr << "mpidbg check: cannot run " << tool << ": " << std::strerror(errno)
            << " (built only where Clang's LibTooling is installed: scripts/install-deps)\n";
  return cli::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "core") return cli::coreMain({argv + 2, argv + argc});
  if (argc >= 2 && std::string(argv[1]) == "record") return cli::recordMain({argv + 2, argv + argc});
  if (argc >= 2 && std::string(argv[1]) == "check") return checkMain(argv + 2);
  const cli::ParsedSessionOptions parsed = cli::parseSessionOptions(argc, argv);
  if (!parsed.options) return parsed.exitCode;
  return cli::runSession(*parsed.options);
}
