#include <catch2/catch.hpp>

#include "debugger/core/CollectiveReport.hpp"
#include "debugger/core/Grouping.hpp"
#include "debugger/core/StatusReport.hpp"

using namespace mpidbg::core;
namespace proto = mpidbg::ccs::proto;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t kWorld = 0x44000000;

proto::MpiCall allreduce(std::uint64_t call, std::uint64_t elapsedUs) {
  proto::MpiCall c;
  c.function = "MPI_Allreduce";
  c.comm = kWorld;
  c.commName = "MPI_COMM_WORLD";
  c.collCall = call;
  c.elapsedUs = elapsedUs;
  return c;
}

proto::MpiCall recvFrom(int source, int tag, std::uint64_t elapsedUs) {
  proto::MpiCall c;
  c.function = "MPI_Recv";
  c.peerRole = "source";
  c.peer = source;
  c.hasTag = true;
  c.tag = tag;
  c.comm = kWorld;
  c.commName = "MPI_COMM_WORLD";
  c.elapsedUs = elapsedUs;
  return c;
}

RankView inMpi(int rank, proto::MpiCall call) {
  RankView v;
  v.info.rank = rank;
  proto::RankStatus status;
  status.rank = rank;
  status.size = 4;
  status.state = proto::RankState::InMpi;
  status.mpiCalls = 10;
  status.call = std::move(call);
  v.status = std::move(status);
  return v;
}

proto::CommState world(int rank, std::uint64_t allreduces, bool inAllreduce) {
  proto::CommState s;
  s.handle = kWorld;
  s.rootWorldRank = 0;
  s.size = 4;
  s.localRank = rank;
  s.name = "MPI_COMM_WORLD";
  const auto c = static_cast<std::size_t>(proto::CollClass::Allreduce);
  s.counts[c] = allreduces;
  s.active[c] = inAllreduce;
  return s;
}

}  // namespace

TEST_CASE("describeCall spells calls as users read them", "[core][report]") {
  CHECK(describeCall(allreduce(1, 0)) == "MPI_Allreduce (call 1 on MPI_COMM_WORLD)");
  CHECK(describeCall(recvFrom(0, 99, 0)) == "MPI_Recv(source=0, tag=99, comm=MPI_COMM_WORLD)");
  CHECK(describeCall(recvFrom(-1, -1, 0)) ==
        "MPI_Recv(source=MPI_ANY_SOURCE, tag=MPI_ANY_TAG, comm=MPI_COMM_WORLD)");
  proto::MpiCall bcast = allreduce(3, 0);
  bcast.function = "MPI_Bcast";
  bcast.peerRole = "root";
  bcast.peer = 2;
  CHECK(describeCall(bcast) == "MPI_Bcast(root=2) (call 3 on MPI_COMM_WORLD)");
  proto::MpiCall wait;
  wait.function = "MPI_Wait";
  CHECK(describeCall(wait) == "MPI_Wait");
}

TEST_CASE("a window call names its window; a fence is a collective on it", "[core][report]") {
  proto::MpiCall fence = allreduce(2, 0);
  fence.function = "MPI_Win_fence";
  fence.commName = "win 0xa0000000";
  CHECK(describeCall(fence) == "MPI_Win_fence (call 2 on win 0xa0000000)");  // no "counted with MPI_Barrier"
  proto::MpiCall unlock;
  unlock.function = "MPI_Win_unlock";
  unlock.commName = "win 0xa0000000";
  CHECK(describeCall(unlock) == "MPI_Win_unlock(win 0xa0000000)");
  unlock.commName.clear();  // a window the runtime did not see being made
  CHECK(describeCall(unlock) == "MPI_Win_unlock");
}

