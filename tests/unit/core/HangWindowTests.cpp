// The hang verdict's one-sided waits (issue 23 item 2): passive-target locks
// (RankQueues::locks) and generalized active-target epochs
// (RankQueues::epochs).
#include <catch2/catch.hpp>

#include "HangInputBuilders.hpp"
#include "debugger/core/HangReport.hpp"

using namespace mpidbg::core;
using namespace hang_builders;

namespace hang_window_tests {

constexpr std::uint64_t kWin = 0xa0000000;

/// Rank `q` with the window kWin over the world's ranks (uid 0x77).
proto::RankQueues withWindow(proto::RankQueues q, int r) {
  q.comms.push_back(worldCopy(r, 4, 0, kWin, "win 0xa0000000", 0x77));
  return q;
}

/// A rank inside `fn` on the window kWin, with `target` when the call has one.
proto::MpiCall onWindow(const std::string& fn, std::optional<int> target = {}) {
  proto::MpiCall c = p2p(fn, target ? "target" : "", target.value_or(0), 0, kWin, "win 0xa0000000");
  c.hasTag = false;
  return c;
}

TEST_CASE("hang: a rank waiting for a lock waits for the rank holding it exclusively", "[hang]") {
  // lock_held's shape: rank 0 holds an exclusive lock on rank 2 of the
  // window and waits in MPI_Barrier; rank 1 waits in MPI_Win_lock(target=2).
  HangInput in;
  in.worldSize = 4;
  for (int r : {0, 2, 3})
    in.ranks.push_back(
        withWindow(rank(r, 4, 2, collective("MPI_Barrier", 2), {rec(1, "MPI_Win_create"), rec(2, "MPI_Barrier")}), r));
  in.ranks[0].locks.push_back({kWin, 2, true, 5});
  in.ranks.insert(in.ranks.begin() + 1,
                  withWindow(rank(1, 4, 1, onWindow("MPI_Win_lock", 2), {rec(1, "MPI_Win_create")}), 1));
  HangVerdict v = analyzeHang(in);
  CHECK(hasEdge(v, 1, 0));
  REQUIRE(v.cycles.size() == 1);
  CHECK(v.cycles[0] == std::vector<int>{0, 1});
  CHECK(v.unfollowed.empty());

  SECTION("a shared lock, another target, or another window: no edge, and the wait is named") {
    // The waiter's lock type is not known (no request in its locks): only
    // an exclusive holder conflicts.
    for (auto change : {0, 1, 2}) {
      HangInput other = in;
      proto::WindowLock& l = other.ranks[0].locks[0];
      if (change == 0) l.exclusive = false;
      if (change == 1) l.target = 3;
      if (change == 2) other.ranks[0].comms.back().state.uid = 0x78;  // rank 0's lock is on another window
      const HangVerdict w = analyzeHang(other);
      CHECK_FALSE(hasEdge(w, 1, 0));
      CHECK(w.cycles.empty());
      CHECK(w.unfollowed.count(1) == 1);
    }
  }
}

/// Four ranks: rank 1 inside MPI_Win_lock(target=2) asking for a lock of
/// `askExclusive`; rank 0 holds `held` and waits in MPI_Barrier with ranks
/// 2 and 3.
HangInput lockInput(bool askExclusive, proto::WindowLock held) {
  HangInput in;
  in.worldSize = 4;
  for (int r : {0, 2, 3})
    in.ranks.push_back(
        withWindow(rank(r, 4, 2, collective("MPI_Barrier", 2), {rec(1, "MPI_Win_create"), rec(2, "MPI_Barrier")}), r));
  in.ranks[0].locks.push_back(held);
  proto::RankQueues waiter = withWindow(rank(1, 4, 1, onWindow("MPI_Win_lock", 2), {rec(1, "MPI_Win_create")}), 1);
  waiter.locks.push_back({kWin, 2, askExclusive, 7, false});
  in.ranks.insert(in.ranks.begin() + 1, waiter);
  return in;
}

TEST_CASE("hang: the lock a rank asks for decides which holders it waits for", "[hang]") {
  SECTION("an exclusive request waits for a shared holder") {
    const HangVerdict v = analyzeHang(lockInput(true, {kWin, 2, false, 5}));
    REQUIRE(v.edges.size() >= 1);
    CHECK(hasEdge(v, 1, 0));
    CHECK(v.cycles == std::vector<std::vector<int>>{{0, 1}});
    bool named = false;
    for (const auto& e : v.edges)
      named |= e.from == 1 && e.why == "MPI_Win_lock(target=2, win 0xa0000000): rank 0 holds a shared lock on rank 2 "
                                      "of win 0xa0000000, and rank 1 asks for an exclusive one";
    CHECK(named);
  }
  SECTION("an exclusive request waits for MPI_Win_lock_all's shared lock on every rank") {
    const HangVerdict v = analyzeHang(lockInput(true, {kWin, -1, false, 5}));
    CHECK(hasEdge(v, 1, 0));
  }
  SECTION("a shared request does not wait for a shared holder, and says so") {
    const HangVerdict v = analyzeHang(lockInput(false, {kWin, 2, false, 5}));
    CHECK_FALSE(hasEdge(v, 1, 0));
    CHECK(v.cycles.empty());
    CHECK(v.unfollowed.count(1) == 1);
  }
  SECTION("a shared request waits for an exclusive holder") {
    const HangVerdict v = analyzeHang(lockInput(false, {kWin, 2, true, 5}));
    CHECK(hasEdge(v, 1, 0));
  }
  SECTION("a rank that only asks for a lock holds none") {
    const HangVerdict v = analyzeHang(lockInput(true, {kWin, 2, true, 5, false}));
    CHECK_FALSE(hasEdge(v, 1, 0));
  }
}

TEST_CASE("hang: MPI_Win_lock_all waits for an exclusive holder of any rank", "[hang]") {
  HangInput in = lockInput(false, {kWin, 2, true, 5});
  in.ranks[1].call = onWindow("MPI_Win_lock_all");
  in.ranks[1].locks = {{kWin, -1, false, 7, false}};
  CHECK(hasEdge(analyzeHang(in), 1, 0));
  in.ranks[0].locks[0].exclusive = false;  // shared locks do not conflict with it
  const HangVerdict shared = analyzeHang(in);
  CHECK_FALSE(hasEdge(shared, 1, 0));
  CHECK(shared.unfollowed.count(1) == 1);
}

TEST_CASE("hang: a wait on an MPI_Rput request waits as a flush of its target", "[hang]") {
  // Rank 1 waits in MPI_Wait on its MPI_Rput to rank 2, on which rank 0
  // holds an exclusive lock.
  HangInput in = lockInput(true, {kWin, 2, true, 5});
  proto::RankQueues& waiter = in.ranks[1];
  waiter.locks.clear();
  waiter.call = plainCall("MPI_Wait");
  proto::PendingOp put;
  put.kind = proto::PendingOp::Kind::Rma;
  put.function = "MPI_Rput";
  put.request = 0x6c000001;
  put.comm = kWin;
  put.peer = 2;
  put.count = 1;
  put.waited = true;
  waiter.comms.back().rma.push_back(put);
  const HangVerdict v = analyzeHang(in);
  CHECK(hasEdge(v, 1, 0));
  CHECK(v.cycles == std::vector<std::vector<int>>{{0, 1}});
  CHECK(describeOp(put) == "MPI_Rput(target=2, count=1) request 0x6c000001 [waited]");
  SECTION("no holder seen: named, not guessed") {
    in.ranks[0].locks.clear();
    const HangVerdict w = analyzeHang(in);
    CHECK(w.cycles.empty());
    CHECK(w.unfollowed.count(1) == 1);
  }
}

/// pscw_mismatch's shape: rank 0 inside `originCall` (MPI_Win_start or
/// _complete) with an access epoch open to rank 1; rank 1 has posted
/// `posted` exposure epochs to rank 0 and waits with ranks 2 and 3 in
/// MPI_Barrier.
HangInput pscwInput(const std::string& originCall, std::uint64_t posted) {
  HangInput in;
  in.worldSize = 4;
  proto::RankQueues origin = withWindow(rank(0, 4, 1, onWindow(originCall), {rec(1, "MPI_Win_create")}), 0);
  proto::WindowEpoch access;
  access.win = kWin;
  access.peer = 1;
  access.started = 1;
  access.completed = originCall == "MPI_Win_complete" ? 1 : 0;
  access.access = true;
  origin.epochs.push_back(access);
  in.ranks.push_back(origin);
  for (int r : {1, 2, 3})
    in.ranks.push_back(
        withWindow(rank(r, 4, 2, collective("MPI_Barrier", 1), {rec(1, "MPI_Win_create"), rec(2, "MPI_Barrier")}), r));
  if (posted > 0) {
    proto::WindowEpoch exposure;
    exposure.win = kWin;
    exposure.peer = 0;
    exposure.posted = posted;
    in.ranks[1].epochs.push_back(exposure);
  }
  return in;
}

TEST_CASE("hang: an access epoch waits for its targets' posts", "[hang]") {
  for (const char* fn : {"MPI_Win_start", "MPI_Win_complete"}) {
    DYNAMIC_SECTION(fn << ", rank 1 never posted: a cycle through the barrier") {
      const HangVerdict v = analyzeHang(pscwInput(fn, 0));
      CHECK(hasEdge(v, 0, 1));
      CHECK(v.cycles == std::vector<std::vector<int>>{{0, 1}});
      CHECK(v.unfollowed.empty());
      bool named = false;
      for (const auto& e : v.edges)
        named |= e.from == 0 && e.why == std::string(fn) +
                                            "(win 0xa0000000): rank 1 has posted 0 exposure epochs to rank 0 "
                                            "(MPI_Win_post), rank 0 started 1 access epoch to it";
      CHECK(named);
    }
    DYNAMIC_SECTION(fn << ", rank 1 posted: no edge, and the wait is named, not guessed") {
      const HangVerdict v = analyzeHang(pscwInput(fn, 1));
      CHECK_FALSE(hasEdge(v, 0, 1));
      CHECK(v.cycles.empty());
      CHECK(v.unfollowed.count(0) == 1);
    }
  }
  SECTION("a target whose state was not read is waited for") {
    HangInput in = pscwInput("MPI_Win_complete", 1);
    in.ranks[1].error = "no reply";
    CHECK(hasEdge(analyzeHang(in), 0, 1));
  }
  SECTION("epochs on another window do not count") {
    HangInput in = pscwInput("MPI_Win_complete", 1);
    in.ranks[1].comms.back().state.uid = 0x78;
    CHECK(hasEdge(analyzeHang(in), 0, 1));
  }
}

TEST_CASE("hang: an exposure epoch waits for its origins' completes", "[hang]") {
  // Rank 1 posted one exposure epoch to rank 0 and waits in MPI_Win_wait;
  // rank 0 started an access epoch to it and waits in MPI_Barrier.
  auto input = [](std::uint64_t completed) {
    HangInput in;
    in.worldSize = 2;
    proto::RankQueues origin = withWindow(
        rank(0, 2, 2, collective("MPI_Barrier", 1), {rec(1, "MPI_Win_create"), rec(2, "MPI_Barrier")}), 0);
    origin.comms = {world(0, 2, 2), worldCopy(0, 2, 0, kWin, "win 0xa0000000", 0x77)};
    proto::WindowEpoch access;
    access.win = kWin;
    access.peer = 1;
    access.started = 1;
    access.completed = completed;
    origin.epochs.push_back(access);
    proto::RankQueues target = rank(1, 2, 1, onWindow("MPI_Win_wait"), {rec(1, "MPI_Win_create")});
    target.comms = {world(1, 2, 1), worldCopy(1, 2, 0, kWin, "win 0xa0000000", 0x77)};
    proto::WindowEpoch exposure;
    exposure.win = kWin;
    exposure.peer = 0;
    exposure.posted = 1;
    exposure.exposure = true;
    target.epochs.push_back(exposure);
    in.ranks = {origin, target};
    return in;
  };
  const HangVerdict open = analyzeHang(input(0));
  CHECK(hasEdge(open, 1, 0));
  CHECK(open.cycles == std::vector<std::vector<int>>{{0, 1}});
  const HangVerdict closed = analyzeHang(input(1));
  CHECK_FALSE(hasEdge(closed, 1, 0));
  CHECK(closed.unfollowed.count(1) == 1);
}

}  // namespace hang_window_tests
