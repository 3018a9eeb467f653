#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "debugger/core/stacks/StackRender.hpp"
#include "debugger/core/stacks/StackTree.hpp"
#include "debugger/core/stacks/Symbolizer.hpp"

// Its own namespace: a unity batch may hold mqs::SymbolSource's tests too.
namespace symbolizer_test {

using mpidbg::ccs::proto::RankStacks;
using mpidbg::ccs::proto::StackFrame;
using mpidbg::ccs::proto::StackModule;
using mpidbg::ccs::proto::ThreadStack;
using mpidbg::core::stacks::demangle;
using mpidbg::core::stacks::Symbolizer;
using mpidbg::core::stacks::SymbolSource;

namespace {

// ---- Real pcs of known functions in this very binary -----------------------
// The probes are noinline/noclone and do work after their calls, so the
// return addresses they record lie inside the caller named in the test.

volatile int gSink = 0;

constexpr int kProbesFirstLine = __LINE__;
[[gnu::noinline, gnu::noclone]] void* stackProbeReturnAddress() {
  void* ra = __builtin_return_address(0);
  gSink = gSink + 1;
  return ra;
}

constexpr int kCallerCallLine = __LINE__ + 2;
[[gnu::noinline, gnu::noclone]] void* stackProbeCaller() {
  void* ra = stackProbeReturnAddress();
  gSink = gSink + 2;
  return ra;
}

constexpr int kInlinedCallLine = __LINE__ + 2;
[[gnu::always_inline]] inline void* stackProbeInlined() {
  void* ra = stackProbeReturnAddress();
  gSink = gSink + 3;
  return ra;
}

constexpr int kOuterCallLine = __LINE__ + 2;
[[gnu::noinline, gnu::noclone]] void* stackProbeOuter() {
  void* ra = stackProbeInlined();
  gSink = gSink + 4;
  return ra;
}
constexpr int kProbesLastLine = __LINE__;

// ---- Module-relative offsets, as the runtime computes them -----------------

std::string selfExe() {
  char path[4096];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string();
}

std::string hexBytes(const unsigned char* bytes, std::size_t n) {
  std::string out;
  char two[3];
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(two, sizeof two, "%02x", bytes[i]);
    out += two;
  }
  return out;
}

// The NT_GNU_BUILD_ID of an ELF64 file, read from its PT_NOTE segments.
std::string buildIdOfFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr eh{};
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh)) return {};
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(eh.e_phoff + i * sizeof ph));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) return {};
    if (ph.p_type != PT_NOTE) continue;
    std::vector<unsigned char> notes(ph.p_filesz);
    in.seekg(static_cast<std::streamoff>(ph.p_offset));
    if (!in.read(reinterpret_cast<char*>(notes.data()), static_cast<std::streamsize>(notes.size())))
      return {};
    std::size_t at = 0;
    auto align4 = [](std::size_t n) { return (n + 3) & ~std::size_t{3}; };
    while (at + sizeof(Elf64_Nhdr) <= notes.size()) {
      Elf64_Nhdr nh{};
      std::memcpy(&nh, notes.data() + at, sizeof nh);
      std::size_t name = at + sizeof nh;
      std::size_t desc = name + align4(nh.n_namesz);
      if (desc + nh.n_descsz > notes.size()) break;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
          std::memcmp(notes.data() + name, "GNU", 4) == 0)
        return hexBytes(notes.data() + desc, nh.n_descsz);
      at = desc + align4(nh.n_descsz);
    }
  }
  return {};
}

struct Located {
  StackModule module;
  std::uint64_t offset = 0;
};

// The loaded object holding `pc` (dl_iterate_phdr) and pc - its load bias.
std::optional<Located> locate(const void* pc) {
  struct Search {
    std::uintptr_t pc;
    std::optional<Located> found;
  } search{reinterpret_cast<std::uintptr_t>(pc), std::nullopt};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& ph = info->dlpi_phdr[i];
          const std::uintptr_t start = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type != PT_LOAD || s->pc < start || s->pc >= start + ph.p_memsz) continue;
          Located where;
          where.module.path = info->dlpi_name != nullptr && *info->dlpi_name != '\0'
                                  ? std::string(info->dlpi_name)
                                  : selfExe();
          where.module.buildId = buildIdOfFile(where.module.path);
          where.offset = s->pc - info->dlpi_addr;
          s->found = where;
          return 1;
        }
        return 0;
      },
      &search);
  return search.found;
}