TEST_CASE("a collective counted with another says so", "[core][report]") {
  proto::MpiCall exscan = allreduce(2, 0);
  exscan.function = "MPI_Exscan";
  CHECK(describeCall(exscan) == "MPI_Exscan (call 2 on MPI_COMM_WORLD, counted with MPI_Scan)");
  CHECK(describeCall(allreduce(2, 0)) == "MPI_Allreduce (call 2 on MPI_COMM_WORLD)");
  CHECK(countedWith("MPI_Ireduce_scatter_block") == "MPI_Reduce_scatter");
  CHECK(countedWith("MPI_Scan").empty());
  CHECK(countedWith("MPI_Recv").empty());
  CHECK(countedWith("no such function").empty());
}

TEST_CASE("status groups ranks with identical state", "[core][report]") {
  std::vector<RankView> views = {inMpi(0, allreduce(1, 5'000'000)), inMpi(1, allreduce(1, 5'000'000)),
                                 inMpi(2, recvFrom(0, 99, 5'000'000)), inMpi(3, allreduce(1, 5'000'000))};
  CHECK(renderStatus(views, 1000ms) ==
        "[0-1,3] blocked in MPI_Allreduce (call 1 on MPI_COMM_WORLD)\n"
        "[2] blocked in MPI_Recv(source=0, tag=99, comm=MPI_COMM_WORLD)\n");
  // Below the threshold a rank is only "in" the call, and not settled.
  views[2].status->call->elapsedUs = 10;
  CHECK(describeRankState(views[2], 1000ms) == "in MPI_Recv(source=0, tag=99, comm=MPI_COMM_WORLD)");
  CHECK_FALSE(isSettled(views[2], 1000ms));
  CHECK(isSettled(views[0], 1000ms));
}

TEST_CASE("status: a rank polling MPI_Test long enough waits, a short or stale streak runs", "[core][report]") {
  proto::MpiCall test;
  test.function = "MPI_Test";
  test.polling = true;
  test.elapsedUs = 4'250'000;
  test.sinceLastUs = 900;
  // Between two tests: the runtime says running, the streak says waiting.
  RankView between = inMpi(0, test);
  between.status->state = proto::RankState::Running;
  CHECK(describeRankState(between, 1000ms) == "polls MPI_Test for 4.2 s");
  CHECK(isSettled(between, 1000ms));
  CHECK(untilSettled({between}, 1000ms) == 0ms);
  // Inside the next test of the streak: the same.
  test.sinceLastUs = 0;
  CHECK(describeRankState(inMpi(1, test), 1000ms) == "polls MPI_Test for 4.2 s");
  // The streak is younger than --blocked-after: still running.
  between.status->call->elapsedUs = 400'000;
  CHECK(describeRankState(between, 1000ms) == "running");
  CHECK_FALSE(isSettled(between, 1000ms));
  CHECK(untilSettled({between}, 1000ms) == 600ms);
  // The rank left the streak to compute for longer than --blocked-after.
  between.status->call->elapsedUs = 9'000'000;
  between.status->call->sinceLastUs = 2'000'000;
  CHECK(describeRankState(between, 1000ms) == "running");
  CHECK_FALSE(isSettled(between, 1000ms));
}

TEST_CASE("status names ended, gdb-held and silent ranks", "[core][report]") {
  RankView crashed;
  crashed.info.rank = 1;
  crashed.info.life = RankLife::Signaled;
  crashed.info.signal = 11;
  RankView held;
  held.info.rank = 2;
  held.info.heldByGdb = true;
  RankView silent;
  silent.info.rank = 3;
  silent.queryError = "timed out";
  RankView exited;
  exited.info.rank = 0;
  exited.info.life = RankLife::Exited;
  CHECK(renderStatus({exited, crashed, held, silent}, 1000ms) ==
        "[0] exited with code 0\n"
        "[1] exited with signal 11 (Segmentation fault)\n"
        "[2] stopped by gdb\n"
        "[3] not responding (timed out)\n");
  CHECK(isSettled(crashed, 1000ms));
  CHECK(isSettled(held, 1000ms));
  CHECK_FALSE(isSettled(silent, 1000ms));
  // The call a held rank is in, read from its memory, and where it made it.
  mpidbg::ccs::proto::MpiCall recv;
  recv.function = "MPI_Recv";
  recv.peerRole = "source";
  recv.peer = 0;
  recv.tag = 42;
  recv.hasTag = true;
  recv.commName = "MPI_COMM_WORLD";
  held.heldCall = recv;
  CHECK(statusLine(held, 1000ms, {{2, "ring.c:9 in main"}}) ==
        "stopped by gdb in MPI_Recv(source=0, tag=42, comm=MPI_COMM_WORLD) at ring.c:9 in main");
}

