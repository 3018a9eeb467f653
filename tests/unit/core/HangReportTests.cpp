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

/// A pending MPI_Irecv on MPI_COMM_WORLD.
proto::PendingOp irecvOp(int source, int tag, int count, std::uint64_t request, bool waited = false) {
  proto::PendingOp irecv;
  irecv.kind = proto::PendingOp::Kind::Recv;
  irecv.function = "MPI_Irecv";
  irecv.peer = source;
  irecv.tag = tag;
  irecv.count = count;
  irecv.request = request;
  irecv.waited = waited;
  irecv.comm = kWorld;
  return irecv;
}

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

TEST_CASE("hang: a receive from itself through a reversed communicator is a dead end", "[hang]") {
  // MPI_Comm_split(..., key = size - rank) on 2 ranks: world rank 0 is rank 1
  // of "reversed" and waits for its rank 1, itself; world rank 1 finalized.
  constexpr std::uint64_t kRev = 0x84000001;
  HangInput in;
  in.worldSize = 2;
  in.ranks.push_back(rank(0, 2, 0, p2p("MPI_Recv", "source", 1, 0, kRev, "reversed")));
  proto::CommQueues rev = worldCopy(0, 2, 1, kRev, "reversed", 0x99);
  rev.state.localRank = 1;
  rev.worldRanks = {1, 0};
  in.ranks.back().comms.push_back(rev);
  in.ranks.push_back(rank(1, 2, 0, finalizeCall()));
  in.ranks.back().phase = proto::MpiPhase::Finalizing;
  HangVerdict v = analyzeHang(in);
  REQUIRE(v.deadEnds.size() == 1);
  CHECK(v.deadEnds[0] ==
        "rank 0 waits in MPI_Recv(source=1, tag=0, comm=reversed) for itself (rank 1 of reversed is world rank 0), "
        "with no send to itself pending: no other rank can send this message");
  CHECK(v.edges.empty());
  CHECK(v.suggested.contains(0));
  CHECK(renderHang(v).find("No cycle found") == std::string::npos);

  // A nonblocking send to itself pending: no dead end (the receive can match it).
  proto::PendingOp send;
  send.kind = proto::PendingOp::Kind::Send;
  send.function = "MPI_Isend";
  send.peer = 1;
  send.tag = 0;
  send.comm = kRev;
  in.ranks.front().comms.back().sends.push_back(send);
  v = analyzeHang(in);
  CHECK(v.deadEnds.empty());
}

