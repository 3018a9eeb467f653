// The verdict on collectives beyond one intracommunicator's blocking calls
// (issue 23): nonblocking collective MPI-IO requests, which count in their
// file's communicator's collective sequence, and collectives on
// intercommunicators (MPI 4.0, 6.2.2).
#include <catch2/catch.hpp>

#include <set>

#include "HangInputBuilders.hpp"
#include "ccs/proto/CollectiveRoot.hpp"
#include "debugger/core/CollectiveReport.hpp"
#include "debugger/core/HangReport.hpp"
#include "debugger/core/StatusReport.hpp"

using namespace mpidbg::core;
namespace proto = mpidbg::ccs::proto;

using namespace hang_builders;

namespace hang_collective_tests {

/// A pending MPI_File_iwrite_all of 4 elements on MPI_COMM_WORLD at its
/// collective #`seq`, as the runtime records one: a collective in no class
/// (no call number of a class), waited on.
proto::PendingOp iwriteAll(std::uint64_t seq, std::uint64_t request) {
  proto::PendingOp op;
  op.kind = proto::PendingOp::Kind::Collective;
  op.function = "MPI_File_iwrite_all";
  op.collClass = -1;
  op.collCall = 0;
  op.collSeq = seq;
  op.count = 4;
  op.request = request;
  op.waited = true;
  op.comm = kWorld;
  return op;
}

/// examples/hangs/io_iwait on 4 ranks: ranks 0-2 wait in MPI_Wait on their
/// MPI_File_iwrite_all (collective #3, after MPI_Bcast and MPI_File_open),
/// rank 3 in MPI_Recv from rank 0, or in `rank3` when given (at its
/// collective #3 with `rank3Third`).
HangInput ioIwait(std::optional<proto::MpiCall> rank3 = {}, const std::string& rank3Third = {}) {
  HangInput in;
  in.worldSize = 4;
  for (int r : {0, 1, 2}) {
    proto::RankQueues q = rank(r, 4, 3, plainCall("MPI_Wait"),
                               {rec(1, "MPI_Bcast", 0), rec(2, "MPI_File_open"), rec(3, "MPI_File_iwrite_all")});
    q.comms[0].collectives.push_back(iwriteAll(3, 0x2c000010));  // handle values are alike across processes
    q.waitingOn = {0x2c000010};
    in.ranks.push_back(q);
  }
  std::vector<proto::CollRecord> history = {rec(1, "MPI_Bcast", 0), rec(2, "MPI_File_open")};
  if (!rank3Third.empty()) history.push_back(rec(3, rank3Third));
  in.ranks.push_back(
      rank(3, 4, rank3Third.empty() ? 2 : 3, rank3 ? *rank3 : p2p("MPI_Recv", "source", 0, 9), history));
  return in;
}

}  // namespace hang_collective_tests

using namespace hang_collective_tests;

TEST_CASE("hang: MPI_Wait on a nonblocking collective MPI-IO request waits for the file's communicator", "[hang]") {
  const HangInput in = ioIwait();
  const HangVerdict v = analyzeHang(in);
  for (int r : {0, 1, 2}) {
    CAPTURE(r);
    CHECK(hasEdge(v, r, 3));  // rank 3 has not issued collective #3
    for (int o : {0, 1, 2}) CHECK_FALSE(hasEdge(v, r, o));  // they have, the same call
  }
  CHECK(hasEdge(v, 3, 0));
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0] == std::vector<int>{0, 3});
  CHECK(v.unfollowed.empty());
  CHECK(describeOp(iwriteAll(3, 0x2c000010)) ==
        "MPI_File_iwrite_all(count=4) collective #3 request 0x2c000010 [waited]");
  const std::string text = renderHang(v);
  CHECK_THAT(text, Catch::Contains("[0-2] -> [3]  in MPI_Wait: MPI_File_iwrite_all(count=4) collective #3 request"));
  CHECK_THAT(text, Catch::Contains("Deadlock: cycle 0 -> 3 -> 0"));
  CHECK_THAT(text, !Catch::Contains("its requests are not known"));
}

