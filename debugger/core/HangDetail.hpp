#pragma once

// Internal to the hang verdict, shared by its files and included by no
// other: HangReport.cpp (the shared helpers, and the wait-for graph: each
// rank's state and whom it waits for), HangSearch.cpp (sequences compared,
// cycles, dead ends, held ranks, ranks suggested), HangRender.cpp (text) and
// HangJson.cpp (JSON). The public side is HangReport.hpp.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ccs/proto/QueueProtocol.hpp"
#include "debugger/core/HangReport.hpp"

namespace mpidbg::core {

namespace proto = ccs::proto;

namespace detail {

/// What a rank is doing, as far as the verdict cares.
enum class Kind { Blocked, Held, Finalize, Computing, NotStarted, Ended, Unreadable };

struct Node {
  Kind kind = Kind::Unreadable;
  std::string state;
  const proto::RankQueues* q = nullptr;
};

const proto::CommQueues* commOf(const proto::RankQueues& q, std::uint64_t handle);

const proto::CommQueues* commById(const proto::RankQueues& q, const proto::CommIdentity& id);

/// World rank of `local` in `comm`; -1 when it cannot be told.
int worldOf(const proto::CommQueues& comm, int local, int worldSize);

/// Every member's world rank (those that can be told).
std::vector<int> membersOf(const proto::CommQueues& comm, int worldSize);

std::string commName(const proto::CommQueues* c, std::uint64_t handle);

/// The collective record of `rank` at position `seq` of communicator
/// `handle`: the newest one. A freed communicator's handle comes back for
/// the next one made (MPICH hands out the same value), so the history can
/// hold (handle, seq) of earlier communicators too; the newest is the live
/// one's whenever it has issued `seq` calls (the ring drops the oldest
/// first).
const proto::CollRecord* historyAt(const proto::RankQueues& q, std::uint64_t handle, std::uint64_t seq);

/// Messages one rank sent another with one tag and the other has not
/// received (RankQueues::messages).
struct Unreceived {
  std::int32_t tag = 0;
  std::uint64_t count = 0;
  std::string function;  ///< the first send's ("MPI_Send"), or "a send"
};

/// What `sender` sent on its communicator `sc` to `receiver` (its
/// communicator `rc`, the same by identity) that `receiver` has not
/// received, per tag, by their message counts. Blocking sends count on
/// entry: the one `sender` is inside is not counted as sent. Left out: every
/// tag when either rank's counts are partial or the sender is inside an
/// MPI_Sendrecv*; a tag the receiver may have received unseen (a receive
/// with an unknown sender for that tag or any tag); with `leaveOutPending`,
/// a tag a pending receive of the receiver would take.
std::vector<Unreceived> notReceived(const proto::RankQueues& receiver, const proto::CommQueues& rc,
                                    const proto::RankQueues& sender, const proto::CommQueues& sc,
                                    bool leaveOutPending);

/// `op` as a wait in `call` (an MPI_Wait*/Test*) names it: a polling rank's
/// requests are "waited" only while it is inside a test, and the phrase must
/// not depend on when the state was read.
proto::PendingOp waitedOp(const proto::MpiCall& call, proto::PendingOp op);

/// The verdict's computation (analyzeHang): one per input. Each member is
/// documented where it is defined.
class Analyzer {
 public:
  explicit Analyzer(const HangInput& in) : in_(in) {}

  HangVerdict run();

 private:
  // The wait-for graph (HangReport.cpp).
  void classify();
  void edge(int from, int to, const std::string& why, bool any = false);
  void waitCollective(int rank, const proto::CommQueues& comm, std::uint64_t seq, const std::string& function,
                      int root, const std::string& why);
  void waitPeer(int rank, const proto::RankQueues& q, std::uint64_t commHandle, int peer, const std::string& why,
                bool receive);
  void waitSelf(int rank, const proto::CommQueues& comm, int peer, const std::string& why, bool receive);
  bool waitLockHolders(int rank, const proto::RankQueues& q, const std::string& function, std::uint64_t window,
                       int target, const std::string& why);
  bool waitEpochPeers(int rank, const proto::RankQueues& q, const proto::MpiCall& call, bool access,
                      const std::string& why);
  void waitIntercommCreate(int rank, const proto::RankQueues& q, const proto::MpiCall& call, const std::string& why);
  void waitsOf(int rank, const Node& node);
  bool counterpartPosted(int rank, const proto::CommQueues& comm, int peer, int tag, bool receive);

  // What the graph and the sequences show (HangSearch.cpp).
  void joinFindings();
  void compareSequences();
  void compareCommunicators();
  std::set<int> mayReturn();
  void findCycles();
  void findCulprits();
  void findWildcardDeadEnds();
  void findUnreceived();
  void findHeldWaiters();
  const proto::WildcardMatch* tookMessage(int waiter, int sender);
  void compareFrames();
  void suggest();

  const HangInput& in_;
  HangVerdict v_;
  std::map<int, Node> nodes_;
  std::set<int> dead_, mismatched_, inCycle_, lagging_;
  /// (rank, why) of the waits whose other half is already there (counterpartPosted).
  std::set<std::pair<int, std::string>> matched_;
};

}  // namespace detail

}  // namespace mpidbg::core
