// GdbPool against the real gdb and real processes (a /bin/sleep per "rank",
// registered in a Job by hand): attach without a command, raw MI commands,
// and a gdb that is killed or hangs is reported for its rank only.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "debugger/core/GdbPool.hpp"
#include "debugger/core/Job.hpp"
#include "debugger/gdbmi/Reply.hpp"
#include "tests/unit/SleepingChild.hpp"

using mpidbg::core::GdbPool;
using mpidbg::core::Job;
using mpidbg::core::RankSet;
using namespace std::chrono_literals;

namespace {

using Sleeper = mpidbg::test::SleepingChild;

/// The process tracing `pid` (its gdb), or 0.
pid_t tracerOf(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (status >> key) {
    if (key == "TracerPid:") {
      pid_t tracer = 0;
      status >> tracer;
      return tracer;
    }
  }
  return 0;
}

/// True once `pid` is a zombie or gone (its parent has not reaped it yet), within 10 s.
bool waitUntilDead(pid_t pid) {
  for (int i = 0; i < 1000; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    const auto paren = line.rfind(')');
    if (paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z') return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

std::string hostName() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

/// A Job of `sleepers.size()` local ranks, rank i being sleepers[i].
void registerRanks(Job& job, const std::vector<std::unique_ptr<Sleeper>>& sleepers) {
  for (std::size_t i = 0; i < sleepers.size(); ++i) {
    mpidbg::ccs::proto::Registration r;
    r.rank = static_cast<int>(i);
    r.size = static_cast<int>(sleepers.size());
    r.host = hostName();
    r.pid = sleepers[i]->pid();
    r.port = 1;
    REQUIRE(job.addRank(r).has_value());
  }
}

template <typename T>
std::string why(const mpidbg::Expected<T>& result) {
  return result ? std::string() : result.error().message;
}

}  // namespace

TEST_CASE("GdbPool attaches without a command, runs MI, and survives a killed or hung gdb",
          "[core][gdbpool]") {
  std::vector<std::unique_ptr<Sleeper>> sleepers;
  for (int i = 0; i < 2; ++i) sleepers.push_back(std::make_unique<Sleeper>());
  Job job;
  registerRanks(job, sleepers);
  GdbPool pool(job);
  pool.attachTimeout = 20s;
  pool.commandTimeout = 10s;
  const RankSet both = RankSet::range(0, 1);

  // attach: progress once per rank, each rank attached now; again: already.
  std::vector<int> progress;
  auto attached = pool.attach(both, [&](int done, int total) {
    CHECK(total == 2);
    progress.push_back(done);
  });
  REQUIRE(attached.size() == 2);
  for (const auto& [rank, r] : attached) {
    INFO("rank " << rank << ": " << why(r));
    REQUIRE(r.has_value());
    CHECK(*r == true);
  }
  CHECK(progress == std::vector<int>{1, 2});
  CHECK(pool.attached() == both);
  CHECK(job.rank(0)->heldByGdb);
  auto again = pool.attach(both);
  REQUIRE(again.at(1).has_value());
  CHECK(*again.at(1) == false);

  // mi: each rank's reply; an ^error is a reply too.
  auto replies = pool.mi(both, "-data-evaluate-expression 6*7");
  for (const auto& [rank, reply] : replies) {
    INFO("rank " << rank << ": " << why(reply));
    REQUIRE(reply.has_value());
    CHECK(reply->resultClass == "done");
    CHECK(*reply->results.getString("value") == "42");
  }
  auto bad = pool.mi(RankSet::range(0, 0), "-data-evaluate-expression nosuchvar");
  REQUIRE(bad.at(0).has_value());
  CHECK(bad.at(0)->isError());
  CHECK(bad.at(0)->errorMessage() == "No symbol \"nosuchvar\" in current context.");

  // gdb of rank 1 killed: rank 1 gets an Error, rank 0 its answer.
  const pid_t gdb1 = tracerOf(sleepers[1]->pid());
  REQUIRE(gdb1 > 0);
  REQUIRE(::kill(gdb1, SIGKILL) == 0);
  auto afterKill = pool.mi(both, "-data-evaluate-expression 1+1");
  REQUIRE(afterKill.at(0).has_value());
  CHECK(*afterKill.at(0)->results.getString("value") == "2");
  REQUIRE_FALSE(afterKill.at(1).has_value());
  CHECK_THAT(afterKill.at(1).error().message, Catch::StartsWith("gdb killed by signal 9"));
  CHECK(pool.attached() == RankSet::range(0, 0));
  CHECK_FALSE(job.rank(1)->heldByGdb);

  // The next use attaches a fresh gdb to rank 1.
  auto fresh = pool.mi(both, "-data-evaluate-expression 2+2");
  for (const auto& [rank, reply] : fresh) {
    INFO("rank " << rank << ": " << why(reply));
    REQUIRE(reply.has_value());
    CHECK(*reply->results.getString("value") == "4");
  }

  // A gdb that is already dead when the next command comes is reported the
  // same way (once), not silently replaced.
  const pid_t gdb1again = tracerOf(sleepers[1]->pid());
  REQUIRE(gdb1again > 0);
  REQUIRE(gdb1again != gdb1);
  REQUIRE(::kill(gdb1again, SIGKILL) == 0);
  REQUIRE(waitUntilDead(gdb1again));
  auto afterDeath = pool.mi(RankSet::range(1, 1), "-data-evaluate-expression 3+3");
  REQUIRE_FALSE(afterDeath.at(1).has_value());
  CHECK_THAT(afterDeath.at(1).error().message, Catch::StartsWith("gdb killed by signal 9"));
  CHECK_THAT(afterDeath.at(1).error().message,
             Catch::Contains("a fresh gdb attaches on the next command"));
  auto freshAgain = pool.mi(RankSet::range(1, 1), "-data-evaluate-expression 3+3");
  REQUIRE(freshAgain.at(1).has_value());
  CHECK(*freshAgain.at(1)->results.getString("value") == "6");

  // gdb of rank 0 hangs (stopped): rank 0 times out, rank 1 answers.
  const pid_t gdb0 = tracerOf(sleepers[0]->pid());
  REQUIRE(gdb0 > 0);
  pool.commandTimeout = 1500ms;
  REQUIRE(::kill(gdb0, SIGSTOP) == 0);
  const auto start = std::chrono::steady_clock::now();
  auto hung = pool.run(both, "print 3+3");
  const auto took = std::chrono::steady_clock::now() - start;
  ::kill(gdb0, SIGCONT);
  REQUIRE_FALSE(hung.at(0).has_value());
  CHECK_THAT(
      hung.at(0).error().message,
      Catch::Contains("did not answer '-interpreter-exec console \"print 3+3\"' within 1500 ms"));
  REQUIRE(hung.at(1).has_value());
  CHECK_THAT(*hung.at(1), Catch::Contains("= 6"));
  CHECK(took < 8s);

  // Once gdb runs again the session goes on: the late answer ("$N = 6")
  // is skipped, its console text too.
  pool.commandTimeout = 10s;
  auto late = pool.run(RankSet::range(0, 0), "print 5+5");
  REQUIRE(late.at(0).has_value());
  CHECK_THAT(*late.at(0), Catch::Contains("= 10"));
  CHECK_THAT(*late.at(0), !Catch::Contains("= 6"));

  auto detached = pool.detach(both);
  CHECK(detached.size() == 2);
  CHECK(pool.attached().empty());
}

TEST_CASE("GdbPool attach reports a gdb that cannot start", "[core][gdbpool]") {
  std::vector<std::unique_ptr<Sleeper>> sleepers;
  sleepers.push_back(std::make_unique<Sleeper>());
  Job job;
  registerRanks(job, sleepers);
  GdbPool pool(job);
  pool.gdbPath = "/nonexistent/gdb";
  auto result = pool.attach(RankSet::range(0, 0));
  REQUIRE_FALSE(result.at(0).has_value());
  CHECK_THAT(result.at(0).error().message, Catch::Contains("cannot start gdb"));
  CHECK_FALSE(job.rank(0)->heldByGdb);
  CHECK(pool.attached().empty());
}
