// The machinery table: which objects are mpidbg's runtime, the MPI library and
// its transports, or the C library, and which are the application's.

#include <catch2/catch.hpp>
#include <string>

#include "debugger/core/GdbFrameScript.hpp"
#include "debugger/core/stacks/Machinery.hpp"

using namespace mpidbg::core;
using stacks::ObjectRole;

TEST_CASE("objectRole sorts objects by their file name", "[stacks][machinery]") {
  struct Row {
    std::string path;
    ObjectRole role;
  };
  const Row rows[] = {
      {"/opt/mpidbg/lib/libmpidbg-rt.so", ObjectRole::Runtime},
      {"libmpidbg-rt-ompi.so", ObjectRole::Runtime},
      {"/lib/x86_64-linux-gnu/libmpich.so.12", ObjectRole::MpiLibrary},
      {"/usr/lib/x86_64-linux-gnu/libmpi.so.40", ObjectRole::MpiLibrary},
      {"/lib/x86_64-linux-gnu/libucs.so.0", ObjectRole::MpiLibrary},
      {"/lib/x86_64-linux-gnu/libucp.so.0", ObjectRole::MpiLibrary},
      {"/usr/lib/x86_64-linux-gnu/libopen-pal.so.40", ObjectRole::MpiLibrary},
      {"/usr/lib/x86_64-linux-gnu/libpmix.so.2", ObjectRole::MpiLibrary},
      {"/usr/lib/x86_64-linux-gnu/libfabric.so.1", ObjectRole::MpiLibrary},
      {"/lib/x86_64-linux-gnu/libc.so.6", ObjectRole::System},
      {"/lib64/ld-linux-x86-64.so.2", ObjectRole::System},
      {"/work/build/examples/deadlock", ObjectRole::Application},
      {"/usr/lib/x86_64-linux-gnu/libcrypto.so.3", ObjectRole::Application},  // libc only as libc.so / libc-
      {"/usr/lib/liblammps.so", ObjectRole::Application},
      {"", ObjectRole::Application},
      {"??", ObjectRole::Application},
  };
  for (const Row& row : rows) {
    INFO(row.path);
    CHECK(stacks::objectRole(row.path) == row.role);
  }
}

TEST_CASE("the gdb frame script is one console command with the machinery table in it",
          "[stacks][machinery]") {
  const std::string script = gdbFrameScript();
  for (const stacks::MachineryPrefix& row : stacks::machineryPrefixes()) {
    INFO(row.prefix);
    CHECK(script.find("('" + std::string(row.prefix) + "', " +
                      (row.role == ObjectRole::Runtime ? "True" : "False") + ")") != std::string::npos);
  }
  CHECK(script.find("@") == std::string::npos);  // every placeholder filled
  CHECK(script.find(kSelectUserFrameCommand) != std::string::npos);
  const std::string command = gdbFrameScriptCommand();
  CHECK(command.starts_with("python exec('"));
  CHECK(command.ends_with("')"));
  CHECK(command.find('\n') == std::string::npos);
}