bool endsWith(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

const std::string kThisFile = "SymbolizerTest.cpp";

}  // namespace

TEST_CASE("Symbolizer names functions, files and lines of this binary from DWARF",
          "[core][stacks][symbolizer]") {
  auto where = locate(stackProbeCaller());
  REQUIRE(where.has_value());
  REQUIRE(where->module.path == selfExe());
  INFO("module " << where->module.path << " build-id '" << where->module.buildId << "'");
  CHECK_FALSE(where->module.buildId.empty());

  Symbolizer symbolizer;
  SECTION("a return address is attributed to the line of its call") {
    const auto& result = symbolizer.symbolize(where->module, where->offset, false);
    CHECK(result.warning.empty());
    REQUIRE(result.frames.size() == 1);
    const auto& frame = result.frames[0];
    CHECK(frame.source == SymbolSource::Dwarf);
    CHECK(frame.function.find("stackProbeCaller") != std::string::npos);
    CHECK(endsWith(frame.file, kThisFile));
    CHECK(frame.line == kCallerCallLine);
    CHECK_FALSE(frame.inlined);
    CHECK(frame.module == where->module.path);
    CHECK(frame.offset == where->offset);
  }
  SECTION("an exact pc at a function's entry names that function") {
    auto entry = locate(reinterpret_cast<const void*>(&stackProbeReturnAddress));
    REQUIRE(entry.has_value());
    const auto& result = symbolizer.symbolize(entry->module, entry->offset, true);
    REQUIRE(result.frames.size() == 1);
    CHECK(result.frames[0].function.find("stackProbeReturnAddress") != std::string::npos);
    CHECK(endsWith(result.frames[0].file, kThisFile));
    CHECK(result.frames[0].line > kProbesFirstLine);
    CHECK(result.frames[0].line < kCallerCallLine);
  }
  SECTION("a pc in inlined code gives the inlined frame, then its caller at the call site") {
    auto inlined = locate(stackProbeOuter());
    REQUIRE(inlined.has_value());
    const auto& result = symbolizer.symbolize(inlined->module, inlined->offset, false);
    REQUIRE(result.frames.size() == 2);
    CHECK(result.frames[0].function.find("stackProbeInlined") != std::string::npos);
    CHECK(result.frames[0].inlined);
    CHECK(result.frames[0].line == kInlinedCallLine);
    CHECK(endsWith(result.frames[0].file, kThisFile));
    CHECK(result.frames[1].function.find("stackProbeOuter") != std::string::npos);
    CHECK_FALSE(result.frames[1].inlined);
    CHECK(result.frames[1].line == kOuterCallLine);
    CHECK(result.frames[1].line <= kProbesLastLine);
  }
}

TEST_CASE("Symbolizer opens each module once and looks up each frame once",
          "[core][stacks][symbolizer]") {
  auto caller = locate(stackProbeCaller());
  auto outer = locate(stackProbeOuter());
  REQUIRE(caller.has_value());
  REQUIRE(outer.has_value());
  Symbolizer symbolizer;
  const auto& first = symbolizer.symbolize(caller->module, caller->offset, false);
  const auto& again = symbolizer.symbolize(caller->module, caller->offset, false);
  CHECK(&first == &again);
  CHECK(symbolizer.lookups() == 1);
  CHECK(symbolizer.modulesOpened() == 1);
  symbolizer.symbolize(outer->module, outer->offset, false);
  CHECK(symbolizer.lookups() == 2);
  CHECK(symbolizer.modulesOpened() == 1);

  RankStacks stacks;
  stacks.modules = {caller->module};
  StackFrame frame{0, caller->offset, false};
  CHECK(&symbolizer.symbolize(stacks, frame) == &first);
  CHECK(symbolizer.lookups() == 2);
}

