// Sessions against the real gdb (/usr/bin/gdb, found in PATH) and real
// processes the test forks. Every call is bounded by a few seconds.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <string>

#include "debugger/gdbmi/Session.hpp"
#include "debugger/gdbmi/SessionPool.hpp"
#include "tests/unit/SleepingChild.hpp"

using mpidbg::gdbmi::Session;
using mpidbg::gdbmi::SessionOptions;
using mpidbg::gdbmi::SessionPool;
using namespace std::chrono_literals;

namespace {

constexpr auto kTimeout = 5000ms;

using mpidbg::test::SleepingChild;

/// A pid that no process has: a child that already exited and was reaped.
pid_t unusedPid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

/// The error message of `result`, or "" (for INFO on failed REQUIREs).
template <typename T>
std::string why(const mpidbg::Expected<T>& result) {
  return result ? std::string() : result.error().message;
}

SessionOptions quickOptions() {
  SessionOptions options;
  options.startTimeout = kTimeout;
  return options;
}

}  // namespace

TEST_CASE("Session attaches to a process, runs bt, and detaches", "[gdbmi][session]") {
  SleepingChild child;
  REQUIRE(child.pid() > 0);
  auto session = Session::start(quickOptions());
  INFO(why(session));
  REQUIRE(session.has_value());
  Session& gdb = **session;
  CHECK(gdb.alive());
  CHECK(gdb.gdbPid() > 0);
  CHECK(::getpgid(gdb.gdbPid()) == gdb.gdbPid());  // its own process group

  auto attached = gdb.attach(child.pid(), kTimeout);
  INFO(why(attached));
  REQUIRE(attached.has_value());
  CHECK(gdb.targetStopped());
  CHECK(gdb.attachedPid() == child.pid());

  auto bt = gdb.console("bt", kTimeout);
  REQUIRE(bt.has_value());
  CHECK_THAT(*bt, Catch::StartsWith("#0 "));

  auto frames = gdb.command("-stack-list-frames", kTimeout);
  REQUIRE(frames.has_value());
  CHECK(frames->resultClass == "done");
  const auto* stack = frames->results.get("stack");
  REQUIRE(stack != nullptr);
  REQUIRE(stack->asList() != nullptr);
  REQUIRE_FALSE(stack->asList()->empty());
  CHECK(stack->asList()->at(0).get("level") != nullptr);

  auto bad = gdb.command("-data-evaluate-expression nosuchvar_xyz", kTimeout);
  REQUIRE(bad.has_value());
  CHECK(bad->isError());
  CHECK_THAT(bad->errorMessage(), Catch::Contains("nosuchvar_xyz"));

  auto badCli = gdb.console("frobnicate", kTimeout);
  REQUIRE_FALSE(badCli.has_value());
  CHECK_THAT(badCli.error().message, Catch::Contains("Undefined command"));

  REQUIRE(gdb.detach(kTimeout).has_value());
  CHECK_FALSE(gdb.attachedPid().has_value());
  CHECK(child.running());
}

TEST_CASE("Session destructor ends gdb and lets the attached process run on", "[gdbmi][session]") {
  SleepingChild child;
  pid_t gdbPid = -1;
  {
    auto session = Session::start(quickOptions());
    INFO(why(session));
    REQUIRE(session.has_value());
    gdbPid = (*session)->gdbPid();
    auto attached = (*session)->attach(child.pid(), kTimeout);
    INFO(why(attached));
    REQUIRE(attached.has_value());
  }
  CHECK(::kill(gdbPid, 0) == -1);  // gdb is gone and reaped
  CHECK(child.running());
}

TEST_CASE("Session with a missing gdb gives a clean Error", "[gdbmi][session]") {
  SessionOptions options = quickOptions();
  options.gdbPath = "/nonexistent/bin/gdb";
  auto session = Session::start(options);
  REQUIRE_FALSE(session.has_value());
  CHECK_THAT(session.error().message,
             Catch::StartsWith("cannot start gdb: No such file or directory"));
}

TEST_CASE("Session with a program that is not gdb gives a clean Error", "[gdbmi][session]") {
  SessionOptions options = quickOptions();
  options.gdbPath = "/bin/false";
  auto session = Session::start(options);
  REQUIRE_FALSE(session.has_value());
  CHECK_THAT(session.error().message, Catch::Contains("gdb exited (status 1)"));
}

