// The core-file backend and core symbols: gcore (gdb) dumps a forked child;
// the value the child stored is read back through the core's PT_LOAD
// segments, symbols come from its NT_FILE note, and program text gcore left
// out is read from the mapped file.

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ForkedChild.hpp"
#include "debugger/core/mqs/CoreFile.hpp"
#include "debugger/core/mqs/SymbolSource.hpp"
#include "debugger/core/stacks/CoreStacks.hpp"
#include "debugger/core/stacks/Symbolizer.hpp"
#include "mpidbg/ScopedFd.hpp"

using mpidbg::core::mqs::CoreFile;
using mpidbg::core::mqs::readCString;
using mpidbg::core::mqs::SymbolSource;
using mqs_test::ForkedChild;
using mqs_test::selfExe;
using mqs_test::addressOf;
using mqs_test::why;

extern "C" int mpidbg_mqs_test_function(int x);

TEST_CASE("a gcore core of a child: memory, NT_FILE symbols, omitted text", "[mqshost][core]") {
  MQS_TEST_SKIP_CORES();
  mqs_test::TempDir dir;
  ForkedChild child;
  const std::string corePath = mqs_test::makeCore(child.pid(), dir.path());
  REQUIRE_FALSE(corePath.empty());

  auto core = CoreFile::open(corePath);
  INFO(why(core));
  REQUIRE(core);
  CHECK((*core)->describe() == "core " + corePath);
  CHECK((*core)->pid() == child.pid());
  CHECK_FALSE((*core)->fileMappings().empty());
  auto exe = (*core)->executable();
  REQUIRE(exe);
  CHECK(*exe == selfExe());

  auto symbols = SymbolSource::fromCore(**core);
  INFO(why(symbols));
  REQUIRE(symbols);
  CHECK(symbols->executable().object->path() == selfExe());
  const auto valueAddr = symbols->findSymbol("mpidbg_mqs_test_value");
  REQUIRE(valueAddr);
  CHECK(*valueAddr == addressOf(&mpidbg_mqs_test_value));
  CHECK(symbols->findSymbol("environ") == addressOf(&environ));

  std::uint64_t value = 0;
  auto ok = (*core)->read(*valueAddr, std::as_writable_bytes(std::span(&value, 1)));
  INFO(why(ok));
  REQUIRE(ok);
  CHECK(value == mqs_test::kChildValue);
  auto text = readCString(**core, addressOf(mpidbg_mqs_test_text));
  REQUIRE(text);
  CHECK(*text == mqs_test::kChildText);

  // Program text: gcore leaves unmodified read-only file mappings out; the
  // bytes come from the executable file and equal the parent's code.
  const auto function = symbols->findFunction("mpidbg_mqs_test_function");
  REQUIRE(function);
  std::byte code[16];
  auto read = (*core)->read(*function, code);
  INFO(why(read));
  REQUIRE(read);
  CHECK(std::memcmp(code, reinterpret_cast<const void*>(&mpidbg_mqs_test_function), sizeof code) ==
        0);

  std::byte buffer[8];
  auto bad = (*core)->read(0x10, buffer);
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::Contains("address 0x10 is not in core " + corePath));
}

TEST_CASE("files that are not cores are refused", "[mqshost][core]") {
  auto notCore = CoreFile::open(selfExe());
  REQUIRE_FALSE(notCore);
  CHECK_THAT(notCore.error().message, Catch::Contains("is not a core file"));
  auto missing = CoreFile::open("/nonexistent/core.1");
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message, Catch::Contains("cannot open /nonexistent/core.1"));
  auto notElf = CoreFile::open("/etc/hostname");
  REQUIRE_FALSE(notElf);
  CHECK_THAT(notElf.error().message, Catch::Contains("is not an ELF file"));
}