TEST_CASE("hang: a nonblocking MPI-IO request matched by the same call is no wait; another call is", "[hang]") {
  // Rank 3 issued its own MPI_File_iwrite_all (#3) and waits on it too: none
  // waits for another through the file's collective.
  HangInput same = ioIwait(plainCall("MPI_Wait"), "MPI_File_iwrite_all");
  same.ranks[3].comms[0].collectives.push_back(iwriteAll(3, 0x2c000013));
  same.ranks[3].waitingOn = {0x2c000013};
  const HangVerdict v = analyzeHang(same);
  for (int r : {0, 1, 2, 3})
    for (int o : {0, 1, 2, 3}) CHECK_FALSE(hasEdge(v, r, o));
  // Rank 3's collective #3 is MPI_Barrier instead: a mismatch, waited for.
  const HangVerdict w = analyzeHang(ioIwait(collective("MPI_Barrier", 1), "MPI_Barrier"));
  CHECK(hasEdge(w, 0, 3));
  CHECK(hasEdge(w, 3, 0));
  REQUIRE_FALSE(w.mismatches.empty());
  CHECK_THAT(w.mismatches[0], Catch::Contains("collective #3 differs"));
  CHECK_THAT(w.mismatches[0], Catch::Contains("MPI_File_iwrite_all"));
}

TEST_CASE("collectives report: a nonblocking collective MPI-IO request by name and position", "[core][report]") {
  const HangInput in = ioIwait();
  const std::string text = renderCollectives({}, commStatesOf(in), std::chrono::milliseconds(1000),
                                             pendingCollectivesOf(in));
  CHECK(text ==
        "Communicator MPI_COMM_WORLD (handle 0x44000000, size 4):\n"
        "  Ranks [0-2] have not completed MPI_File_iwrite_all (collective #3 on the communicator).\n");
}

namespace hang_collective_tests {

/// The intercommunicator of examples/hangs/inter_cycle (4 ranks): the even
/// world ranks are one group, the odd ones the other.
constexpr std::uint64_t kInter = 0x84000004;

/// World rank `r` holding the intercommunicator (handle `handle`) at
/// `collSeq`, inside `call` (nullopt: computing), `history` on it.
proto::RankQueues interRank(int r, std::uint64_t collSeq, std::optional<proto::MpiCall> call,
                            std::vector<proto::CollRecord> history = {}, std::uint64_t handle = kInter) {
  proto::RankQueues q = rank(r, 4, 0, std::move(call), std::move(history));
  q.comms.push_back(interComm(r / 2, r % 2 == 0 ? std::vector<int>{1, 3} : std::vector<int>{0, 2}, collSeq, handle));
  return q;
}

/// A rank inside call 1 of MPI_Bcast on the intercommunicator with `root`
/// (a rank of the remote group, proto::kRootIsMe or proto::kRootProcNull).
proto::MpiCall interBcast(int root, std::uint64_t handle = kInter) {
  proto::MpiCall c = collective("MPI_Bcast", 1, -1, handle, "inter");
  c.peerRole = "root";
  c.peer = root;
  return c;
}

}  // namespace hang_collective_tests

TEST_CASE("hang: a rooted collective on an intercommunicator waits as MPI 4.0 says", "[hang][inter]") {
  // MPI_Bcast from world rank 0 (the even group's local rank 0) to the odd
  // group. Rank 0, the root, is not there: it waits in MPI_Recv for rank 1.
  // The odd ranks wait for the root alone; rank 2 (MPI_PROC_NULL) for
  // nobody.
  HangInput in;
  in.worldSize = 4;
  in.ranks.push_back(interRank(0, 0, p2p("MPI_Recv", "source", 1, 5)));
  in.ranks.push_back(interRank(1, 1, interBcast(0), {rec(1, "MPI_Bcast", 0, kInter)}));
  in.ranks.push_back(
      interRank(2, 1, interBcast(proto::kRootProcNull), {rec(1, "MPI_Bcast", proto::kRootProcNull, kInter)}));
  in.ranks.push_back(interRank(3, 1, interBcast(0), {rec(1, "MPI_Bcast", 0, kInter)}));
  HangVerdict v = analyzeHang(in);
  CHECK(hasEdge(v, 1, 0));
  CHECK(hasEdge(v, 3, 0));
  CHECK_FALSE(hasEdge(v, 1, 2));  // not the root
  CHECK_FALSE(hasEdge(v, 3, 2));
  for (int o : {0, 1, 3}) CHECK_FALSE(hasEdge(v, 2, o));
  CHECK(hasEdge(v, 0, 1));
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0] == std::vector<int>{0, 1});
  CHECK(describeCall(interBcast(proto::kRootProcNull)).find("root=MPI_PROC_NULL") != std::string::npos);

  // The root is there (MPI_ROOT) and rank 3 is not: the root waits for rank
  // 3 only (rank 1 has made the same call), rank 1 for nobody (its root is
  // there).
  in.ranks[0] = interRank(0, 1, interBcast(proto::kRootIsMe), {rec(1, "MPI_Bcast", proto::kRootIsMe, kInter)});
  in.ranks[3] = interRank(3, 0, p2p("MPI_Recv", "source", 0, 5));
  v = analyzeHang(in);
  CHECK(hasEdge(v, 0, 3));
  CHECK_FALSE(hasEdge(v, 0, 1));
  for (int o : {0, 2, 3}) CHECK_FALSE(hasEdge(v, 1, o));
  CHECK(hasEdge(v, 3, 0));
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0] == std::vector<int>{0, 3});
  CHECK(describeCall(interBcast(proto::kRootIsMe)).find("root=MPI_ROOT") != std::string::npos);
}

