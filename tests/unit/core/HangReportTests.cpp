#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "HangInputBuilders.hpp"
#include "debugger/core/HangReport.hpp"

using namespace mpidbg::core;
namespace proto = mpidbg::ccs::proto;

using namespace hang_builders;

TEST_CASE("hang: a receive waiting on a rank stuck in a collective is a cycle", "[hang]") {
  HangInput in;
  in.worldSize = 4;
  for (int r : {0, 1, 3}) in.ranks.push_back(rank(r, 4, 1, collective("MPI_Allreduce", 1), {rec(1, "MPI_Allreduce")}));
  in.ranks.push_back(rank(2, 4, 0, p2p("MPI_Recv", "source", 0, 99)));
  const HangVerdict v = analyzeHang(in);
  CHECK_FALSE(v.noHang);
  CHECK(v.states.at(0) == "in call 1 to MPI_Allreduce on MPI_COMM_WORLD");
  CHECK(v.states.at(2) == "blocked in MPI_Recv(source=0, tag=99, comm=MPI_COMM_WORLD)");
  CHECK(hasEdge(v, 0, 2));
  CHECK(hasEdge(v, 3, 2));
  CHECK(hasEdge(v, 2, 0));
  CHECK_FALSE(hasEdge(v, 0, 1));  // both inside the same call
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0] == std::vector<int>{0, 2});
  CHECK(v.suggested.contains(2));
  CHECK(v.suggested.contains(0));
  const std::string text = renderHang(v);
  CHECK(text.find("[0-1,3] in call 1 to MPI_Allreduce on MPI_COMM_WORLD") != std::string::npos);
  CHECK(text.find("Deadlock: cycle 0 -> 2 -> 0") != std::string::npos);
  CHECK(text.find("MPI_COMM_WORLD: collective calls issued: [0-1,3] 1, [2] 0") != std::string::npos);
}

TEST_CASE("hang: a collective mismatch names the first differing call number", "[hang]") {
  HangInput in;
  in.worldSize = 4;
  for (int r : {0, 1, 2})
    in.ranks.push_back(rank(r, 4, 2, collective("MPI_Bcast", 1, 0), {rec(1, "MPI_Barrier"), rec(2, "MPI_Bcast", 0)}));
  in.ranks.push_back(rank(3, 4, 2, collective("MPI_Reduce", 1, 0), {rec(1, "MPI_Barrier"), rec(2, "MPI_Reduce", 0)}));
  const HangVerdict v = analyzeHang(in);
  REQUIRE(v.mismatches.size() == 1);
  CHECK(v.mismatches[0] ==
        "MPI_COMM_WORLD: collective #2 differs: ranks [0-2] called MPI_Bcast(root=0), rank 3 called MPI_Reduce(root=0)");
  CHECK(hasEdge(v, 0, 3));
  CHECK(hasEdge(v, 3, 0));
  CHECK(v.suggested.contains(3));
}

TEST_CASE("hang: different roots of the same collective differ too", "[hang]") {
  HangInput in;
  in.worldSize = 2;
  in.ranks.push_back(rank(0, 2, 1, collective("MPI_Bcast", 1, 0), {rec(1, "MPI_Bcast", 0)}));
  in.ranks.push_back(rank(1, 2, 1, collective("MPI_Bcast", 1, 1), {rec(1, "MPI_Bcast", 1)}));
  const HangVerdict v = analyzeHang(in);
  REQUIRE(v.mismatches.size() == 1);
  CHECK(v.mismatches[0].find("rank 0 called MPI_Bcast(root=0), rank 1 called MPI_Bcast(root=1)") != std::string::npos);
}

namespace {

/// Ranks 0 and 1 each in MPI_Recv from the other; rank 2 in MPI_Finalize.
HangInput receiveCycle() {
  HangInput in;
  in.worldSize = 3;
  in.ranks.push_back(rank(0, 3, 0, p2p("MPI_Recv", "source", 1, 0)));
  in.ranks.push_back(rank(1, 3, 0, p2p("MPI_Recv", "source", 0, 0)));
  in.ranks.push_back(rank(2, 3, 0, std::nullopt));
  in.ranks.back().phase = proto::MpiPhase::Finalizing;
  in.ranks.back().call = finalizeCall();
  return in;
}

}  // namespace