TEST_CASE("Symbolizer names shared-library functions", "[core][stacks][symbolizer]") {
  // libc has detached debug info where libc6-dbg is installed (then DWARF
  // names it), libstdc++ and zlib usually only their dynamic symbol table.
  struct Row {
    const char* symbol;
    const char* name;  // what the frame's function contains
  };
  const Row rows[] = {
      {"write", "write"},
      {"malloc", "malloc"},
      {"_Znwm", "operator new(unsigned long)"},
      {"deflate", "deflate"},
  };
  for (const Row& row : rows) {
    INFO(row.symbol);
    void* address = ::dlsym(RTLD_DEFAULT, row.symbol);
    REQUIRE(address != nullptr);
    auto where = locate(address);
    REQUIRE(where.has_value());
    CHECK(where->module.path != selfExe());
    Symbolizer symbolizer;
    const auto& entry = symbolizer.symbolize(where->module, where->offset, true);
    CHECK(entry.warning.empty());
    REQUIRE_FALSE(entry.frames.empty());
    CHECK(entry.frames.back().function.find(row.name) != std::string::npos);
    // A return address 16 bytes in is looked up at 15 bytes in.
    const auto& inside = symbolizer.symbolize(where->module, where->offset + 16, false);
    REQUIRE_FALSE(inside.frames.empty());
    CHECK(inside.frames.back().function.find(row.name) != std::string::npos);
    switch (inside.frames.back().source) {
      case SymbolSource::Symtab:
        CHECK(entry.frames.back().symbolOffset == 0);
        CHECK(inside.frames.back().symbolOffset == 15);
        CHECK(inside.frames.back().file.empty());
        break;
      case SymbolSource::Dwarf:
        CHECK_FALSE(inside.frames.back().file.empty());
        CHECK(inside.frames.back().line > 0);
        break;
      default:
        FAIL("no symbol found");
    }
  }
}

TEST_CASE("Symbolizer falls back to the ELF symbol table without DWARF",
          "[core][stacks][symbolizer]") {
  auto caller = locate(stackProbeCaller());
  auto entry = locate(reinterpret_cast<const void*>(&stackProbeCaller));
  REQUIRE(caller.has_value());
  REQUIRE(entry.has_value());
  // This binary without its debug sections (same build-id, .symtab kept).
  const std::string stripped = "/tmp/mpidbg-stacks-stripped-" + std::to_string(::getpid());
  const std::string command =
      "objcopy --strip-debug '" + selfExe() + "' '" + stripped + "' 2>/dev/null";
  if (std::system(command.c_str()) != 0) {
    WARN("objcopy is not available: symbol-table fallback not tested");
    return;
  }
  Symbolizer symbolizer;
  const auto& result =
      symbolizer.symbolize({stripped, caller->module.buildId}, caller->offset, false);
  ::unlink(stripped.c_str());
  CHECK(result.warning.empty());
  REQUIRE(result.frames.size() == 1);
  const auto& frame = result.frames[0];
  CHECK(frame.source == SymbolSource::Symtab);
  CHECK(frame.function.find("stackProbeCaller()") != std::string::npos);
  CHECK(frame.file.empty());
  CHECK(frame.line == 0);
  CHECK(frame.symbolOffset == caller->offset - 1 - entry->offset);
}

TEST_CASE("Symbolizer degrades gracefully on bad modules and offsets",
          "[core][stacks][symbolizer]") {
  auto where = locate(stackProbeCaller());
  REQUIRE(where.has_value());
  Symbolizer symbolizer;

  SECTION("a missing file gives ?? with module and offset, and says why") {
    const auto& result = symbolizer.symbolize({"/nonexistent/libgone.so", "abcd"}, 0x1234, false);
    REQUIRE(result.frames.size() == 1);
    CHECK(result.frames[0].function == "??");
    CHECK(result.frames[0].source == SymbolSource::None);
    CHECK(result.frames[0].module == "/nonexistent/libgone.so");
    CHECK(result.frames[0].offset == 0x1234);
    CHECK(result.warning.find("cannot open /nonexistent/libgone.so") != std::string::npos);
  }
  SECTION("a file that is not ELF gives ?? and a warning") {
    char path[] = "/tmp/mpidbg-stacks-notelf-XXXXXX";
    int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    const char text[] = "just some text, not an ELF object\n";
    REQUIRE(::write(fd, text, sizeof text - 1) == static_cast<ssize_t>(sizeof text - 1));
    ::close(fd);
    const auto& result = symbolizer.symbolize({path, ""}, 0x10, true);
    ::unlink(path);
    REQUIRE(result.frames.size() == 1);
    CHECK(result.frames[0].function == "??");
    CHECK(result.warning.find(path) != std::string::npos);
  }
  SECTION("a different build-id still symbolizes from the file but is flagged") {
    const auto& result =
        symbolizer.symbolize({where->module.path, "00112233"}, where->offset, false);
    REQUIRE(result.frames.size() == 1);
    CHECK(result.frames[0].function.find("stackProbeCaller") != std::string::npos);
    CHECK(result.warning.find("build-id 00112233 in the rank") != std::string::npos);
    CHECK(result.warning.find(where->module.buildId) != std::string::npos);
  }
  SECTION("garbage offsets give ??") {
    for (std::uint64_t offset : {std::uint64_t{0}, std::uint64_t{1}, ~std::uint64_t{0},
                                 std::uint64_t{0xfffffffffff00000ULL}}) {
      for (bool exact : {true, false}) {
        const auto& result = symbolizer.symbolize(where->module, offset, exact);
        INFO("offset " << offset << " exact " << exact);
        REQUIRE(result.frames.size() == 1);
        CHECK(result.frames[0].function == "??");
        CHECK(result.frames[0].offset == offset);
        CHECK(result.warning.empty());
      }
    }
  }
  SECTION("the vDSO is named by its pseudo path") {
    const auto& result = symbolizer.symbolize({"[vdso]", ""}, 0x9a0, false);
    REQUIRE(result.frames.size() == 1);
    CHECK(result.frames[0].function == "[vdso]");
    CHECK(result.frames[0].source == SymbolSource::Pseudo);
    CHECK(result.warning.empty());
  }
  SECTION("a pc in no module, or a module index out of range, gives ??") {
    RankStacks stacks;
    stacks.modules = {where->module};
    for (int module : {-1, 1, 99}) {
      const auto& result = symbolizer.symbolize(stacks, StackFrame{module, 0x7f0000001000, false});
      REQUIRE(result.frames.size() == 1);
      CHECK(result.frames[0].function == "??");
      CHECK(result.frames[0].module.empty());
    }
  }
  CHECK(symbolizer.modulesOpened() <= 1);
}