TEST_CASE("untilSettled: when the ranks could first all count as settled", "[core][report]") {
  // Two ranks 300 ms and 900 ms into their calls: the job cannot settle
  // before the younger call is 1000 ms old, 700 ms from now.
  std::vector<RankView> views = {inMpi(0, allreduce(1, 300'000)), inMpi(1, recvFrom(0, 99, 900'000))};
  CHECK(untilSettled(views, 1000ms) == 700ms);
  // A rank computing (not in MPI) must still enter a call and stay a whole
  // blockedAfter.
  RankView computing = inMpi(2, allreduce(1, 0));
  computing.status->state = proto::RankState::Running;
  computing.status->call.reset();
  views.push_back(computing);
  CHECK(untilSettled(views, 1000ms) == 1000ms);
  // Settled ranks (blocked, frozen, ended) need nothing; all settled: zero.
  std::vector<RankView> settled = {inMpi(0, allreduce(1, 5'000'000))};
  RankView frozen = inMpi(1, allreduce(1, 0));
  frozen.status->state = proto::RankState::Frozen;
  settled.push_back(frozen);
  RankView exited;
  exited.info.rank = 2;
  exited.info.life = RankLife::Exited;
  settled.push_back(exited);
  CHECK(untilSettled(settled, 1000ms) == 0ms);
  settled.push_back(inMpi(3, recvFrom(1, 0, 1'750'000)));
  CHECK(untilSettled(settled, 2000ms) == 250ms);
  // A rank that did not answer is unknown: look again soon.
  RankView silent;
  silent.info.rank = 4;
  silent.queryError = "timed out";
  CHECK(untilSettled({inMpi(0, allreduce(1, 300'000)), silent}, 1000ms) == 700ms);
  CHECK(untilSettled({silent}, 1000ms) == 0ms);
}

TEST_CASE("collectives report names the stuck call and the outlier", "[core][report]") {
  std::vector<RankView> views = {inMpi(0, allreduce(1, 5'000'000)), inMpi(1, allreduce(1, 5'000'000)),
                                 inMpi(2, recvFrom(0, 99, 5'000'000)), inMpi(3, allreduce(1, 5'000'000))};
  std::map<int, std::vector<proto::CommState>> states;
  for (int r = 0; r < 4; ++r) {
    proto::CommState self = world(r, 0, false);
    self.handle = 0x44000001;
    self.size = 1;
    self.rootWorldRank = r;
    self.name = "MPI_COMM_SELF";
    states[r] = {world(r, r == 2 ? 0 : 1, r != 2), self};
  }
  CHECK(renderCollectives(views, states, 1000ms) ==
        "Communicator MPI_COMM_WORLD (handle 0x44000000, size 4):\n"
        "  Ranks [0-1,3] are in call 1 to MPI_Allreduce.\n"
        "  Rank 2 has made 0 calls to MPI_Allreduce and is blocked in MPI_Recv(source=0, tag=99, "
        "comm=MPI_COMM_WORLD).\n");
}

TEST_CASE("collectives report speaks of several outliers in the plural", "[core][report]") {
  // Rank 0 is in MPI_Allreduce; ranks 1-2 made no call to it and sit in MPI_Recv.
  std::vector<RankView> views = {inMpi(0, allreduce(1, 5'000'000)), inMpi(1, recvFrom(0, 99, 5'000'000)),
                                 inMpi(2, recvFrom(0, 99, 5'000'000))};
  std::map<int, std::vector<proto::CommState>> states;
  for (int r = 0; r < 3; ++r) states[r] = {world(r, r == 0 ? 1 : 0, r == 0)};
  for (auto& [r, list] : states) list.front().size = 3;
  const std::string report = renderCollectives(views, states, 1000ms);
  CHECK_THAT(report, Catch::Contains("  Rank 0 is in call 1 to MPI_Allreduce.\n"));
  CHECK_THAT(report, Catch::Contains("  Ranks [1-2] have made 0 calls to MPI_Allreduce and are blocked in MPI_Recv("));
}

TEST_CASE("collectives report splits ranks by call number and notes silent members", "[core][report]") {
  std::vector<RankView> views = {inMpi(0, allreduce(2, 5'000'000)), inMpi(1, allreduce(1, 5'000'000))};
  RankView held;
  held.info.rank = 2;
  held.info.heldByGdb = true;
  views.push_back(held);
  std::map<int, std::vector<proto::CommState>> states;
  states[0] = {world(0, 2, true)};
  states[1] = {world(1, 1, true)};
  auto s = world(0, 0, false);
  (void)s;
  const std::string report = renderCollectives(views, states, 1000ms);
  CHECK_THAT(report, Catch::Contains("  Rank 0 is in call 2 to MPI_Allreduce.\n"));
  CHECK_THAT(report, Catch::Contains("  Rank 1 is in call 1 to MPI_Allreduce.\n"));
  CHECK_THAT(report, Catch::Contains("  2 of 4 members did not report (ranks [2-3]).\n"));
}

TEST_CASE("no collective in progress is said plainly", "[core][report]") {
  std::map<int, std::vector<proto::CommState>> states;
  states[0] = {world(0, 3, false)};
  states[1] = {world(1, 3, false)};
  CHECK(renderCollectives({}, states, 1000ms) == "No collective is in progress on any communicator.\n");
  CHECK(renderCollectives({}, {}, 1000ms) ==
        "No collective is in progress on any communicator (no rank answered).\n");
}

TEST_CASE("renderGroups prints one line per group, multi-line texts under a header", "[core][report]") {
  std::map<int, std::string> texts = {{0, "a"}, {1, "a"}, {2, "b\nc\n"}, {3, "a"}};
  CHECK(renderGroups(groupByText(texts)) == "[0-1,3] a\n[2]:\n  b\n  c\n");
}

TEST_CASE("collectives report names nonblocking collectives apart, by position", "[core][report]") {
  // Issue 23: rank 0 waits on its second MPI_Iallreduce (collective #2),
  // rank 1 on its first; the runtime counts both in MPI_Allreduce's class.
  // Rank 2 is in a blocking MPI_Allreduce (its second collective), rank 3 in
  // MPI_Wait on an MPI_Ibarrier.
  proto::MpiCall wait;
  wait.function = "MPI_Wait";
  wait.elapsedUs = 5'000'000;
  std::vector<RankView> views = {inMpi(0, wait), inMpi(1, wait), inMpi(2, allreduce(2, 5'000'000)), inMpi(3, wait)};
  std::map<int, std::vector<proto::CommState>> states;
  for (int r = 0; r < 4; ++r) states[r] = {world(r, r == 0 || r == 2 ? 2 : 1, r != 3)};
  auto op = [](const std::string& fn, proto::CollClass c, std::uint64_t seq) {
    proto::PendingOp o;
    o.kind = proto::PendingOp::Kind::Collective;
    o.function = fn;
    o.collClass = static_cast<std::int32_t>(c);
    o.collSeq = seq;
    o.comm = kWorld;
    return o;
  };
  const proto::CommIdentity id = proto::identityOf(states[0].front());
  PendingCollectives pending;
  pending[0][id] = {op("MPI_Iallreduce", proto::CollClass::Allreduce, 2)};
  pending[1][id] = {op("MPI_Iallreduce", proto::CollClass::Allreduce, 1)};
  pending[3][id] = {op("MPI_Ibarrier", proto::CollClass::Barrier, 2)};
  CHECK(renderCollectives(views, states, 1000ms, pending) ==
        "Communicator MPI_COMM_WORLD (handle 0x44000000, size 4):\n"
        "  Rank 2 is in call 2 to MPI_Allreduce.\n"
        "  Rank 0 has made 2 calls to MPI_Allreduce and is blocked in MPI_Wait.\n"
        "  Ranks [1,3] have made 1 call to MPI_Allreduce and are blocked in MPI_Wait.\n"
        "  Rank 1 has not completed MPI_Iallreduce (collective #1 on the communicator).\n"
        "  Rank 0 has not completed MPI_Iallreduce (collective #2 on the communicator).\n"
        "  Rank 3 has not completed MPI_Ibarrier (collective #2 on the communicator).\n");
  const auto j = collectivesToJson(views, states, 1000ms, pending);
  const auto& nb = j["communicators"][0]["nonblocking"];
  REQUIRE(nb.size() == 3);
  CHECK(nb[0]["collective"] == "MPI_Iallreduce");
  CHECK(nb[0]["seq"] == 1);
  CHECK(nb[0]["rank_list"] == nlohmann::json::array({1}));
  // Without the pending operations, the same counters read as blocking calls.
  CHECK_THAT(renderCollectives(views, states, 1000ms), Catch::Contains("Ranks [0,2] are in call 2 to MPI_Allreduce."));
}

TEST_CASE("collectives report: a persistent collective not started is no call in progress", "[core][report]") {
  // examples/hangs/pcoll_partial: ranks 0-2 started their MPI_Allreduce_init
  // request (collective #1) and wait for it; rank 3 never started its own and
  // is in MPI_Barrier. Rank 3's inactive request neither shows as pending
  // nor makes its barrier look like anything but a barrier.
  proto::MpiCall wait;
  wait.function = "MPI_Wait";
  wait.elapsedUs = 5'000'000;
  proto::MpiCall barrier;
  barrier.function = "MPI_Barrier";
  barrier.comm = kWorld;
  barrier.collCall = 1;
  barrier.elapsedUs = 5'000'000;
  std::vector<RankView> views = {inMpi(0, wait), inMpi(1, wait), inMpi(2, wait), inMpi(3, barrier)};
  std::map<int, std::vector<proto::CommState>> states;
  for (int r = 0; r < 4; ++r) {
    states[r] = {world(r, 0, false)};
    states[r].front().counts[static_cast<std::size_t>(proto::CollClass::Barrier)] = r == 3 ? 1 : 0;
    states[r].front().active[static_cast<std::size_t>(proto::CollClass::Barrier)] = r == 3;
  }
  auto op = [](std::uint64_t seq, bool active) {
    proto::PendingOp o;
    o.kind = proto::PendingOp::Kind::Collective;
    o.function = "MPI_Allreduce_init";
    o.collClass = static_cast<std::int32_t>(proto::CollClass::Allreduce);
    o.collSeq = seq;
    o.comm = kWorld;
    o.persistent = true;
    o.active = active;
    return o;
  };
  const proto::CommIdentity id = proto::identityOf(states[0].front());
  PendingCollectives pending;
  for (int r = 0; r < 3; ++r) pending[r][id] = {op(1, true)};
  pending[3][id] = {op(0, false)};
  const std::string report = renderCollectives(views, states, 1000ms, pending);
  CHECK_THAT(report, Catch::Contains("  Rank 3 is in call 1 to MPI_Barrier.\n"));
  CHECK_THAT(report, Catch::Contains("  Ranks [0-2] have not completed MPI_Allreduce_init (collective #1 on the communicator).\n"));
  CHECK_THAT(report, !Catch::Contains("Rank 3 has not completed"));
}