TEST_CASE("hang: receive-receive cycle", "[hang]") {
  HangInput in = receiveCycle();
  const HangVerdict v = analyzeHang(in);
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0] == std::vector<int>{0, 1});
  CHECK(v.states.at(2) == "in MPI_Finalize (a bystander)");
  CHECK(v.culprits.empty());
}

TEST_CASE("hang: a rank computing outside MPI is the culprit, not a cycle", "[hang]") {
  HangInput in;
  in.worldSize = 4;
  for (int r : {0, 1, 2}) in.ranks.push_back(rank(r, 4, 1, collective("MPI_Barrier", 1), {rec(1, "MPI_Barrier")}));
  in.ranks.push_back(rank(3, 4, 0, std::nullopt));
  in.ranks.back().frames = {"spin () at stuck.c:12", "main () at stuck.c:30"};
  const HangVerdict v = analyzeHang(in);
  CHECK(v.cycles.empty());
  REQUIRE(v.culprits.count(3));
  CHECK(v.culprits.at(3) == "computing (not in MPI) in spin () at stuck.c:12");
  CHECK(v.suggested == RankSet::range(3, 3));
  CHECK(renderHang(v).find("Waited for: rank 3 is computing (not in MPI) in spin () at stuck.c:12.") !=
        std::string::npos);
}

TEST_CASE("hang: waiting on a finalizing rank is a dead end; the finalizing rank is no culprit", "[hang]") {
  HangInput in;
  in.worldSize = 3;
  in.ranks.push_back(rank(0, 3, 0, p2p("MPI_Recv", "source", 2, 0)));
  for (int r : {1, 2}) {
    in.ranks.push_back(rank(r, 3, 0, finalizeCall()));
    in.ranks.back().phase = proto::MpiPhase::Finalizing;
  }
  const HangVerdict v = analyzeHang(in);
  CHECK(v.culprits.empty());
  REQUIRE(v.deadEnds.size() == 1);
  CHECK(v.deadEnds[0] ==
        "rank 0 waits in MPI_Recv(source=2, tag=0, comm=MPI_COMM_WORLD) for rank 2, which is in MPI_Finalize "
        "(a bystander): no matching operation will come");
  CHECK(v.suggested.contains(0));
  CHECK(v.suggested.contains(2));
  CHECK_FALSE(v.suggested.contains(1));
}

namespace {

/// Rank 0 of two tests an MPI_Irecv(source=1, tag=5) as `test` says; rank 1
/// waits in the first MPI_Barrier.
HangInput pollingInput(const proto::MpiCall& test) {
  HangInput in;
  in.worldSize = 2;
  proto::RankQueues q = rank(0, 2, 0, test);
  const proto::PendingOp irecv = irecvOp(1, 5, 1, 0x2c000001);
  q.comms[0].recvs.push_back(irecv);
  q.waitingOn = {irecv.request};
  in.ranks.push_back(q);
  in.ranks.push_back(rank(1, 2, 1, collective("MPI_Barrier", 1), {rec(1, "MPI_Barrier")}));
  return in;
}

}  // namespace

TEST_CASE("hang: polling MPI_Test is waiting; a rank that tests and goes on is running", "[hang]") {
  proto::MpiCall test = plainCall("MPI_Test");
  test.polling = true;
  test.elapsedUs = 4'000'000;
  test.sinceLastUs = 1'000;
  HangVerdict v = analyzeHang(pollingInput(test));
  CHECK(v.states.at(0) == "polls MPI_Test on MPI_Irecv(source=1, tag=5, count=1) request 0x2c000001 for 4.0 s");
  CHECK(hasEdge(v, 0, 1));
  CHECK(hasEdge(v, 1, 0));
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0] == std::vector<int>{0, 1});
  {
    // Read while inside one of its tests, the request is marked waited: the
    // phrase is the same (CI saw "[waited]" come and go with the timing).
    HangInput inside = pollingInput(test);
    inside.ranks[0].comms[0].recvs[0].waited = true;
    CHECK(analyzeHang(inside).states.at(0) == v.states.at(0));
  }

  // Caught inside one MPI_Test, no streak: the rank goes on by itself.
  // Rank 1 waits for it; no cycle is claimed.
  for (const bool polling : {false, true}) {
    proto::MpiCall brief = plainCall("MPI_Test");
    brief.polling = polling;
    brief.elapsedUs = polling ? 300'000 : 20;
    v = analyzeHang(pollingInput(brief));
    CHECK(v.states.at(0) == "running (tests requests with MPI_Test between other work)");
    CHECK_FALSE(hasEdge(v, 0, 1));
    CHECK(v.cycles.empty());
    CHECK(renderHang(v).find("Waited for: rank 0 is running") != std::string::npos);
  }

  // A long streak the rank left for longer than --blocked-after: running.
  test.sinceLastUs = 3'000'000;
  v = analyzeHang(pollingInput(test));
  CHECK(v.cycles.empty());
  // --blocked-after longer than the streak: not yet waiting.
  test.sinceLastUs = 1'000;
  HangInput patient = pollingInput(test);
  patient.blockedAfter = std::chrono::milliseconds(5000);
  CHECK(analyzeHang(patient).cycles.empty());
}