TEST_CASE("hang: an intercommunicator's two groups in one collective wait for nobody", "[hang][inter]") {
  // Every rank in its first MPI_Barrier on the intercommunicator; the odd
  // group holds it by another handle (Open MPI's handles are addresses): its
  // two sides are told by their members, not by a shared identity.
  HangInput in;
  in.worldSize = 4;
  for (int r = 0; r < 4; ++r) {
    const std::uint64_t handle = r % 2 == 0 ? kInter : kInter + 0x100;
    in.ranks.push_back(interRank(r, 1, collective("MPI_Barrier", 1, -1, handle, "inter"),
                                 {rec(1, "MPI_Barrier", -1, handle)}, handle));
  }
  HangVerdict v = analyzeHang(in);
  CHECK(v.edges.empty());
  CHECK(v.cycles.empty());
  // Rank 3 has not reached it: the even group waits for rank 3 only.
  in.ranks[3] = interRank(3, 0, p2p("MPI_Recv", "source", 0, 5), {}, kInter + 0x100);
  v = analyzeHang(in);
  CHECK(hasEdge(v, 0, 3));
  CHECK(hasEdge(v, 2, 3));
  CHECK_FALSE(hasEdge(v, 0, 1));
  CHECK_FALSE(hasEdge(v, 1, 0));  // the odd group's rank 1: the even group is there
  CHECK_FALSE(hasEdge(v, 1, 2));
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0] == std::vector<int>{0, 3});
}

TEST_CASE("collectives report: an intercommunicator's two groups are one communicator", "[core][report][inter]") {
  // Ranks 1-3 in MPI_Bcast on the intercommunicator (call 1), rank 0 (the
  // even group's root) not yet: one communicator of size 4, all members
  // reported, whichever group they are in.
  HangInput in;
  in.worldSize = 4;
  in.ranks.push_back(interRank(0, 0, p2p("MPI_Recv", "source", 1, 5)));
  for (int r : {1, 2, 3}) {
    in.ranks.push_back(interRank(r, 1, interBcast(r == 2 ? proto::kRootProcNull : 0)));
    auto& state = in.ranks.back().comms.back().state;
    state.counts[static_cast<std::size_t>(proto::CollClass::Bcast)] = 1;
    state.active[static_cast<std::size_t>(proto::CollClass::Bcast)] = true;
  }
  const auto states = commStatesOf(in);
  for (const auto& [rank, list] : states) {
    CAPTURE(rank);
    REQUIRE(list.size() == 2);
    CHECK(list[1].size == 4);
    CHECK(list[1].rootWorldRank == 0);
  }
  const std::string text = renderCollectives({}, states, std::chrono::milliseconds(1000), pendingCollectivesOf(in));
  CHECK_THAT(text, Catch::StartsWith("Communicator inter (handle 0x84000004, size 4):\n"
                                     "  Ranks [1-3] are in call 1 to MPI_Bcast.\n"
                                     "  Rank 0 has made 0 calls to MPI_Bcast and is in an unknown state.\n"));
  CHECK(text.find("Communicator inter") == text.rfind("Communicator inter"));
  CHECK_THAT(text, !Catch::Contains("did not report"));
}

