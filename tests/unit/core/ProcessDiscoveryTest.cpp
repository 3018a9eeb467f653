#include <catch2/catch.hpp>

#include <unistd.h>

#include <string>

#include "debugger/core/ProcessDiscovery.hpp"

using namespace mpidbg::core;

namespace {

/// An environment block as /proc/PID/environ holds it.
std::string block(std::initializer_list<std::string> entries) {
  std::string out;
  for (const auto& e : entries) out += e + '\0';
  return out;
}

}  // namespace

TEST_CASE("process discovery: the rank from each launcher's variables", "[attach]") {
  auto hydra = rankFromEnvironment(block({"PATH=/bin", "PMI_RANK=3", "PMI_SIZE=8"}));
  REQUIRE(hydra);
  CHECK(hydra->rank == 3);
  CHECK(hydra->size == 8);

  auto ompi = rankFromEnvironment(block({"OMPI_COMM_WORLD_SIZE=4", "OMPI_COMM_WORLD_RANK=1", "PMIX_RANK=1"}));
  REQUIRE(ompi);
  CHECK(ompi->rank == 1);
  CHECK(ompi->size == 4);

  auto srun = rankFromEnvironment(block({"SLURM_PROCID=5", "SLURM_NTASKS=6", "SLURM_STEP_NUM_TASKS=6"}));
  REQUIRE(srun);
  CHECK(srun->rank == 5);
  CHECK(srun->size == 6);

  // A size not above the rank is no size; a variable name's prefix is not it.
  auto noSize = rankFromEnvironment(block({"PMI_RANK=4", "PMI_SIZE=2", "PMI_RANKX=1"}));
  REQUIRE(noSize);
  CHECK(noSize->size == 0);

  CHECK_FALSE(rankFromEnvironment(block({"PATH=/bin", "HOME=/root"})));
  CHECK_FALSE(rankFromEnvironment(block({"PMI_RANK=x"})));
  CHECK_FALSE(rankFromEnvironment(block({"PMI_RANK=-1"})));
  CHECK_FALSE(rankFromEnvironment(""));
}

TEST_CASE("process discovery: a process with no rank below it is a clear error", "[attach]") {
  // This test process has children only while Catch2 runs it: none with a rank.
  auto found = ranksUnderLauncher(::getpid());
  REQUIRE_FALSE(found);
  CHECK(found.error().message.find("names an MPI rank in its environment") != std::string::npos);
  auto none = ranksUnderLauncher(999999999);
  REQUIRE_FALSE(none);
  CHECK(none.error().message == "no process 999999999");
}

TEST_CASE("process discovery: the job's size", "[attach]") {
  auto make = [](int rank, int size) {
    FoundRank r;
    r.rank = rank;
    r.size = size;
    return r;
  };
  CHECK(jobSizeOf({make(0, 4), make(1, 4), make(2, 4), make(3, 4)}) == std::pair<int, std::string>{4, ""});
  CHECK(jobSizeOf({make(0, 0), make(2, 0)}) ==
        std::pair<int, std::string>{3, " Found 2 of 3 ranks on this host; the others are not attached."});
  CHECK(jobSizeOf({make(0, 4), make(1, 8)}).first == 8);
  CHECK(jobSizeOf({make(0, 4), make(1, 8)}).second.starts_with(" The ranks' environments disagree"));
}
