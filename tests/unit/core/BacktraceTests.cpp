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

TEST_CASE("thread apply all bt output splits into threads and frames (gdb 13, captured here)", "[backtrace]") {
  // `gdb -nx -q -batch -p PID -ex "thread apply all bt"` on a two-thread program.
  const std::string out =
      "[New LWP 27904]\n"
      "[Thread debugging using libthread_db enabled]\n"
      "0x000055fe5081917b in spin (x=0x7fff267e0254) at thr.c:4\n"
      "4\tstatic void spin(volatile int* x) { while (*x) ; }\n"
      "\n"
      "Thread 2 (Thread 0x7f98124096c0 (LWP 27904) \"my worker\"):\n"
      "#0  0x00007f98124e0df2 in __libc_pause () at ../sysdeps/unix/sysv/linux/pause.c:29\n"
      "#1  0x000055fe5081916a in worker (arg=0x0) at thr.c:3\n"
      "#2  0x00007f98124961f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442\n"
      "#3  0x00007f98125168ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81\n"
      "\n"
      "Thread 1 (Thread 0x7f981240a740 (LWP 27902) \"thr\"):\n"
      "#0  0x000055fe5081917b in spin (x=0x7fff267e0254) at thr.c:4\n"
      "#1  0x000055fe508191d6 in main () at thr.c:5\n"
      "[Inferior 1 (process 27902) detached]\n";
  const auto threads = mpidbg::core::parseAllThreads(out);
  REQUIRE(threads.size() == 2);
  CHECK(threads[0].number == 2);
  CHECK(threads[0].tid == 27904);
  CHECK(threads[0].name == "my worker");
  REQUIRE(threads[0].frames.size() == 4);
  CHECK(threads[0].frames[0].function == "__libc_pause");
  CHECK(threads[0].frames[0].file == "../sysdeps/unix/sysv/linux/pause.c");
  CHECK(threads[0].frames[0].line == 29);
  CHECK(threads[0].frames[2].function == "start_thread");
  CHECK(threads[1].tid == 27902);
  REQUIRE(threads[1].frames.size() == 2);
  CHECK(threads[1].frames[0].function == "spin");
  CHECK(threads[1].frames[0].file == "thr.c");
  CHECK(threads[1].frames[0].line == 4);
  CHECK(threads[1].frames[1].function == "main");
  CHECK(threads[1].frames[1].line == 5);
  // Each frame's pc as printed.
  CHECK(threads[0].frames[0].pc == 0x7f98124e0df2);
  CHECK(threads[0].frames[3].pc == 0x7f98125168ec);
  CHECK(threads[1].frames[1].pc == 0x55fe508191d6);
}

TEST_CASE("a frame gdb printed without a pc has pc 0", "[backtrace]") {
  const auto threads = mpidbg::core::parseAllThreads(
      "Thread 1 (Thread 0x7f981240a740 (LWP 27902) \"thr\"):\n"
      "#0  spin (x=0x7fff267e0254) at thr.c:4\n"
      "#1  <signal handler called>\n"
      "#2  0x000055fe508191d6 in main () at thr.c:5\n"
      "#3  0xzz in broken ()\n");
  REQUIRE(threads.size() == 1);
  REQUIRE(threads[0].frames.size() == 4);
  CHECK(threads[0].frames[0].pc == 0);
  CHECK(threads[0].frames[1].function == "<signal handler called>");
  CHECK(threads[0].frames[1].pc == 0);
  CHECK(threads[0].frames[2].pc == 0x55fe508191d6);
  // A pc that is not hexadecimal is none; the frame stays.
  CHECK(threads[0].frames[3].function == "broken");
  CHECK(threads[0].frames[3].pc == 0);
}

TEST_CASE("gdb frame texts split into function, file, line and module", "[backtrace]") {
  using mpidbg::core::splitFrame;
  struct Row {
    const char* text;
    const char* function;
    const char* file;
    int line;
    const char* module;
  };
  const Row rows[] = {
      {"main (argc=1, argv=0x7ffd) at stuck_compute.c:21", "main", "stuck_compute.c", 21, ""},
      {"__libc_start_call_main () from /lib/x86_64-linux-gnu/libc.so.6", "__libc_start_call_main", "", 0,
       "/lib/x86_64-linux-gnu/libc.so.6"},
      {"?? ()", "??", "", 0, ""},
      {"f (s=0x1 \"a) b\", g=(int (*)(int)) 0x0) at x.cpp:7", "f", "x.cpp", 7, ""},
      {"ns::Solver::step (this=0x1) at /src/solver.cpp:88", "ns::Solver::step", "/src/solver.cpp", 88, ""},
      {"compute", "compute", "", 0, ""},
      {"g () at weird:name", "g", "weird:name", 0, ""},
      {"h (c=40 '(', d=0) at h.c:3", "h", "h.c", 3, ""},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    const auto f = splitFrame(row.text);
    CHECK(f.function == row.function);
    CHECK(f.file == row.file);
    CHECK(f.line == row.line);
    CHECK(f.module == row.module);
  }
}