TEST_CASE("Session attach to a nonexistent pid carries gdb's message", "[gdbmi][session]") {
  auto session = Session::start(quickOptions());
  INFO(why(session));
  REQUIRE(session.has_value());
  const pid_t pid = unusedPid();
  auto attached = (*session)->attach(pid, kTimeout);
  REQUIRE_FALSE(attached.has_value());
  CHECK_THAT(attached.error().message,
             Catch::StartsWith("cannot attach to pid " + std::to_string(pid) + ": ptrace: "));
  CHECK((*session)->alive());  // the session stays usable
  auto value = (*session)->console("print 6*7", kTimeout);
  REQUIRE(value.has_value());
  CHECK_THAT(*value, Catch::Contains("42"));
}

TEST_CASE("Session timeouts are bounded and a late answer is skipped", "[gdbmi][session]") {
  auto session = Session::start(quickOptions());
  INFO(why(session));
  REQUIRE(session.has_value());
  Session& gdb = **session;
  const auto start = std::chrono::steady_clock::now();
  // The late answer prints "late-output" on the console stream.
  auto slow = gdb.console("python import time; time.sleep(1); print('late-output')", 200ms);
  const auto took = std::chrono::steady_clock::now() - start;
  REQUIRE_FALSE(slow.has_value());
  CHECK_THAT(slow.error().message, Catch::Contains("did not answer"));
  CHECK(took < 1000ms);
  // The next command gets its own answer, not the late one.
  auto value = gdb.console("print 1+2", kTimeout);
  REQUIRE(value.has_value());
  CHECK_THAT(*value, Catch::Contains("= 3"));
  CHECK_THAT(*value, !Catch::Contains("late-output"));
  CHECK_FALSE(gdb.command("-gdb-version\n-gdb-exit", kTimeout).has_value());
}

TEST_CASE("Session reports gdb's exit on every later call", "[gdbmi][session]") {
  auto session = Session::start(quickOptions());
  INFO(why(session));
  REQUIRE(session.has_value());
  Session& gdb = **session;
  auto bye = gdb.command("-gdb-exit", kTimeout);
  REQUIRE(bye.has_value());
  CHECK(bye->resultClass == "exit");
  auto after = gdb.command("-gdb-version", kTimeout);
  REQUIRE_FALSE(after.has_value());
  CHECK(after.error().message == "gdb exited (status 0)");
  CHECK_FALSE(gdb.alive());
  CHECK(gdb.console("bt", kTimeout).error().message == "gdb exited (status 0)");
}

TEST_CASE("Session reports gdb killed by a signal", "[gdbmi][session]") {
  auto session = Session::start(quickOptions());
  INFO(why(session));
  REQUIRE(session.has_value());
  ::kill((*session)->gdbPid(), SIGKILL);
  auto after = (*session)->command("-gdb-version", kTimeout);
  REQUIRE_FALSE(after.has_value());
  CHECK(after.error().message == "gdb killed by signal 9");
}

TEST_CASE("Session reports how gdb ended when its input closed before its exit",
          "[gdbmi][session]") {
  // gdb closes its end of the command channel, then lives on for half a
  // second: the write of the next command fails (EPIPE) while gdb is not yet
  // reaped, the window a SIGKILLed gdb also passes through.
  auto session = Session::start(quickOptions());
  INFO(why(session));
  REQUIRE(session.has_value());
  Session& gdb = **session;
  auto dying = gdb.console("python import os, time; os.close(0); time.sleep(0.5); os._exit(3)", 100ms);
  REQUIRE_FALSE(dying.has_value());
  CHECK_THAT(dying.error().message, Catch::Contains("did not answer"));
  auto after = gdb.command("-gdb-version", kTimeout);
  REQUIRE_FALSE(after.has_value());
  CHECK(after.error().message == "gdb exited (status 3)");
  CHECK_FALSE(gdb.alive());
}

TEST_CASE("SessionPool runs one console command on many sessions at once", "[gdbmi][session]") {
  SleepingChild a, b;
  SessionPool pool;
  for (pid_t pid : {a.pid(), b.pid()}) {
    auto session = Session::start(quickOptions());
    INFO(why(session));
    REQUIRE(session.has_value());
    auto attached = (*session)->attach(pid, kTimeout);
    INFO(why(attached));
    REQUIRE(attached.has_value());
    pool.add(std::move(*session));
  }
  pool.add(nullptr);
  auto results = pool.console("info inferiors", kTimeout);
  REQUIRE(results.size() == 3);
  CHECK_THAT(results[0].value(), Catch::Contains("process " + std::to_string(a.pid())));
  CHECK_THAT(results[1].value(), Catch::Contains("process " + std::to_string(b.pid())));
  CHECK_FALSE(results[2].has_value());
  auto replies = pool.command("-thread-info", kTimeout);
  REQUIRE(replies.size() == 3);
  CHECK(replies[0]->resultClass == "done");
  CHECK(replies[1]->results.get("threads") != nullptr);
}
