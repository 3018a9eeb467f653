#include <catch2/catch.hpp>

#include <unistd.h>

#include "debugger/core/Backtrace.hpp"

using mpidbg::core::parseBacktrace;

TEST_CASE("parseBacktrace keeps function and location, drops frame numbers and PCs", "[backtrace]") {
  const std::string out =
      "[Thread debugging using libthread_db enabled]\n"
      "0x00007f3c1b2e5d2a in compute () at stuck_compute.c:12\n"
      "#0  compute () at stuck_compute.c:12\n"
      "#1  0x000055d1c3a0b2c4 in main (argc=1, argv=0x7ffd) at stuck_compute.c:21\n"
      "#12 0x00007f3c1b0461ca in __libc_start_call_main () from /lib/x86_64-linux-gnu/libc.so.6\n"
      "(More stack frames follow...)\n";
  const auto frames = parseBacktrace(out);
  REQUIRE(frames.size() == 3);
  CHECK(frames[0] == "compute () at stuck_compute.c:12");
  CHECK(frames[1] == "main (argc=1, argv=0x7ffd) at stuck_compute.c:21");
  CHECK(frames[2] == "__libc_start_call_main () from /lib/x86_64-linux-gnu/libc.so.6");
  CHECK(parseBacktrace("no frames here\n#\n#x foo\n").empty());
}

TEST_CASE("oneShotBacktrace of a process that does not exist is a clear error", "[backtrace]") {
  // A pid far above pid_max on Linux.
  auto frames = mpidbg::core::oneShotBacktrace("gdb", 999999999, 4, std::chrono::seconds(20));
  REQUIRE_FALSE(frames);
  CHECK(frames.error().message.find("gdb printed no frame for pid 999999999") != std::string::npos);
}