TEST_CASE("hang: MPI_Waitall shows which requests are incomplete", "[hang]") {
  HangInput in;
  in.worldSize = 4;
  proto::RankQueues q = rank(0, 4, 1, plainCall("MPI_Waitall"));
  const proto::PendingOp irecv = irecvOp(3, 7, 10, 0x2c000001, true);
  proto::PendingOp ibarrier;
  ibarrier.kind = proto::PendingOp::Kind::Collective;
  ibarrier.function = "MPI_Ibarrier";
  ibarrier.request = 0x2c000002;
  ibarrier.collClass = 0;
  ibarrier.collCall = 1;
  ibarrier.collSeq = 1;
  ibarrier.waited = true;
  proto::PendingOp persistent;
  persistent.kind = proto::PendingOp::Kind::Send;
  persistent.function = "MPI_Send_init";
  persistent.peer = 1;
  persistent.tag = 0;
  persistent.request = 0x2c000003;
  persistent.persistent = true;
  persistent.active = false;
  persistent.waited = true;
  q.comms[0].recvs.push_back(irecv);
  q.comms[0].collectives.push_back(ibarrier);
  q.comms[0].sends.push_back(persistent);
  in.ranks.push_back(q);
  in.ranks.push_back(rank(1, 4, 1, collective("MPI_Barrier", 1), {rec(1, "MPI_Barrier")}));
  in.ranks.push_back(rank(2, 4, 0, std::nullopt));  // not yet at the barrier: computing
  in.ranks.push_back(rank(3, 4, 1, collective("MPI_Barrier", 1), {rec(1, "MPI_Barrier")}));
  in.ranks[0].history = {rec(1, "MPI_Ibarrier")};
  const HangVerdict v = analyzeHang(in);
  CHECK(hasEdge(v, 0, 3));  // the Irecv from 3
  CHECK(hasEdge(v, 0, 2));  // the Ibarrier: rank 2 has not issued it
  CHECK(v.culprits.count(2));
  bool never = false;
  for (const auto& d : v.deadEnds) never = never || d.find("never started") != std::string::npos;
  CHECK(never);
  CHECK(describeOp(irecv) == "MPI_Irecv(source=3, tag=7, count=10) request 0x2c000001 [waited]");
  // MPI_Barrier and MPI_Ibarrier do not match each other.
  REQUIRE_FALSE(v.mismatches.empty());
  CHECK(v.mismatches[0].find("rank 0 called MPI_Ibarrier") != std::string::npos);
}

TEST_CASE("hang: a sub-communicator's local ranks map to world ranks", "[hang]") {
  constexpr std::uint64_t kSub = 0x84000002;
  HangInput in;
  in.worldSize = 4;
  auto sub = [&](int localRank, std::uint64_t collSeq) {
    proto::CommQueues c;
    c.state.handle = kSub;
    c.state.rootWorldRank = 1;
    c.state.size = 2;
    c.state.localRank = localRank;
    c.state.name = "comm 0x84000002";
    c.worldRanks = {1, 3};
    c.collSeq = collSeq;
    return c;
  };
  in.ranks.push_back(rank(0, 4, 1, std::nullopt));
  in.ranks.back().phase = proto::MpiPhase::Finalizing;
  in.ranks.back().call = finalizeCall();
  in.ranks.push_back(rank(1, 4, 1, collective("MPI_Allreduce", 1, -1, kSub, "comm 0x84000002"),
                          {rec(1, "MPI_Comm_split"), rec(1, "MPI_Allreduce", -1, kSub)}));
  in.ranks.back().comms.push_back(sub(0, 1));
  in.ranks.push_back(rank(2, 4, 1, std::nullopt));
  in.ranks.back().phase = proto::MpiPhase::Finalizing;
  in.ranks.back().call = finalizeCall();
  in.ranks.push_back(rank(3, 4, 1, p2p("MPI_Recv", "source", 0, 5, kSub, "comm 0x84000002"),
                          {rec(1, "MPI_Comm_split")}));
  in.ranks.back().comms.push_back(sub(1, 0));
  const HangVerdict v = analyzeHang(in);
  CHECK(hasEdge(v, 1, 3));
  CHECK(hasEdge(v, 3, 1));  // local rank 0 of the sub-communicator is world rank 1
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0] == std::vector<int>{1, 3});
}

