// The hang verdict with the findings of mpidbg check (StaticFindings).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "HangInputBuilders.hpp"
#include "debugger/core/HangReport.hpp"

using namespace mpidbg::core;
using namespace hang_builders;

namespace hang_check_tests {

TEST_CASE("hang: a rank-dependent collective mpidbg check flagged is named where ranks wait", "[hang][check]") {
  // coll_deadlock's shape: ranks 1 and 3 in MPI_Barrier at coll_deadlock.c:19,
  // ranks 0 and 2 in MPI_Finalize; the check flagged line 19 (condition at 18).
  auto findings = std::make_shared<StaticFindings>();
  StaticFinding f;
  f.file = "examples/threadlevel/coll_deadlock.c";
  f.line = 19;
  f.category = "mpidbg-rank-dependent-collective";
  f.function = "MPI_Barrier";
  f.message = "MPI_Barrier may not be called by every rank";
  f.related = {"examples/threadlevel/coll_deadlock.c:18:7", "examples/threadlevel/coll_deadlock.c:10:3"};
  findings->findings.push_back(f);
  HangInput in;
  in.worldSize = 4;
  for (int r = 0; r < 4; ++r) {
    if (r % 2 == 0) {
      proto::RankQueues q = rank(r, 4, 0, plainCall("MPI_Finalize"));
      q.phase = proto::MpiPhase::Finalizing;
      in.ranks.push_back(q);
      in.callSites[r] = "coll_deadlock.c:21 in main";
    } else {
      in.ranks.push_back(rank(r, 4, 1, collective("MPI_Barrier", 1), {rec(1, "MPI_Barrier")}));
      in.callSites[r] = "coll_deadlock.c:19 in main";
    }
  }
  CHECK(analyzeHang(in).predicted.empty());  // not joined: nothing said
  in.findings = findings;
  const HangVerdict v = analyzeHang(in);
  REQUIRE(v.predicted.size() == 1);
  CHECK(v.predicted[0].waiting.toVector() == std::vector<int>{1, 3});
  CHECK(v.predicted[0].elsewhere.toVector() == std::vector<int>{0, 2});
  CHECK(v.predicted[0].condition == "coll_deadlock.c:18");
  CHECK_THAT(renderHang(v), Catch::Contains("Predicted by mpidbg check: ranks [0,2] are not in MPI_Barrier at "
                                            "coll_deadlock.c:19, where ranks [1,3] wait: the condition at "
                                            "coll_deadlock.c:18 depends on the rank"));
  CHECK(hangToJson(v)["predicted"][0]["elsewhere"] == std::vector<int>{0, 2});

  SECTION("another line, another function, or every rank there: nothing said") {
    findings->findings[0].line = 20;
    CHECK(analyzeHang(in).predicted.empty());
    findings->findings[0].line = 19;
    findings->findings[0].function = "MPI_Allreduce";
    CHECK(analyzeHang(in).predicted.empty());
    findings->findings[0].function = "MPI_Barrier";
    for (int r : {0, 2}) {
      in.ranks[r] = rank(r, 4, 1, collective("MPI_Barrier", 1), {rec(1, "MPI_Barrier")});
      in.callSites[r] = "coll_deadlock.c:19 in main";
    }
    CHECK(analyzeHang(in).predicted.empty());
  }
}

TEST_CASE("static findings: read from mpidbg check's JSON, matched by file name and line", "[check]") {
  char path[] = "/tmp/mpidbg-findings-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  write(R"({"findings":[{"file":"src/a.c","line":17,"column":7,"severity":"error",)"
        R"("category":"mpidbg-concurrent-collective","function":"MPI_Allreduce","message":"m1","related":[]},)"
        R"({"file":"/abs/a.c","line":17,"category":"mpidbg-thread-level","message":"m2"},)"
        R"({"file":"b.c","line":4,"category":"mpidbg-rank-dependent-collective","message":"m3"}]})");
  auto loaded = loadStaticFindings(path);
  REQUIRE(loaded.has_value());
  REQUIRE(loaded->findings.size() == 3);
  CHECK(loaded->findings[0].site() == "a.c:17");
  CHECK(loaded->findings[1].severity == "warning");  // the default
  CHECK(loaded->at("a.c:17 in main", true) == std::vector<std::size_t>{0, 1});
  CHECK(loaded->at("/other/dir/a.c:17", true) == std::vector<std::size_t>{0, 1});
  CHECK(loaded->at("a.c:17", false).empty());
  CHECK(loaded->at("b.c:4 in f", false) == std::vector<std::size_t>{2});
  CHECK(loaded->at("a.c:18", true).empty());

  write("not json");
  CHECK_THAT(loadStaticFindings(path).error().message, Catch::EndsWith("it is not JSON"));
  write(R"({"files":[]})");
  CHECK_THAT(loadStaticFindings(path).error().message, Catch::EndsWith("it has no \"findings\" array"));
  write(R"({"findings":[{"file":"a.c","category":"x","message":"m"}]})");
  CHECK_THAT(loadStaticFindings(path).error().message, Catch::EndsWith("finding 0 has no \"line\" number"));
  std::remove(path);
  CHECK_THAT(loadStaticFindings(path).error().message, Catch::StartsWith("cannot read /tmp/mpidbg-findings-"));
}

}  // namespace hang_check_tests