TEST_CASE("damaged cores give errors, never a crash", "[mqshost][core]") {
  MQS_TEST_SKIP_CORES();
  mqs_test::TempDir dir;
  std::string corePath;
  {
    ForkedChild child;
    corePath = mqs_test::makeCore(child.pid(), dir.path());
  }
  REQUIRE_FALSE(corePath.empty());
  std::ifstream in(corePath, std::ios::binary);
  const std::string original((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  REQUIRE(original.size() > 4096);

  // The damaged variants live in one memfd (tmpfs), changed in place: the
  // core holds the whole heap of the test process and can be large.
  mpidbg::ScopedFd memfd(::memfd_create("mpidbg-damaged-core", MFD_CLOEXEC));
  REQUIRE(memfd.valid());
  REQUIRE(::write(memfd.get(), original.data(), original.size()) ==
          static_cast<ssize_t>(original.size()));
  const std::string path = "/proc/self/fd/" + std::to_string(memfd.get());
  auto tryCore = [&] {
    auto core = CoreFile::open(path);
    if (!core) return;  // refused: fine
    std::uint64_t value = 0;
    (void)(*core)->read(addressOf(&mpidbg_mqs_test_value),
                        std::as_writable_bytes(std::span(&value, 1)));
    (void)(*core)->executable();
    (void)SymbolSource::fromCore(**core);
  };
  auto put = [&](std::size_t at, char byte) {
    REQUIRE(::pwrite(memfd.get(), &byte, 1, static_cast<off_t>(at)) == 1);
  };

  // Flipped bits in the first page (ELF and program headers) and anywhere
  // (notes, memory), a deterministic pseudo-random walk; each round is
  // undone before the next.
  std::uint32_t state = 12345;
  for (int round = 0; round < 200; ++round) {
    std::vector<std::size_t> touched;
    for (int flips = 0; flips < 8; ++flips) {
      state = state * 1103515245u + 12345u;
      const std::size_t at = round % 2 == 0 ? state % 4096 : state % original.size();
      touched.push_back(at);
      put(at, static_cast<char>(original[at] ^ static_cast<char>(1u << (state >> 29))));
    }
    tryCore();
    for (std::size_t at : touched) put(at, original[at]);
  }
  // Truncations, longest first: part of the notes or memory, headers only.
  for (std::size_t size : {original.size() - 1, original.size() / 2, std::size_t{500},
                           std::size_t{64}, std::size_t{63}, std::size_t{0}}) {
    INFO("truncated to " << size);
    REQUIRE(::ftruncate(memfd.get(), static_cast<off_t>(size)) == 0);
    tryCore();
  }
  SUCCEED("no crash");
}

TEST_CASE("a core's threads unwind into the frames a rank's runtime sends", "[mqshost][core][stacks]") {
  MQS_TEST_SKIP_CORES();
  mqs_test::TempDir dir;
  ForkedChild child;
  const std::string corePath = mqs_test::makeCore(child.pid(), dir.path());
  REQUIRE_FALSE(corePath.empty());

  auto stacks = mpidbg::core::stacks::readCoreStacks(corePath, selfExe());
  INFO(why(stacks));
  REQUIRE(stacks);
  CHECK(stacks->pid == child.pid());
  CHECK(stacks->worldRank == -1);
  REQUIRE_FALSE(stacks->threads.empty());
  const auto& main = stacks->threads.front();
  CHECK(main.mainThread);
  CHECK(main.tid == child.pid());
  CHECK(main.error.empty());
  REQUIRE(main.frames.size() >= 3);
  CHECK(main.frames[0].exact);
  CHECK_FALSE(main.frames[1].exact);
  // Symbolized as captured frames are: the child sleeps (libc), called from
  // this test binary, down to its main.
  mpidbg::core::stacks::Symbolizer symbolizer;
  std::vector<std::string> names, modules;
  for (const auto& frame : main.frames)
    for (const auto& f : symbolizer.symbolize(*stacks, frame).frames) {
      names.push_back(f.function);
      modules.push_back(f.module);
    }
  INFO("frames: " << Catch::Detail::stringify(names));
  CHECK(std::find(names.begin(), names.end(), "main") != names.end());
  CHECK(std::find(modules.begin(), modules.end(), selfExe()) != modules.end());
  CHECK(std::any_of(names.begin(), names.end(), [](const std::string& n) { return n.find("sleep") != std::string::npos; }));

  auto notCore = mpidbg::core::stacks::readCoreStacks(selfExe(), "");
  REQUIRE_FALSE(notCore);
  CHECK_THAT(notCore.error().message, Catch::Contains("not a core file"));
  auto missing = mpidbg::core::stacks::readCoreStacks(dir.path() + "/no-such-core", "");
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message, Catch::Contains("cannot open"));
}