TEST_CASE("hang: a wildcard receive whose every sender is done with MPI is a dead end naming them", "[hang]") {
  HangInput in;
  in.worldSize = 4;
  in.ranks.push_back(rank(0, 4, 0, p2p("MPI_Recv", "source", -1, 5)));
  for (int r : {1, 2}) {
    in.ranks.push_back(rank(r, 4, 0, finalizeCall()));
    in.ranks.back().phase = proto::MpiPhase::Finalizing;
  }
  in.ended[3] = "exited with code 0";
  HangVerdict v = analyzeHang(in);
  REQUIRE(v.deadEnds.size() == 1);
  CHECK(v.deadEnds[0] ==
        "rank 0 waits in MPI_Recv(source=MPI_ANY_SOURCE, tag=5, comm=MPI_COMM_WORLD), but every rank that could send "
        "it is done with MPI: ranks [1-2] in MPI_Finalize (a bystander), rank 3 exited with code 0: no message will "
        "come");
  CHECK(v.suggested.contains(0));
  CHECK(renderHang(v).find("No cycle found") == std::string::npos);

  // One possible sender still running (computing): it may still send; no dead end.
  in.ended.clear();
  in.ranks.push_back(rank(3, 4, 0, std::nullopt));
  v = analyzeHang(in);
  CHECK(v.deadEnds.empty());
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

namespace {

/// Rank 0 of two sent rank 1 `sent` messages with tag 0 by MPI_Send and went
/// to MPI_Finalize; rank 1 waits in MPI_Recv(source=0, tag=1) and has
/// received `received` messages from rank 0 with tag 0.
HangInput tagMismatchInput(std::uint64_t sent, std::uint64_t received) {
  HangInput in;
  in.worldSize = 2;
  proto::RankQueues sender = rank(0, 2, 0, finalizeCall());
  sender.phase = proto::MpiPhase::Finalizing;
  sender.messages.push_back({kWorld, 1, 0, sent, 0, "MPI_Send"});
  proto::RankQueues receiver = rank(1, 2, 0, p2p("MPI_Recv", "source", 0, 1));
  if (received > 0) receiver.messages.push_back({kWorld, 0, 0, 0, received, ""});
  in.ranks.push_back(sender);
  in.ranks.push_back(receiver);
  return in;
}

}  // namespace

TEST_CASE("hang: a message sent with another tag and never received is named beside the receive", "[hang][unreceived]") {
  SECTION("sent and not received: named, with how many") {
    const HangVerdict v = analyzeHang(tagMismatchInput(2, 0));
    REQUIRE(v.unreceived.size() == 1);
    CHECK(v.unreceived[0] ==
          "rank 0's MPI_Send(dest=1, tag=0, comm=MPI_COMM_WORLD) sent 2 messages that rank 1 has not received; "
          "rank 1 waits in MPI_Recv(source=0, tag=1, comm=MPI_COMM_WORLD): a tag mismatch?");
    CHECK(v.deadEnds.size() == 1);  // the wait itself is still the dead end it was
    const std::string text = renderHang(v);
    CHECK(text.find("Not received: rank 0's MPI_Send(dest=1, tag=0, comm=MPI_COMM_WORLD) sent 2 messages") !=
          std::string::npos);
    CHECK(hangToJson(v)["unreceived"].size() == 1);
  }
  SECTION("only the messages not yet received count") {
    const HangVerdict v = analyzeHang(tagMismatchInput(3, 2));
    REQUIRE(v.unreceived.size() == 1);
    CHECK(v.unreceived[0].find("sent 1 message that rank 1") != std::string::npos);
  }
  SECTION("every message received: nothing said") {
    CHECK(analyzeHang(tagMismatchInput(2, 2)).unreceived.empty());
  }
  SECTION("a receive with MPI_ANY_TAG would take it: nothing said") {
    HangInput in = tagMismatchInput(1, 0);
    in.ranks[1].call = p2p("MPI_Recv", "source", 0, -1);
    CHECK(analyzeHang(in).unreceived.empty());
  }
  SECTION("a pending receive of the receiver would take it: nothing said") {
    HangInput in = tagMismatchInput(1, 0);
    proto::PendingOp irecv = irecvOp(0, 0, 1, 0x2c000001);
    irecv.active = true;
    in.ranks[1].comms[0].recvs.push_back(irecv);
    CHECK(analyzeHang(in).unreceived.empty());
  }
  SECTION("a receive with an unknown sender for that tag or any tag may have taken it: nothing said") {
    for (int tag : {0, -1}) {
      HangInput in = tagMismatchInput(1, 0);
      in.ranks[1].messages.push_back({kWorld, -1, tag, 0, 1, ""});
      CHECK(analyzeHang(in).unreceived.empty());
    }
    HangInput other = tagMismatchInput(1, 0);
    other.ranks[1].messages.push_back({kWorld, -1, 5, 0, 1, ""});
    CHECK(analyzeHang(other).unreceived.size() == 1);
  }
  SECTION("either rank's counts partial: nothing said") {
    for (int r : {0, 1}) {
      HangInput in = tagMismatchInput(1, 0);
      in.ranks[static_cast<std::size_t>(r)].messagesPartial = true;
      CHECK(analyzeHang(in).unreceived.empty());
    }
  }
  SECTION("the blocking send the sender is inside is not sent yet") {
    HangInput in = tagMismatchInput(1, 0);
    in.ranks[0].call = p2p("MPI_Ssend", "dest", 1, 0);
    in.ranks[0].phase = proto::MpiPhase::Running;
    CHECK(analyzeHang(in).unreceived.empty());
    in.ranks[0].messages[0].sent = 2;
    const HangVerdict v = analyzeHang(in);
    REQUIRE(v.unreceived.size() == 1);
    CHECK(v.unreceived[0].find("sent 1 message that") != std::string::npos);
  }
  SECTION("a sender inside MPI_Sendrecv, whose send tag is not known: nothing said") {
    HangInput in = tagMismatchInput(1, 0);
    in.ranks[0].call = p2p("MPI_Sendrecv", "source", 1, 3);
    in.ranks[0].phase = proto::MpiPhase::Running;
    CHECK(analyzeHang(in).unreceived.empty());
  }
  SECTION("a receive waited in MPI_Wait is followed too") {
    HangInput in = tagMismatchInput(1, 0);
    proto::PendingOp irecv = irecvOp(0, 1, 1, 0x2c000001, true);
    irecv.active = true;
    in.ranks[1].comms[0].recvs.push_back(irecv);
    in.ranks[1].waitingOn = {irecv.request};
    in.ranks[1].call = plainCall("MPI_Wait");
    const HangVerdict v = analyzeHang(in);
    REQUIRE(v.unreceived.size() == 1);
    CHECK(v.unreceived[0].ends_with("rank 1 waits in MPI_Wait: MPI_Irecv(source=0, tag=1, count=1) request 0x2c000001 [waited]: a tag mismatch?"));
  }
}

TEST_CASE("queues: messages sent to a rank and not received are listed under its communicator", "[queues][unreceived]") {
  const HangInput in = tagMismatchInput(2, 1);
  const std::string text = renderQueues(in.ranks, {});
  CHECK(text.find("    not received: 1 message from source=0 with tag=0 (MPI_Send)\n") != std::string::npos);
  const HangInput none = tagMismatchInput(2, 2);
  CHECK(renderQueues(none.ranks, {}).find("not received") == std::string::npos);
}

namespace {

/// Four ranks; those in `blocked` wait in MPI_Waitany on one
/// MPI_Irecv(MPI_ANY_SOURCE) each (HPCC's RandomAccess); rank 1 is `rank1`.
HangInput wildcardRing(const std::set<int>& blocked, std::optional<proto::RankQueues> rank1) {
  HangInput in;
  in.worldSize = 4;
  for (int r = 0; r < 4; ++r) {
    if (r == 1 && rank1) {
      in.ranks.push_back(*rank1);
      continue;
    }
    if (!blocked.count(r)) continue;
    proto::RankQueues q = rank(r, 4, 0, plainCall("MPI_Waitany"));
    proto::PendingOp irecv = irecvOp(-1, -1, 1024, 0x2c000000u + static_cast<unsigned>(r), true);
    irecv.active = true;
    q.comms[0].recvs.push_back(irecv);
    q.waitingOn = {irecv.request};
    in.ranks.push_back(q);
  }
  return in;
}

}  // namespace

TEST_CASE("hang: wildcard waits close a deadlock only when every possible sender is stuck", "[hang][or-wait]") {
  SECTION("one possible sender held by the debugger: no deadlock, no hang of the program") {
    proto::RankQueues held = rank(1, 4, 0, plainCall("MPI_Testany"));
    held.held = "breakpoint 1 at MPI_Testany(count=1)";
    const HangVerdict v = analyzeHang(wildcardRing({0, 2, 3}, held));
    CHECK(v.cycles.empty());
    CHECK(v.onlyHeld);
    CHECK(renderHang(v).find("No hang of the program: ranks [0,2-3] wait for rank 1") != std::string::npos);
    CHECK(renderHang(v).find("Deadlock") == std::string::npos);
  }
  SECTION("one possible sender computing: no deadlock") {
    const HangVerdict v = analyzeHang(wildcardRing({0, 2, 3}, rank(1, 4, 0, std::nullopt)));
    CHECK(v.cycles.empty());
  }
  SECTION("every possible sender blocked the same way: a knot, a deadlock") {
    const HangVerdict v = analyzeHang(wildcardRing({0, 1, 2, 3}, std::nullopt));
    REQUIRE(v.cycles.size() == 1);
    CHECK(v.cycles[0].front() == 0);
  }
  SECTION("the other senders done with MPI: still a deadlock among the blocked") {
    proto::RankQueues done = rank(1, 4, 0, finalizeCall());
    done.phase = proto::MpiPhase::Finalizing;
    const HangVerdict v = analyzeHang(wildcardRing({0, 2, 3}, done));
    CHECK(v.cycles.size() == 1);
  }
  SECTION("a specific receive from a rank that may return is no deadlock either") {
    HangInput in = wildcardRing({0, 2, 3}, rank(1, 4, 0, std::nullopt));
    // Rank 0 now waits for rank 2 only, which may return (rank 1 computes).
    in.ranks[0].call = p2p("MPI_Recv", "source", 2, 0);
    in.ranks[0].comms[0].recvs.clear();
    in.ranks[0].waitingOn.clear();
    CHECK(analyzeHang(in).cycles.empty());
  }
}

namespace {

/// A pending MPI_Isend on MPI_COMM_WORLD.
proto::PendingOp isendOp(int dest, int tag, std::uint64_t request) {
  proto::PendingOp op;
  op.kind = proto::PendingOp::Kind::Send;
  op.function = "MPI_Isend";
  op.peer = dest;
  op.tag = tag;
  op.count = 1;
  op.request = request;
  op.comm = kWorld;
  op.active = true;
  return op;
}

}  // namespace

TEST_CASE("hang: a wait whose other half is already posted is no deadlock", "[hang][or-wait]") {
  SECTION("every rank tests a wildcard receive, and each has a send pending to another (HPCC RandomAccess)") {
    HangInput in = wildcardRing({0, 1, 2, 3}, std::nullopt);
    for (auto& q : in.ranks) {
      q.call = plainCall("MPI_Testany");
      q.comms[0].sends.push_back(isendOp((q.worldRank + 1) % 4, 2, 0x3c000000u + static_cast<unsigned>(q.worldRank)));
    }
    const HangVerdict v = analyzeHang(in);
    CHECK(v.cycles.empty());
    CHECK(renderHang(v).find("Deadlock") == std::string::npos);
  }
  SECTION("the same without the pending sends is a deadlock") {
    CHECK(analyzeHang(wildcardRing({0, 1, 2, 3}, std::nullopt)).cycles.size() == 1);
  }
  SECTION("a send with another tag than the receive asks for does not count") {
    HangInput in = tagMismatchInput(1, 0);  // rank 1 waits for tag 1 from rank 0
    in.ranks[0].call = p2p("MPI_Recv", "source", 1, 5);
    in.ranks[0].phase = proto::MpiPhase::Running;
    in.ranks[0].comms[0].sends.push_back(isendOp(1, 0, 0x3c000001));
    CHECK(analyzeHang(in).cycles.size() == 1);
    in.ranks[0].comms[0].sends.back().tag = 1;  // now it matches rank 1's receive
    CHECK(analyzeHang(in).cycles.empty());
  }
  SECTION("blocking sends to each other with matching receives posted (a halo exchange) are no cycle") {
    HangInput in;
    in.worldSize = 2;
    for (int r : {0, 1}) {
      proto::RankQueues q = rank(r, 2, 0, p2p("MPI_Send", "dest", 1 - r, 7));
      proto::PendingOp irecv = irecvOp(1 - r, 7, 1, 0x2c000000u + static_cast<unsigned>(r));
      irecv.active = true;
      q.comms[0].recvs.push_back(irecv);
      in.ranks.push_back(q);
    }
    CHECK(analyzeHang(in).cycles.empty());
    for (auto& q : in.ranks) q.comms[0].recvs.clear();  // without them: the send-send cycle it is
    CHECK(analyzeHang(in).cycles.size() == 1);
  }
}

TEST_CASE("hang: a receive on a communicator the runtime did not register is not guessed as MPI_COMM_WORLD",
          "[hang]") {
  // Issue 23: ranks 0 and 1 each wait for "rank 1" / "rank 0" of a
  // communicator their registries do not hold (made before the runtime
  // attached, or by a call it did not see). Reading the peers as world ranks
  // would invent the cycle 0 -> 1 -> 0; the verdict names the waits instead.
  HangInput in;
  in.worldSize = 2;
  in.ranks.push_back(rank(0, 2, 0, p2p("MPI_Recv", "source", 1, 0, 0x84000009, "comm 0x84000009")));
  in.ranks.push_back(rank(1, 2, 0, p2p("MPI_Recv", "source", 0, 0, 0x84000009, "comm 0x84000009")));
  const HangVerdict v = analyzeHang(in);
  CHECK(v.cycles.empty());
  CHECK_FALSE(hasEdge(v, 0, 1));
  CHECK(v.unfollowed.size() == 2);
  // Read without any MPI state (no registry at all: stacks only), a peer is
  // still taken as a world rank, as before.
  HangInput bare = in;
  for (auto& q : bare.ranks) q.comms.clear();
  const HangVerdict b = analyzeHang(bare);
  REQUIRE(b.cycles.size() == 1);
  CHECK(b.cycles[0] == std::vector<int>{0, 1});
}