TEST_CASE("hang: nothing blocked is no hang; ended and unreadable ranks are reported", "[hang]") {
  HangInput in;
  in.worldSize = 3;
  in.ranks.push_back(rank(0, 3, 0, std::nullopt));
  in.ended[1] = "exited with code 1";
  in.unreadable[2] = "timed out";
  HangVerdict v = analyzeHang(in);
  CHECK(v.noHang);
  CHECK(v.states.at(1) == "exited with code 1");
  CHECK(v.states.at(2) == "unreadable (timed out)");
  CHECK(renderHang(v).find("nothing is hung") != std::string::npos);

  in.ranks[0].call = p2p("MPI_Recv", "source", 1, 3);
  v = analyzeHang(in);
  CHECK_FALSE(v.noHang);
  CHECK(v.culprits.at(1) == "exited with code 1");
  const auto j = hangToJson(v);
  CHECK(j["version"] == 1);
  CHECK(j["culprits"][0]["rank"] == 1);
  CHECK(j["edges"][0]["from"] == 0);
  CHECK(j["edges"][0]["to"] == 1);
  CHECK(j["no_hang"] == false);
}

TEST_CASE("hang: a large job's cycle is found without recursion", "[hang]") {
  HangInput in;
  in.worldSize = 2048;
  for (int r = 0; r < 2048; ++r) in.ranks.push_back(rank(r, 2048, 0, p2p("MPI_Recv", "source", (r + 1) % 2048, 0)));
  const HangVerdict v = analyzeHang(in);
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0].size() == 2048);
  CHECK(v.cycles[0][0] == 0);
  CHECK(v.cycles[0][1] == 1);
}

TEST_CASE("hang: the same collective on two overlapping communicators is named", "[hang]") {
  constexpr std::uint64_t kDup = 0x84000003;
  HangInput in;
  in.worldSize = 3;
  for (int r : {0, 1}) {
    in.ranks.push_back(rank(r, 3, 2, collective("MPI_Allreduce", 1), {rec(1, "MPI_Comm_dup"), rec(2, "MPI_Allreduce")}));
    in.ranks.back().comms.push_back(worldCopy(r, 3, 0, kDup, "solver"));
  }
  in.ranks.push_back(rank(2, 3, 1, collective("MPI_Allreduce", 1, -1, kDup, "solver"),
                          {rec(1, "MPI_Comm_dup"), rec(1, "MPI_Allreduce", -1, kDup)}));
  in.ranks.back().comms.push_back(worldCopy(2, 3, 1, kDup, "solver"));
  const HangVerdict v = analyzeHang(in);
  bool named = false;
  for (const auto& m : v.mismatches)
    named = named || m == "MPI_Allreduce is entered on different communicators: ranks [0-1] on MPI_COMM_WORLD "
                          "(handle 0x44000000), rank 2 on solver (handle 0x84000003)";
  CHECK(named);
  CHECK(v.suggested.contains(2));
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0] == std::vector<int>{0, 2});
}

