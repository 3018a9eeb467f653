// The hang verdict and the ranks the debugger holds (issue 23 item 3).
#include <catch2/catch.hpp>

#include "HangInputBuilders.hpp"
#include "debugger/core/HangReport.hpp"

using namespace mpidbg::core;
using namespace hang_builders;

namespace hang_held_tests {

namespace {

/// A ring of 4 exchanging with MPI_Recv from prev: rank `held` held with
/// `how`, the others blocked waiting for prev.
HangInput heldRing(int held, const std::string& how) {
  HangInput in;
  in.worldSize = 4;
  for (int r = 0; r < 4; ++r) {
    in.ranks.push_back(rank(r, 4, 0, p2p("MPI_Recv", "source", (r + 3) % 4, 3)));
    if (r == held) in.ranks.back().held = how;
  }
  return in;
}

}  // namespace

TEST_CASE("hang: ranks waiting for a rank the debugger holds are no hang of the program", "[hang][held]") {
  struct Row {
    std::string how, state, line;
  };
  const std::vector<Row> rows = {
      {"frozen (--now) in application code", "held: frozen (--now) in application code",
       "No hang of the program: ranks [0,2-3] wait for rank 1, which you froze (continue 1)."},
      {"frozen at MPI_Recv(source=0, tag=3, comm=MPI_COMM_WORLD)",
       "held: frozen at MPI_Recv(source=0, tag=3, comm=MPI_COMM_WORLD)",
       "No hang of the program: ranks [0,2-3] wait for rank 1, which you froze (continue 1)."},
      {"breakpoint 2 at MPI_Recv(source=0, tag=3)", "held: breakpoint 2 at MPI_Recv(source=0, tag=3)",
       "No hang of the program: ranks [0,2-3] wait for rank 1, which is stopped at breakpoint 2 at "
       "MPI_Recv(source=0, tag=3) (continue 1)."},
  };
  for (const Row& row : rows) {
    CAPTURE(row.how);
    const HangVerdict v = analyzeHang(heldRing(1, row.how));
    CHECK(v.states.at(1) == row.state);
    CHECK(v.states.at(2) == "blocked in MPI_Recv(source=1, tag=3, comm=MPI_COMM_WORLD)");
    CHECK(v.cycles.empty());  // the ring is cut at the held rank
    CHECK(v.culprits.empty());
    CHECK(v.deadEnds.empty());
    CHECK(v.onlyHeld);
    CHECK_FALSE(v.noHang);
    REQUIRE(v.held.count(1));
    CHECK(v.held.at(1).how == row.how);
    CHECK(v.held.at(1).waiters == RankSet::parse("[0,2-3]", 4).value());
    CHECK(v.suggested.empty());
    const std::string text = renderHang(v);
    CHECK(text.find(row.line) != std::string::npos);
    CHECK(text.find("Deadlock") == std::string::npos);
    CHECK(text.find("No cycle found") == std::string::npos);
    CHECK(text.find("Waited for:") == std::string::npos);
    const auto j = hangToJson(v);
    CHECK(j["only_held"] == true);
    CHECK(j["held"][0]["rank"] == 1);
    CHECK(j["held"][0]["how"] == row.how);
    CHECK(j["held"][0]["waiters"] == nlohmann::json::array({0, 2, 3}));
  }
}

TEST_CASE("hang: a held rank in MPI_Finalize or a collective is held, not a bystander or behind", "[hang][held]") {
  HangInput in;
  in.worldSize = 3;
  // Rank 2 frozen before its first MPI_Allreduce; ranks 0-1 inside it.
  for (int r : {0, 1}) in.ranks.push_back(rank(r, 3, 1, collective("MPI_Allreduce", 1), {rec(1, "MPI_Allreduce")}));
  in.ranks.push_back(rank(2, 3, 0, std::nullopt));
  in.ranks.back().held = "frozen (--now) in application code";
  HangVerdict v = analyzeHang(in);
  CHECK(v.mismatches.empty());
  CHECK(v.onlyHeld);
  CHECK(renderHang(v).find("No hang of the program: ranks [0-1] wait for rank 2, which you froze (continue 2).") !=
        std::string::npos);

  // Frozen inside the very collective the others wait in (NWChem, rank 1
  // frozen in its MPI_Allreduce #50): they wait for it, which is no cycle
  // and no "rank may still be on its way".
  in = HangInput{};
  in.worldSize = 3;
  for (int r : {0, 1, 2}) in.ranks.push_back(rank(r, 3, 1, collective("MPI_Allreduce", 1), {rec(1, "MPI_Allreduce")}));
  in.ranks.back().held = "frozen (--now) in MPI_Allreduce(count=1)";
  v = analyzeHang(in);
  CHECK(hasEdge(v, 0, 2));
  CHECK(hasEdge(v, 1, 2));
  CHECK_FALSE(hasEdge(v, 0, 1));  // both inside it, neither held: no wait between them
  CHECK(v.cycles.empty());
  CHECK(v.onlyHeld);
  CHECK(renderHang(v).find("No hang of the program: ranks [0-1] wait for rank 2, which you froze (continue 2).") !=
        std::string::npos);

  // Frozen inside MPI_Finalize: held, and a receive from it is no dead end
  // of the program.
  in = HangInput{};
  in.worldSize = 2;
  in.ranks.push_back(rank(0, 2, 0, p2p("MPI_Recv", "source", 1, 0)));
  in.ranks.push_back(rank(1, 2, 0, finalizeCall()));
  in.ranks.back().phase = proto::MpiPhase::Finalizing;
  in.ranks.back().held = "frozen (--now) in MPI_Finalize";
  v = analyzeHang(in);
  CHECK(v.states.at(1) == "held: frozen (--now) in MPI_Finalize");
  CHECK(v.deadEnds.empty());
  CHECK(v.onlyHeld);
}

TEST_CASE("hang: a rank whose wait is not followed, beside a held rank, may wait for it", "[hang][held]") {
  // NWChem: rank 0 in MPI_Win_flush_local_all (no target: not followed),
  // rank 1 frozen in MPI_Barrier. Not "look first at rank 0".
  HangInput in;
  in.worldSize = 2;
  in.ranks.push_back(rank(0, 2, 0, plainCall("MPI_Win_flush_local_all")));
  in.ranks.push_back(rank(1, 2, 1, collective("MPI_Barrier", 1), {rec(1, "MPI_Barrier")}));
  in.ranks.back().held = "frozen (--now) in MPI_Barrier";
  HangVerdict v = analyzeHang(in);
  REQUIRE(v.unfollowed.count(0));
  CHECK(v.cycles.empty());
  CHECK(v.suggested.empty());
  const std::string text = renderHang(v);
  CHECK(text.find("Held by the debugger: the ranks not followed may wait for rank 1, which you froze (continue 1).") !=
        std::string::npos);
  CHECK(text.find("Look first at") == std::string::npos);

  // Without the hold, the rank not followed is still the one to look at.
  in.ranks.back().held.clear();
  v = analyzeHang(in);
  CHECK(v.suggested.contains(0));
  CHECK(renderHang(v).find("Held by the debugger") == std::string::npos);
}

TEST_CASE("hang: a real cycle beside a held rank is still a deadlock", "[hang][held]") {
  HangInput in;
  in.worldSize = 4;
  in.ranks.push_back(rank(0, 4, 0, p2p("MPI_Recv", "source", 1, 7)));
  in.ranks.push_back(rank(1, 4, 0, p2p("MPI_Recv", "source", 0, 7)));
  in.ranks.push_back(rank(2, 4, 0, p2p("MPI_Recv", "source", 3, 7)));
  in.ranks.push_back(rank(3, 4, 0, std::nullopt));
  in.ranks.back().held = "breakpoint 1 at MPI_Send(dest=2, tag=7)";
  const HangVerdict v = analyzeHang(in);
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0] == std::vector<int>{0, 1});
  CHECK_FALSE(v.onlyHeld);
  const std::string text = renderHang(v);
  CHECK(text.find("Deadlock: cycle 0 -> 1 -> 0") != std::string::npos);
  CHECK(text.find("Held by the debugger: rank 2 waits for rank 3, which is stopped at breakpoint 1 at "
                  "MPI_Send(dest=2, tag=7) (continue 3).") != std::string::npos);
  CHECK_FALSE(v.suggested.contains(3));
}

}  // namespace hang_held_tests
