// ProcessModules (a process's maps as modules and load biases) and
// symbolizeGdbThread (gdb's pcs symbolized as the runtime's captures are):
// issue 24 item 4, one stack one group.
#include <link.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "debugger/core/StackQuery.hpp"
#include "debugger/core/stacks/ProcessModules.hpp"
#include "debugger/core/stacks/Symbolizer.hpp"
#include "mpidbg/Error.hpp"

using mpidbg::core::GdbFrame;
using mpidbg::core::GdbThread;
using mpidbg::core::symbolizeGdbThread;
using mpidbg::core::stacks::ProcessModules;
using mpidbg::core::stacks::Symbolizer;

namespace {

volatile int gModulesSink = 0;

[[gnu::noinline, gnu::noclone]] void* modulesProbeReturnAddress() {
  void* ra = __builtin_return_address(0);
  gModulesSink = gModulesSink + 1;
  return ra;
}

[[gnu::always_inline]] inline void* modulesProbeInlined() {
  void* ra = modulesProbeReturnAddress();
  gModulesSink = gModulesSink + 3;
  return ra;
}

constexpr int kModulesOuterCallLine = __LINE__ + 2;
[[gnu::noinline, gnu::noclone]] void* modulesProbeOuter() {
  void* ra = modulesProbeInlined();
  gModulesSink = gModulesSink + 4;
  return ra;
}

/// This executable's load bias (dl_iterate_phdr's dlpi_addr of the main program).
std::uint64_t mainProgramBias() {
  std::uint64_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        *static_cast<std::uint64_t*>(data) = info->dlpi_addr;
        return 1;  // the main program comes first
      },
      &bias);
  return bias;
}

GdbFrame gdbFrameAt(const char* function, const void* pc) {
  GdbFrame f;
  f.function = function;
  f.pc = reinterpret_cast<std::uint64_t>(pc);
  return f;
}

}  // namespace

TEST_CASE("a process's maps become modules with their load biases", "[stacks][modules]") {
  const std::string maps =
      "555555554000-555555556000 r--p 00000000 08:01 100 /opt/app/solver\n"
      "555555556000-555555558000 r-xp 00002000 08:01 100 /opt/app/solver\n"
      "555555558000-555555559000 rw-p 00004000 08:01 100 /opt/app/solver\n"
      "7ffff7dd0000-7ffff7df0000 r--p 00000000 08:01 200 /usr/lib/libmpi.so.12 (deleted)\n"
      "7ffff7df0000-7ffff7e80000 r-xp 00020000 08:01 200 /usr/lib/libmpi.so.12 (deleted)\n"
      "00400000-00401000 r-xp 00000000 08:01 300 /opt/old/nopie\n"
      "7ffff7e90000-7ffff7e91000 r-xp 00000000 08:01 400 /opt/broken.so\n"
      "7ffff7fc1000-7ffff7fc3000 r-xp 00000000 00:00 0 [vdso]\n"
      "7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0 [stack]\n"
      "not a maps line\n";
  const auto firstLoad = [](const std::string& path) -> mpidbg::Expected<std::uint64_t> {
    if (path == "/opt/old/nopie") return 0x400000;
    if (path == "/opt/broken.so") return mpidbg::fail("not ELF");
    return 0;
  };
  const ProcessModules modules = ProcessModules::parse(maps, firstLoad);
  REQUIRE(modules.modules().size() == 4);
  CHECK(modules.modules()[0].path == "/opt/app/solver");
  CHECK(modules.modules()[1].path == "/usr/lib/libmpi.so.12");
  CHECK(modules.modules()[2].path == "/opt/old/nopie");
  CHECK(modules.modules()[3].path == "[vdso]");

  // PIE executable: offset from its offset-0 mapping.
  auto f = modules.locate(0x555555556010, true);
  CHECK(f.module == 0);
  CHECK(f.offset == 0x2010);
  CHECK(f.exact);
  // A shared library read through its "(deleted)" name.
  f = modules.locate(0x7ffff7df1234, false);
  CHECK(f.module == 1);
  CHECK(f.offset == 0x21234);
  CHECK_FALSE(f.exact);
  // Non-PIE: the link-time address is the process address.
  f = modules.locate(0x400500, false);
  CHECK(f.module == 2);
  CHECK(f.offset == 0x400500);
  f = modules.locate(0x7ffff7fc1100, false);
  CHECK(f.module == 3);
  // Not code (a read-only mapping), a file that is not ELF, nothing mapped:
  // no module, the absolute pc.
  for (std::uint64_t pc : {0x555555554010ull, 0x7ffff7e90010ull, 0x1000ull, 0x7ffffffde100ull}) {
    INFO("pc " << std::hex << pc);
    f = modules.locate(pc, false);
    CHECK(f.module == -1);
    CHECK(f.offset == pc);
  }
}

