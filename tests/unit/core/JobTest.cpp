#include <catch2/catch.hpp>

#include "ccs/proto/RankProtocol.hpp"
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

TEST_CASE("job: a stop shown by a status and released by a continue is over when its event comes late",
          "[core][job]") {
  // A breakpoint stops rank 0 (stop 3); a status reply shows the stop before
  // its event has come; the user continues; then the event arrives.
  Job job;
  REQUIRE(job.addRank(registration(0, "")).has_value());
  std::vector<std::string> shown;
  job.setNotifier([&](const std::string& line) { shown.push_back(line); });
  mpidbg::ccs::proto::Event hit;
  hit.kind = mpidbg::ccs::proto::Event::Kind::Breakpoint;
  hit.id = 1;
  hit.where = "MPI_Allreduce(count=1, comm=MPI_COMM_WORLD) call #95";

  hit.stop = 2;  // an earlier stop, seen through its event and continued
  job.applyEvent(0, hit);
  CHECK(job.eventCount() == 1);
  CHECK(job.snapshot()[0].lastStop == 2);
  job.continued(0, 2);

  job.sawStop(0, 3);  // the status reply
  CHECK(job.snapshot()[0].lastStop == 3);
  job.continued(0, 3);  // continue quotes seen=3: the rank releases stop 3
  hit.stop = 3;
  job.applyEvent(0, hit);  // stop 3's event, late
  CHECK(job.eventCount() == 1);
  CHECK(shown.size() == 1);

  hit.stop = 4;  // the next hit is new
  job.applyEvent(0, hit);
  CHECK(job.eventCount() == 2);
  REQUIRE(shown.size() == 2);
  CHECK(shown[1] == "[0] hit breakpoint 1: MPI_Allreduce(count=1, comm=MPI_COMM_WORLD) call #95");
  CHECK(job.snapshot()[0].lastStop == 4);
}
