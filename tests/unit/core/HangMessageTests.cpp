// The hang verdict on messages: dead ends, messages sent and never received,
// wildcard (OR) waits, waits whose other half is posted, unregistered communicators.
#include <catch2/catch.hpp>

#include "HangInputBuilders.hpp"
#include "debugger/core/HangReport.hpp"

using namespace mpidbg::core;
using namespace hang_builders;

namespace hang_message_tests {

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

}  // namespace hang_message_tests