TEST_CASE("demangle turns Itanium names into C++ and leaves others alone",
          "[core][stacks][symbolizer]") {
  struct Row {
    const char* in;
    const char* out;
  };
  const Row rows[] = {
      {"_ZN6solver5solveEi", "solver::solve(int)"},
      {"main", "main"},
      {"MPI_Allreduce", "MPI_Allreduce"},
      {"_Z", "_Z"},
      {"_Zgarbage", "_Zgarbage"},
  };
  for (const auto& row : rows) CHECK(demangle(row.in) == row.out);
}

TEST_CASE("StackTree merges real frames of this binary, inlined frames expanded",
          "[core][stacks][tree]") {
  auto caller = locate(stackProbeCaller());
  auto outer = locate(stackProbeOuter());
  REQUIRE(caller.has_value());
  REQUIRE(outer.has_value());
  auto rankStacks = [&](int rank, const Located& where) {
    RankStacks stacks;
    stacks.worldRank = rank;
    stacks.modules = {where.module};
    ThreadStack thread;
    thread.mainThread = true;
    thread.frames = {StackFrame{0, where.offset, false}};
    stacks.threads = {thread};
    return stacks;
  };
  Symbolizer symbolizer;
  mpidbg::core::stacks::StackTree tree(mpidbg::core::stacks::NodeKey::FunctionAndLine);
  tree.addRank(rankStacks(0, *outer), symbolizer);
  tree.addRank(rankStacks(1, *caller), symbolizer);
  tree.addRank(rankStacks(2, *outer), symbolizer);
  CHECK(tree.warnings().empty());
  CHECK(symbolizer.lookups() == 2);
  const auto& roots = tree.root().children;
  REQUIRE(roots.size() == 2);
  CHECK(roots[0].ranks.toString() == "[0,2]");
  CHECK(roots[0].label.find("stackProbeOuter") != std::string::npos);
  CHECK(roots[0].label.find("(" + kThisFile + ":" + std::to_string(kOuterCallLine) + ")") !=
        std::string::npos);
  REQUIRE(roots[0].children.size() == 1);
  CHECK(roots[0].children[0].label.find("stackProbeInlined") != std::string::npos);
  CHECK(roots[0].children[0].frame.inlined);
  CHECK(roots[1].ranks.toString() == "[1]");
  CHECK(roots[1].label.find("stackProbeCaller") != std::string::npos);
  const auto classes = tree.equivalenceClasses();
  REQUIRE(classes.size() == 2);
  CHECK(classes[0].ranks.toString() == "[0,2]");
  REQUIRE(classes[0].paths.size() == 1);
  CHECK(classes[0].paths[0].size() == 2);
}

}  // namespace symbolizer_test
