// Symbols and DWARF types of a live target: /proc/PID/maps gives the loaded
// objects and their load bias; the addresses found must be the child's real
// ones (a forked child has the parent's layout, so &global in the parent).

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstddef>

#include "ForkedChild.hpp"
#include "debugger/core/mqs/ElfObject.hpp"
#include "debugger/core/mqs/ProcessMemory.hpp"
#include "debugger/core/mqs/SymbolSource.hpp"

using mpidbg::core::mqs::DwarfTypes;
using mpidbg::core::mqs::ElfObject;
using mpidbg::core::mqs::ProcessMemory;
using mpidbg::core::mqs::SymbolSource;
using mqs_test::ForkedChild;
using mqs_test::addressOf;
using mqs_test::why;

extern "C" int mpidbg_mqs_test_function(int x);
extern "C" int mpidbg_mqs_test_function(int x) { return x + 1; }

TEST_CASE("symbols of a live child resolve to its real addresses", "[mqshost][symbols]") {
  ForkedChild child;
  auto symbols = SymbolSource::fromProcess(child.pid());
  INFO(why(symbols));
  REQUIRE(symbols);

  char exe[4096] = {};
  REQUIRE(::readlink("/proc/self/exe", exe, sizeof exe - 1) > 0);
  CHECK(symbols->executable().object->path() == exe);
  CHECK(symbols->objects().size() > 2);  // the test binary, libc, ld.so, ...

  struct Row {
    const char* name;
    const void* expected;
  };
  const Row rows[] = {
      {"mpidbg_mqs_test_value", &mpidbg_mqs_test_value},  // .data of the (PIE) executable
      {"mpidbg_mqs_test_text", mpidbg_mqs_test_text},
      {"environ", &environ},  // libc's, or the executable's copy relocation: what ld.so chose
  };
  for (const Row& row : rows) {
    INFO(row.name);
    const auto found = symbols->findSymbol(row.name);
    REQUIRE(found);
    CHECK(*found == addressOf(row.expected));
  }
  const auto function = symbols->findFunction("mpidbg_mqs_test_function");
  REQUIRE(function);
  CHECK(*function == addressOf(reinterpret_cast<const void*>(&mpidbg_mqs_test_function)));
  // A shared-library function (libc's, through .dynsym or .symtab).
  const auto getpidAddr = symbols->findFunction("getpid");
  REQUIRE(getpidAddr);
  CHECK_FALSE(symbols->findFunction("mpidbg_mqs_test_value"));  // data, not a function
  CHECK_FALSE(symbols->findSymbol("no_such_symbol_anywhere_1234"));

  // And the address is where the child really keeps the value.
  ProcessMemory memory(child.pid());
  std::uint64_t value = 0;
  REQUIRE(memory.read(*symbols->findSymbol("mpidbg_mqs_test_value"),
                      std::as_writable_bytes(std::span(&value, 1))));
  CHECK(value == mqs_test::kChildValue);
}

TEST_CASE("DWARF types of the target: lookup, field offsets, sizes", "[mqshost][symbols]") {
  ForkedChild child;
  auto symbols = SymbolSource::fromProcess(child.pid());
  REQUIRE(symbols);
  const auto* record = symbols->findType("MqsTestRecord");
  REQUIRE(record);
  CHECK(symbols->findType("struct MqsTestRecord") != nullptr);
  CHECK(DwarfTypes::byteSize(record->die) == static_cast<int>(sizeof(MqsTestRecord)));

  struct Row {
    const char* field;
    int offset;
  };
  const Row rows[] = {
      {"first", static_cast<int>(offsetof(MqsTestRecord, first))},
      {"second", static_cast<int>(offsetof(MqsTestRecord, second))},
      {"name", static_cast<int>(offsetof(MqsTestRecord, name))},
      {"tail", static_cast<int>(offsetof(MqsTestRecord, tail))},
      {"anonShort", static_cast<int>(offsetof(MqsTestRecord, anonShort))},  // anonymous union
      {"missing", -1},
  };
  for (const Row& row : rows) {
    INFO(row.field);
    CHECK(DwarfTypes::fieldOffset(record->die, row.field) == row.offset);
  }
  const auto* base = symbols->findType("int");
  REQUIRE(base);
  CHECK(DwarfTypes::byteSize(base->die) == 4);
  CHECK(symbols->findType("NoSuchTypeAnywhere_1234") == nullptr);
}

TEST_CASE("a stripped library has no DWARF and says so", "[mqshost][symbols]") {
  // Debian ships libmpich stripped (symbols in .dynsym only).
  auto mpich = ElfObject::load("/usr/lib/x86_64-linux-gnu/libmpich.so.12");
  INFO(why(mpich));
  REQUIRE(mpich);
  CHECK((*mpich)->dwarf() == nullptr);
  CHECK_THAT((*mpich)->whyNoDwarf(), Catch::Contains("no DWARF in"));
  // .dynsym still answers.
  CHECK((*mpich)->lookup("PMPI_Barrier", mpidbg::core::mqs::SymbolKind::Function,
                         mpidbg::core::mqs::SymbolBinding::Global));
}

TEST_CASE("symbols of a process that does not exist fail clearly", "[mqshost][symbols]") {
  pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  auto symbols = SymbolSource::fromProcess(gone);
  REQUIRE_FALSE(symbols);
  CHECK_THAT(symbols.error().message, Catch::Contains("/proc/" + std::to_string(gone)));
}