TEST_CASE("hang: from stack frames only, ranks outside the majority's collective are the odd ones out", "[hang]") {
  // Ranks attached by pid (no runtime, no DLL): calls from frames, no communicators.
  auto framesOnly = [](int r, const std::string& fn) {
    proto::RankQueues q;
    q.worldRank = r;
    q.call = plainCall(fn);
    if (fn == "MPI_Finalize") q.phase = proto::MpiPhase::Finalizing;
    q.source = "gdb (no runtime) (collectives from frames)";
    return q;
  };
  HangInput in;
  in.worldSize = 5;
  for (int r = 0; r < 3; ++r) in.ranks.push_back(framesOnly(r, "MPI_Allreduce"));
  in.ranks.push_back(framesOnly(3, "MPI_Recv"));
  in.ranks.push_back(framesOnly(4, "MPI_Finalize"));
  const HangVerdict v = analyzeHang(in);
  REQUIRE(v.mismatches.size() == 1);
  CHECK(v.mismatches[0] ==
        "from stack frames only (no call numbers): ranks [0-2] in MPI_Allreduce, but rank 3 in MPI_Recv, rank 4 in "
        "MPI_Finalize: unless they reach MPI_Allreduce, it cannot complete");
  CHECK(v.suggested.contains(3));
  CHECK(v.suggested.contains(4));
  CHECK_FALSE(v.suggested.contains(0));

  SECTION("every rank in the same collective: nothing to say") {
    in.ranks[3] = framesOnly(3, "MPI_Allreduce");
    in.ranks[4] = framesOnly(4, "MPI_Allreduce");
    CHECK(analyzeHang(in).mismatches.empty());
  }
  SECTION("receives without arguments: the report says the peers are unknown, not that there is no cycle") {
    for (int r = 0; r < 5; ++r) in.ranks[static_cast<std::size_t>(r)] = framesOnly(r, "MPI_Recv");
    const HangVerdict recvs = analyzeHang(in);
    CHECK(recvs.framesOnly);
    CHECK(recvs.edges.empty());
    const std::string text = renderHang(recvs);
    CHECK(text.find("Whom the blocked ranks wait for is unknown") != std::string::npos);
    CHECK(text.find("No cycle found") == std::string::npos);
  }
  SECTION("a rank with collective state turns the guess off") {
    in.ranks[0].comms.push_back(world(0, 5, 1));
    for (const auto& m : analyzeHang(in).mismatches) CHECK(m.find("from stack frames only") == std::string::npos);
  }
}

TEST_CASE("hang: a dead end whose message an earlier wildcard receive took says so", "[hang]") {
  // examples/hangs/wildcard: rank 0's MPI_ANY_SOURCE receive matched rank 2,
  // then rank 0 waits for rank 2, which has finished.
  HangInput in;
  in.worldSize = 3;
  in.ranks.push_back(rank(0, 3, 0, p2p("MPI_Recv", "source", 2, 0)));
  for (int r : {1, 2}) {
    in.ranks.push_back(rank(r, 3, 0, finalizeCall()));
    in.ranks.back().phase = proto::MpiPhase::Finalizing;
  }
  const std::string dead =
      "rank 0 waits in MPI_Recv(source=2, tag=0, comm=MPI_COMM_WORLD) for rank 2, which is in MPI_Finalize "
      "(a bystander): no matching operation will come";
  SECTION("the match names the sender waited for") {
    in.ranks[0].wildcards.push_back({kWorld, "MPI_Recv", -1, 1, 5, 2});  // another tag: not it
    in.ranks[0].wildcards.push_back({kWorld, "MPI_Recv", 0, 2, 0, 3});
    const HangVerdict v = analyzeHang(in);
    REQUIRE(v.deadEnds.size() == 1);
    CHECK(v.deadEnds[0] == dead +
                               "; rank 0's earlier MPI_Recv(source=MPI_ANY_SOURCE, tag=0) (its MPI call 3) matched "
                               "rank 2's message (tag 0): if that receive was meant for another sender, it took the "
                               "message this one waits for");
  }
  SECTION("matches of other senders, tags or communicators are no explanation") {
    in.ranks[0].wildcards.push_back({kWorld, "MPI_Recv", 0, 1, 0, 3});
    in.ranks[0].wildcards.push_back({kWorld, "MPI_Recv", -1, 2, 7, 4});
    in.ranks[0].wildcards.push_back({kWorld + 1, "MPI_Recv", 0, 2, 0, 5});
    const HangVerdict v = analyzeHang(in);
    REQUIRE(v.deadEnds.size() == 1);
    CHECK(v.deadEnds[0] == dead);
  }
}

