#include <catch2/catch.hpp>

#include "ccs/RankProtocol.hpp"
#include "debugger/core/Job.hpp"

using mpidbg::core::Job;

namespace {

mpidbg::ccs::proto::Registration registration(int rank, const std::string& address) {
  mpidbg::ccs::proto::Registration r;
  r.rank = rank;
  r.size = 4;
  r.host = "vm";
  r.pid = 100 + rank;
  r.port = static_cast<std::uint16_t>(5000 + rank);
  r.address = address;
  return r;
}

}  // namespace

TEST_CASE("job: a rank's endpoint is where its server is bound", "[core][job]") {
  Job job;
  REQUIRE(job.addRank(registration(0, "")).has_value());           // an older runtime
  REQUIRE(job.addRank(registration(1, "127.0.0.2")).has_value());  // Hydra's second "host"
  REQUIRE(job.addRank(registration(2, "0.0.0.0")).has_value());    // a wildcard bind
  REQUIRE(job.addRank(registration(3, "10.1.2.3")).has_value());   // a cluster node's interface
  const auto ranks = job.snapshot();
  REQUIRE(ranks.size() == 4);
  CHECK(ranks[0].endpoint.toString() == "127.0.0.1:5000");
  CHECK(ranks[1].endpoint.toString() == "127.0.0.2:5001");
  CHECK(ranks[2].endpoint.toString() == "127.0.0.1:5002");
  CHECK(ranks[3].endpoint.toString() == "10.1.2.3:5003");
}

TEST_CASE("job: a rank found by pid keeps the node its launcher names", "[core][job][attach]") {
  Job job;
  REQUIRE(job.addProcess(0, 2, 4101, "vm", "n1").has_value());
  REQUIRE(job.addProcess(1, 2, 4102, "vm").has_value());
  const auto ranks = job.snapshot();
  REQUIRE(ranks.size() == 2);
  CHECK(ranks[0].noRuntime);
  CHECK(ranks[0].host == "vm");
  CHECK(ranks[0].node == "n1");
  CHECK(ranks[1].node.empty());
  CHECK_FALSE(job.addProcess(1, 2, 4103, "vm").has_value());
}