TEST_CASE("collectives report: an intercommunicator is one whatever handles its members hold", "[core][report][inter]") {
  // MPICH (examples/hangs/inter_bcast): ranks 1 and 3, one group, hold
  // 0x84000002 and 0x84000001 for it, and rank 2 of the other group holds
  // 0x84000001 too. One communicator of 4, every member reported.
  HangInput in;
  in.worldSize = 4;
  const std::uint64_t handles[] = {0x84000002, 0x84000002, 0x84000001, 0x84000001};
  in.ranks.push_back(interRank(0, 0, p2p("MPI_Recv", "source", 1, 5), {}, handles[0]));
  for (int r : {1, 2, 3}) {
    const auto h = handles[static_cast<std::size_t>(r)];
    in.ranks.push_back(interRank(r, 1, interBcast(r == 2 ? proto::kRootProcNull : 0, h), {}, h));
    auto& state = in.ranks.back().comms.back().state;
    state.counts[static_cast<std::size_t>(proto::CollClass::Bcast)] = 1;
    state.active[static_cast<std::size_t>(proto::CollClass::Bcast)] = true;
  }
  const auto states = commStatesOf(in);
  std::set<std::uint64_t> uids;
  for (const auto& [rank, list] : states) {
    REQUIRE(list.size() == 2);
    CHECK(list[1].size == 4);
    uids.insert(list[1].uid);
  }
  CHECK(uids.size() == 1);
  CHECK(*uids.begin() != 0);
  const std::string text = renderCollectives({}, states, std::chrono::milliseconds(1000), pendingCollectivesOf(in));
  CAPTURE(text);
  CHECK(text.find("Ranks [1-3] are in call 1 to MPI_Bcast.") != std::string::npos);
  CHECK(text.find("Rank 0 has made 0 calls to MPI_Bcast") != std::string::npos);
  CHECK_THAT(text, !Catch::Contains("did not report"));

  // A second intercommunicator between the same groups: the groups cannot
  // tell the two apart, so each handle stays its own communicator.
  for (auto& q : in.ranks) q.comms.push_back(interComm(q.worldRank / 2, q.comms.back().worldRanks, 0, 0x84000007));
  for (const auto& [rank, list] : commStatesOf(in)) {
    REQUIRE(list.size() == 3);
    CHECK(list[1].uid == 0);
    CHECK(list[2].uid == 0);
  }
}

namespace hang_collective_tests {

/// World rank `r` (of 4) with its half of MPI_COMM_WORLD (the even or the
/// odd ranks, handle 0x84000010 or 0x84000011) inside `call`.
proto::RankQueues halfRank(int r, std::optional<proto::MpiCall> call) {
  proto::RankQueues q = rank(r, 4, 0, std::move(call));
  proto::CommQueues half = worldCopy(r / 2, 2, 1, r % 2 == 0 ? 0x84000010 : 0x84000011, "half");
  half.state.rootWorldRank = r % 2;
  half.worldRanks = {r % 2, r % 2 + 2};
  q.comms.push_back(half);
  return q;
}

/// Inside MPI_Intercomm_create as the runtime publishes it: a member names
/// its local leader (local rank 0 of its half) as the root; a leader the
/// remote leader as the dest, a rank of MPI_COMM_WORLD.
proto::MpiCall intercommCreate(int r) {
  proto::MpiCall c;
  c.function = "MPI_Intercomm_create";
  const bool leader = r < 2;
  c.peerRole = leader ? "dest" : "root";
  c.peer = leader ? 1 - r : 0;
  c.comm = leader ? kWorld : (r % 2 == 0 ? 0x84000010 : 0x84000011);
  c.commName = leader ? "MPI_COMM_WORLD" : "half";
  return c;
}

}  // namespace hang_collective_tests

TEST_CASE("hang: MPI_Intercomm_create waits for the local leader, a leader for the remote one", "[hang][inter]") {
  // World ranks 0 and 1 lead the even and the odd half. Rank 1 is not there
  // (in MPI_Recv for rank 0): rank 0 waits for it, rank 2 for rank 0 (whose
  // remote leader is missing), rank 3 for rank 1.
  HangInput in;
  in.worldSize = 4;
  for (int r = 0; r < 4; ++r)
    in.ranks.push_back(halfRank(r, r == 1 ? p2p("MPI_Recv", "source", 0, 5) : intercommCreate(r)));
  HangVerdict v = analyzeHang(in);
  CHECK(hasEdge(v, 0, 1));
  CHECK(hasEdge(v, 2, 0));
  CHECK(hasEdge(v, 3, 1));
  CHECK(hasEdge(v, 1, 0));
  CHECK_FALSE(hasEdge(v, 0, 2));
  CHECK_FALSE(hasEdge(v, 2, 1));
  CHECK_FALSE(hasEdge(v, 3, 0));
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0] == std::vector<int>{0, 1});
  // Everyone inside: both leaders are there, nobody waits.
  in.ranks[1] = halfRank(1, intercommCreate(1));
  v = analyzeHang(in);
  CHECK(v.edges.empty());
}