TEST_CASE("hang: one communicator with different handles per rank, its handle reused from freed ones", "[hang]") {
  // MPICH's rank 0 holds 0x84000005 for the copy the others hold as
  // 0x84000003; earlier copies under the same handles left (handle, 3)
  // records of an MPI_Allreduce in every history.
  constexpr std::uint64_t kUid = 0x1234;
  HangInput in;
  in.worldSize = 3;
  auto handleOf = [](int r) -> std::uint64_t { return r == 0 ? 0x84000005 : 0x84000003; };
  for (int r : {0, 1}) {
    const std::uint64_t h = handleOf(r);
    in.ranks.push_back(rank(r, 3, 0, collective("MPI_Barrier", 3, -1, h, "reused"),
                            {rec(3, "MPI_Allreduce", -1, h), rec(1, "MPI_Barrier", -1, h), rec(2, "MPI_Barrier", -1, h),
                             rec(3, "MPI_Barrier", -1, h)}));
    in.ranks.back().comms.push_back(worldCopy(r, 3, 3, h, "reused", kUid));
  }
  in.ranks.push_back(rank(2, 3, 0, p2p("MPI_Recv", "source", 0, 42),
                          {rec(3, "MPI_Allreduce", -1, 0x84000003), rec(1, "MPI_Barrier", -1, 0x84000003),
                           rec(2, "MPI_Barrier", -1, 0x84000003)}));
  in.ranks.back().comms.push_back(worldCopy(2, 3, 2, handleOf(2), "reused", kUid));
  const HangVerdict v = analyzeHang(in);
  CHECK_FALSE(hasEdge(v, 0, 1));  // the same call on the same communicator
  CHECK_FALSE(hasEdge(v, 1, 0));
  CHECK(hasEdge(v, 0, 2));
  CHECK(hasEdge(v, 2, 0));
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0] == std::vector<int>{0, 2});
  REQUIRE(v.mismatches.size() == 1);
  CHECK(v.mismatches[0] == "reused: collective calls issued: [0-1] 3, [2] 2");
}

TEST_CASE("hang: same uid on different handles is one communicator, named or not", "[hang]") {
  // NWChem under MPICH: rank 0 holds 0x84000005, rank 1 0x84000003 for one
  // unnamed communicator; both are in its third MPI_Barrier. Under Open MPI
  // the default name differs too, made from each member's own handle (an
  // address): "win 0x55acbf4c43d0" and "win 0x55a9a7b1c2c0" for one window.
  constexpr std::uint64_t kUid = 0xf01a1a6e524c50b5ull;
  for (const std::string name : {"", "solver", "by handle"}) {
    HangInput in;
    in.worldSize = 2;
    for (int r : {0, 1}) {
      const std::uint64_t h = r == 0 ? 0x84000005 : 0x84000003;
      if (name == "by handle") {
        const std::string own = r == 0 ? "win 0x84000005" : "win 0x84000003";
        in.ranks.push_back(rank(r, 2, 0, collective("MPI_Win_fence", 3, -1, h, own),
                                {rec(1, "MPI_Win_fence", -1, h), rec(2, "MPI_Win_fence", -1, h),
                                 rec(3, "MPI_Win_fence", -1, h)}));
        in.ranks.back().comms.push_back(worldCopy(r, 2, 3, h, own, kUid));
        continue;
      }
      in.ranks.push_back(rank(r, 2, 0, collective("MPI_Barrier", 3, -1, h, name),
                              {rec(1, "MPI_Barrier", -1, h), rec(2, "MPI_Barrier", -1, h), rec(3, "MPI_Barrier", -1, h)}));
      in.ranks.back().comms.push_back(worldCopy(r, 2, 3, h, name, kUid));
    }
    const HangVerdict v = analyzeHang(in);
    CAPTURE(name);
    CHECK(v.mismatches.empty());
    CHECK(v.edges.empty());
    CHECK(v.suggested.empty());
  }
}

TEST_CASE("hang: where each waiting rank made its MPI call is in its state and its cycle line", "[hang]") {
  HangInput in = receiveCycle();
  in.callSites[0] = "ring.c:12 in exchange";
  in.callSites[1] = "ring.c:12 in exchange";
  in.callSites[2] = "ring.c:30 in main";
  const HangVerdict v = analyzeHang(in);
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.states.at(0) == "blocked in MPI_Recv(source=1, tag=0, comm=MPI_COMM_WORLD) at ring.c:12 in exchange");
  CHECK(v.states.at(2) == "in MPI_Finalize (a bystander) at ring.c:30 in main");
  const std::string text = renderHang(v);
  CHECK_THAT(text, Catch::Contains("  [0] blocked in MPI_Recv(source=1, tag=0, comm=MPI_COMM_WORLD) at ring.c:12 in "
                                   "exchange\n"));
  CHECK_THAT(text, Catch::Contains("  rank 0 waits in MPI_Recv(source=1, tag=0, comm=MPI_COMM_WORLD) for rank 1, at "
                                   "ring.c:12 in exchange\n"));
  const auto j = hangToJson(v);
  REQUIRE(j["call_sites"].size() == 2);
  CHECK(j["call_sites"][0]["ranks"] == "[0-1]");
  CHECK(j["call_sites"][0]["site"] == "ring.c:12 in exchange");
  CHECK(j["call_sites"][1]["rank_list"] == nlohmann::json::array({2}));

  // Without call sites (hang --no-frames) the lines are as before.
  in.callSites.clear();
  const HangVerdict bare = analyzeHang(in);
  CHECK(bare.states.at(0) == "blocked in MPI_Recv(source=1, tag=0, comm=MPI_COMM_WORLD)");
  CHECK(hangToJson(bare)["call_sites"].empty());
}