TEST_CASE("this process's modules locate its code as dl_iterate_phdr does", "[stacks][modules]") {
  auto modules = ProcessModules::read(::getpid());
  REQUIRE(modules);
  const void* pc = modulesProbeReturnAddress();
  const auto f = modules->locate(reinterpret_cast<std::uint64_t>(pc), false);
  REQUIRE(f.module >= 0);
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  REQUIRE(n > 0);
  CHECK(modules->modules()[static_cast<std::size_t>(f.module)].path == std::string(exe, static_cast<std::size_t>(n)));
  CHECK(f.offset == reinterpret_cast<std::uint64_t>(pc) - mainProgramBias());

  const auto gone = ProcessModules::read(999999999);
  REQUIRE_FALSE(gone);
  CHECK(gone.error().message.find("/proc/999999999/maps") != std::string::npos);
}

TEST_CASE("gdb's frames are symbolized as the runtime's captures of the same stack", "[stacks][modules]") {
  auto modules = ProcessModules::read(::getpid());
  REQUIRE(modules);
  Symbolizer symbolizer;
  // What gdb's `bt -frame-info location-and-address` prints for a thread
  // stopped in modulesProbeReturnAddress called from the inlined
  // modulesProbeInlined in modulesProbeOuter: the inlined function and the
  // function holding it carry the same pc.
  const void* ra = modulesProbeOuter();
  GdbThread thread;
  thread.number = 1;
  thread.frames = {gdbFrameAt("gdb name 0", reinterpret_cast<const void*>(&modulesProbeReturnAddress)),
                   gdbFrameAt("gdb name 1", ra), gdbFrameAt("gdb name 2", ra), gdbFrameAt("<signal handler called>", nullptr),
                   gdbFrameAt("gdb name 4", ra)};
  const auto frames = symbolizeGdbThread(thread, &*modules, symbolizer);
  REQUIRE(frames.size() == 6);
  CHECK(frames[0].function.find("modulesProbeReturnAddress") != std::string::npos);
  CHECK(frames[1].function.find("modulesProbeInlined") != std::string::npos);
  CHECK(frames[1].inlined);
  CHECK(frames[2].function.find("modulesProbeOuter") != std::string::npos);
  CHECK(frames[2].line == kModulesOuterCallLine);
  CHECK_FALSE(frames[2].module.empty());
  CHECK(frames[3].function == "<signal handler called>");
  // Past a signal trampoline the pc is exact: the same chain again.
  CHECK(frames[4].function.find("modulesProbeInlined") != std::string::npos);
  CHECK(frames[5].function.find("modulesProbeOuter") != std::string::npos);

  // Two frames of one pc that the symbolizer gives one function (recursion)
  // stay two frames.
  thread.frames = {gdbFrameAt("gdb name 0", reinterpret_cast<const void*>(&modulesProbeReturnAddress)),
                   gdbFrameAt("gdb name 1", reinterpret_cast<const void*>(&modulesProbeReturnAddress))};
  CHECK(symbolizeGdbThread(thread, &*modules, symbolizer).size() == 2);

  // Without the process's modules (a rank on another host), gdb's names.
  thread.frames = {gdbFrameAt("poll", ra), gdbFrameAt("main", ra)};
  thread.frames[1].file = "solver.c";
  thread.frames[1].line = 12;
  const auto named = symbolizeGdbThread(thread, nullptr, symbolizer);
  REQUIRE(named.size() == 2);
  CHECK(named[0].function == "poll");
  CHECK(named[1].function == "main");
  CHECK(named[1].file == "solver.c");
  CHECK(named[1].line == 12);
}
