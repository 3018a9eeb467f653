// Memory backends of the mqs host against a real forked child: the
// process_vm_readv backend and the gdb/MI backend read the value the child
// stored after the fork (the parent still has the old one).

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>

#include "ForkedChild.hpp"
#include "debugger/core/mqs/GdbMemory.hpp"
#include "debugger/core/mqs/ProcessMemory.hpp"
#include "debugger/gdbmi/Session.hpp"

extern "C" {
std::uint64_t mpidbg_mqs_test_value = 42;
char mpidbg_mqs_test_text[32] = "parent";
}
MqsTestRecord mpidbg_mqs_test_record{1, 2.0, "record", 3, {4}};

using mpidbg::core::mqs::GdbMemory;
using mpidbg::core::mqs::ProcessMemory;
using mpidbg::core::mqs::readCString;
using mqs_test::ForkedChild;
using mqs_test::addressOf;
using mqs_test::why;
using namespace std::chrono_literals;

TEST_CASE("ProcessMemory reads a global the forked child changed", "[mqshost][memory]") {
  ForkedChild child;
  ProcessMemory memory(child.pid());
  std::uint64_t value = 0;
  auto ok =
      memory.read(addressOf(&mpidbg_mqs_test_value), std::as_writable_bytes(std::span(&value, 1)));
  INFO(why(ok));
  REQUIRE(ok);
  CHECK(value == mqs_test::kChildValue);
  CHECK(mpidbg_mqs_test_value == 42);  // the parent's copy is untouched

  auto text = readCString(memory, addressOf(mpidbg_mqs_test_text));
  INFO(why(text));
  REQUIRE(text);
  CHECK(*text == mqs_test::kChildText);
  CHECK(memory.describe() == "pid " + std::to_string(child.pid()));
}

TEST_CASE("ProcessMemory reads a stopped child and reports bad addresses", "[mqshost][memory]") {
  ForkedChild child;
  REQUIRE(::kill(child.pid(), SIGSTOP) == 0);
  int status = 0;
  REQUIRE(::waitpid(child.pid(), &status, WUNTRACED) == child.pid());
  ProcessMemory memory(child.pid());
  std::uint64_t value = 0;
  REQUIRE(
      memory.read(addressOf(&mpidbg_mqs_test_value), std::as_writable_bytes(std::span(&value, 1))));
  CHECK(value == mqs_test::kChildValue);

  std::byte buffer[8];
  auto bad = memory.read(0x10, buffer);
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message,
             Catch::Contains("cannot read 8 bytes at 0x10 of pid " + std::to_string(child.pid())));
  ::kill(child.pid(), SIGCONT);
}

TEST_CASE("ProcessMemory of a process that is gone fails clearly", "[mqshost][memory]") {
  pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  ProcessMemory memory(gone);
  std::byte buffer[4];
  auto bad = memory.read(addressOf(&mpidbg_mqs_test_value), buffer);
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::Contains("No such process"));
}

TEST_CASE("GdbMemory reads the same value from a gdb-held child", "[mqshost][memory][gdb]") {
  ForkedChild child;
  mpidbg::gdbmi::SessionOptions options;
  options.startTimeout = 20000ms;
  auto gdb = mpidbg::gdbmi::Session::start(options);
  INFO(why(gdb));
  REQUIRE(gdb);
  auto attached = (*gdb)->attach(child.pid(), 60000ms);
  INFO(why(attached));
  REQUIRE(attached);

  GdbMemory memory(**gdb, 10000ms);
  std::uint64_t value = 0;
  auto ok =
      memory.read(addressOf(&mpidbg_mqs_test_value), std::as_writable_bytes(std::span(&value, 1)));
  INFO(why(ok));
  REQUIRE(ok);
  CHECK(value == mqs_test::kChildValue);
  auto text = readCString(memory, addressOf(mpidbg_mqs_test_text));
  REQUIRE(text);
  CHECK(*text == mqs_test::kChildText);

  std::byte buffer[8];
  auto bad = memory.read(0x10, buffer);
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::Contains("cannot read 8 bytes at 0x10 through gdb"));
  CHECK_THAT(bad.error().message, Catch::Contains("Unable to read memory"));  // gdb 13's words
}