TEST_CASE("hang: a wait the verdict does not follow is said, never guessed", "[hang]") {
  // lock_held's shape: rank 1 waits in MPI_Win_unlock for a lock rank 0
  // holds; ranks 0, 2 and 3 wait in MPI_Barrier for rank 1. The verdict has
  // no rule for the unlock: no edge from rank 1, no cycle claimed, and the
  // text names rank 1 as not followed rather than "No cycle found".
  constexpr std::uint64_t kWin = 0xa0000000;
  HangInput in;
  in.worldSize = 4;
  for (int r : {0, 2, 3})
    in.ranks.push_back(
        rank(r, 4, 2, collective("MPI_Barrier", 2), {rec(1, "MPI_Win_create"), rec(2, "MPI_Barrier")}));
  proto::MpiCall unlock = plainCall("MPI_Win_unlock");
  unlock.comm = kWin;
  unlock.commName = "win 0xa0000000";
  in.ranks.insert(in.ranks.begin() + 1, rank(1, 4, 1, unlock, {rec(1, "MPI_Win_create")}));
  const HangVerdict v = analyzeHang(in);
  REQUIRE(v.unfollowed.size() == 1);
  CHECK(v.unfollowed.at(1).starts_with("MPI_Win_unlock("));
  CHECK(v.cycles.empty());
  for (const auto& e : v.edges) CHECK(e.from != 1);
  CHECK(v.suggested.contains(1));
  const std::string text = renderHang(v);
  CHECK_THAT(text, Catch::Contains("Not followed: rank 1 waits in MPI_Win_unlock("));
  CHECK_THAT(text, Catch::Contains("No cycle found among the waits the verdict follows"));
  CHECK_THAT(text, !Catch::Contains("closed loop"));
  const auto j = hangToJson(v);
  REQUIRE(j["unfollowed"].size() == 1);
  CHECK(j["unfollowed"][0]["rank_list"] == std::vector<int>{1});
}

TEST_CASE("hang: the large-count constructors and collective MPI-IO wait as their int forms", "[hang]") {
  // fence_skip_c's shape one call earlier: ranks 0-2 in a window
  // constructor or a collective MPI-IO call (collective #1 on
  // MPI_COMM_WORLD, no class), rank 3 in MPI_Barrier instead. MPI-4's _c
  // forms are collectives on the communicator as their int forms are; the
  // nonblocking MPI-IO forms are only seen (not followed).
  for (const std::string fn : {"MPI_Win_create", "MPI_Win_create_c", "MPI_Win_allocate_c", "MPI_Win_allocate_shared_c",
                               "MPI_File_write_all_c", "MPI_File_read_at_all_begin_c", "MPI_File_iwrite_all_c"}) {
    CAPTURE(fn);
    HangInput in;
    in.worldSize = 4;
    for (int r : {0, 1, 2}) in.ranks.push_back(rank(r, 4, 1, collective(fn, 0), {rec(1, fn)}));
    in.ranks.push_back(rank(3, 4, 1, collective("MPI_Barrier", 1), {rec(1, "MPI_Barrier")}));
    const HangVerdict v = analyzeHang(in);
    if (fn == "MPI_File_iwrite_all_c") {
      CHECK(v.unfollowed.size() == 3);
      CHECK_FALSE(hasEdge(v, 0, 3));
      continue;
    }
    CHECK(v.unfollowed.empty());
    CHECK(hasEdge(v, 0, 3));
    CHECK(hasEdge(v, 3, 0));
    REQUIRE(v.cycles.size() == 1);
    CHECK(v.cycles[0] == std::vector<int>{0, 3});
  }
}
