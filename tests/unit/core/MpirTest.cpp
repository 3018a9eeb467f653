#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "../SleepingChild.hpp"
#include "debugger/core/Mpir.hpp"
#include "debugger/core/ProcessDiscovery.hpp"

using namespace mpidbg::core;

// This test program is its own "launcher": the MPIR interface's symbols, as a
// launcher defines them (MPIR Process Acquisition Interface 1.0, section 9),
// read back through /proc/self like any other process's.
extern "C" {
struct MPIR_PROCDESC {
  const char* host_name;
  const char* executable_name;
  int pid;
};
[[gnu::used]] MPIR_PROCDESC* MPIR_proctable = nullptr;
[[gnu::used]] int MPIR_proctable_size = 0;
[[gnu::used]] volatile int MPIR_debug_state = 0;
}

namespace {

/// Installs `entries` as this process's MPIR table for one test.
class TableScope {
 public:
  TableScope(MPIR_PROCDESC* entries, int size, int state = 1) {
    MPIR_proctable = entries;
    MPIR_proctable_size = size;
    MPIR_debug_state = state;
  }
  ~TableScope() {
    MPIR_proctable = nullptr;
    MPIR_proctable_size = 0;
    MPIR_debug_state = 0;
  }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("MPIR: the table of a live launcher, read without stopping it", "[attach][mpir]") {
  MPIR_PROCDESC entries[] = {{"n1", "/apps/solver", 4101}, {"n1", "/apps/solver", 4102}, {"n2", nullptr, 77}};
  TableScope scope(entries, 3);
  auto table = readMpirProctable(::getpid());
  REQUIRE(table);
  REQUIRE(table->size() == 3);
  CHECK((*table)[0].host == "n1");
  CHECK((*table)[0].executable == "/apps/solver");
  CHECK((*table)[0].pid == 4101);
  CHECK((*table)[1].pid == 4102);
  CHECK((*table)[2].host == "n2");
  CHECK((*table)[2].executable.empty());
  CHECK((*table)[2].pid == 77);
}

TEST_CASE("MPIR: an empty or broken table is a clear error", "[attach][mpir]") {
  SECTION("not filled yet") {
    auto table = readMpirProctable(::getpid());
    REQUIRE_FALSE(table);
    CHECK(contains(table.error().message, "is empty (size 0, MPIR_debug_state 0)"));
  }
  SECTION("an entry without a host") {
    MPIR_PROCDESC entries[] = {{"n1", "a", 10}, {nullptr, "a", 11}};
    TableScope scope(entries, 2);
    auto table = readMpirProctable(::getpid());
    REQUIRE_FALSE(table);
    CHECK(contains(table.error().message, "MPIR_proctable[1] of pid "));
    CHECK(contains(table.error().message, "has no host name"));
  }
  SECTION("a pid below 1") {
    MPIR_PROCDESC entries[] = {{"n1", "a", 0}};
    TableScope scope(entries, 1);
    auto table = readMpirProctable(::getpid());
    REQUIRE_FALSE(table);
    CHECK(contains(table.error().message, "has pid 0"));
  }
  SECTION("a size past the table's memory") {
    MPIR_PROCDESC entries[] = {{"n1", "a", 10}};
    TableScope scope(entries, 1 << 22);
    auto table = readMpirProctable(::getpid());
    REQUIRE_FALSE(table);
    CHECK(contains(table.error().message, "cannot read the MPIR_proctable of pid "));
  }
  SECTION("an absurd size") {
    MPIR_PROCDESC entries[] = {{"n1", "a", 10}};
    TableScope scope(entries, (1 << 22) + 1);
    auto table = readMpirProctable(::getpid());
    REQUIRE_FALSE(table);
    CHECK(contains(table.error().message, "claims 4194305 entries"));
  }
}

TEST_CASE("MPIR: a process that speaks no MPIR", "[attach][mpir]") {
  mpidbg::test::SleepingChild child;
  auto table = readMpirProctable(child.pid());
  REQUIRE_FALSE(table);
  CHECK(table.error().message == "pid " + std::to_string(child.pid()) +
                                     " has no MPIR_proctable: its launcher does not offer the MPIR interface");
  // --pid falls back to the process tree and says why MPIR did not serve.
  auto ranks = ranksOfLauncher(child.pid());
  REQUIRE_FALSE(ranks);
  CHECK(contains(ranks.error().message, "names an MPI rank in its environment"));
  CHECK(contains(ranks.error().message, "; and MPIR did not serve: pid "));
  auto gone = readMpirProctable(999999999);
  REQUIRE_FALSE(gone);
}

TEST_CASE("MPIR: the table's ranks on this host", "[attach][mpir]") {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  mpidbg::test::SleepingChild child;
  // Rank 0: this process (no rank in its environment, same executable);
  // rank 1: a pid that is no process here; rank 2: a live process running
  // another program (a pid reused on this host); rank 3: the same program as
  // named by the launcher, relative.
  const std::string base = std::filesystem::path(self).filename().string();
  MPIR_PROCDESC entries[] = {{"node-a", self.c_str(), ::getpid()},
                             {"node-b", self.c_str(), 999999999},
                             {"node-b", self.c_str(), child.pid()},
                             {"node-a", base.c_str(), ::getpid()}};
  TableScope scope(entries, 4);
  auto ranks = ranksFromMpir(::getpid());
  REQUIRE(ranks);
  REQUIRE(ranks->size() == 2);
  CHECK((*ranks)[0].rank == 0);
  CHECK((*ranks)[0].size == 4);
  CHECK((*ranks)[0].node == "node-a");
  CHECK((*ranks)[0].pid == ::getpid());
  CHECK((*ranks)[0].executable == self);
  CHECK((*ranks)[1].rank == 3);
  CHECK(jobSizeOf(*ranks).first == 4);

  auto viaLauncher = ranksOfLauncher(::getpid());
  REQUIRE(viaLauncher);
  CHECK(viaLauncher->second == LauncherSource::MpirProctable);
  CHECK(viaLauncher->first.size() == 2);
}

TEST_CASE("MPIR: a table with no rank on this host names its hosts", "[attach][mpir]") {
  MPIR_PROCDESC entries[] = {{"node-b", "/apps/solver", 999999998}, {"node-c", "/apps/solver", 999999999}};
  TableScope scope(entries, 2);
  auto ranks = ranksFromMpir(::getpid());
  REQUIRE_FALSE(ranks);
  CHECK(ranks.error().message == "the MPIR_proctable of pid " + std::to_string(::getpid()) +
                                     " lists 2 ranks on node-b, node-c, none of them a process on this host");
}
