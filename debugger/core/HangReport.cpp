#include "debugger/core/HangReport.hpp"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <functional>
#include <set>
#include <tuple>

#include "debugger/core/Grouping.hpp"
#include "debugger/core/StatusReport.hpp"
#include "mpidbg/MpiFunctions.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::core {

namespace proto = ccs::proto;

namespace {

/// What a rank is doing, as far as the verdict cares.
enum class Kind { Blocked, Held, Finalize, Computing, NotStarted, Ended, Unreadable };

struct Node {
  Kind kind = Kind::Unreadable;
  std::string state;
  const proto::RankQueues* q = nullptr;
};

/// MPI_Test, MPI_Testall, ..., MPI_Iprobe: calls that return at once, so
/// that being inside one says nothing about waiting unless the rank polls.
bool isTest(const std::string& function) {
  return function.starts_with("MPI_Test") || function == "MPI_Iprobe" || function == "MPI_Improbe";
}

bool isFinalize(const proto::RankQueues& q) {
  return q.phase == proto::MpiPhase::Finalizing || q.phase == proto::MpiPhase::Finalized ||
         (q.call && q.call->function == "MPI_Finalize");
}

const proto::CommQueues* commOf(const proto::RankQueues& q, std::uint64_t handle) {
  for (const auto& c : q.comms)
    if (c.state.handle == handle) return &c;
  return nullptr;
}

const proto::CommQueues* commById(const proto::RankQueues& q, const proto::CommIdentity& id) {
  for (const auto& c : q.comms)
    if (proto::identityOf(c.state) == id) return &c;
  return nullptr;
}

/// World rank of `local` in `comm`; -1 when it cannot be told.
int worldOf(const proto::CommQueues& comm, int local, int worldSize) {
  if (local < 0 || local >= comm.state.size) return -1;
  if (static_cast<std::size_t>(local) < comm.worldRanks.size()) return comm.worldRanks[local];
  if (comm.state.name == "MPI_COMM_WORLD" && comm.state.size == worldSize) return local;
  return -1;
}

/// Every member's world rank (those that can be told).
std::vector<int> membersOf(const proto::CommQueues& comm, int worldSize) {
  std::vector<int> out;
  for (int l = 0; l < comm.state.size; ++l)
    if (const int w = worldOf(comm, l, worldSize); w >= 0) out.push_back(w);
  return out;
}

std::string commName(const proto::CommQueues* c, std::uint64_t handle) {
  if (c && !c->state.name.empty()) return c->state.name;
  return "comm " + hexText(handle);
}

/// The collective record of `rank` at position `seq` of communicator
/// `handle`: the newest one. A freed communicator's handle comes back for
/// the next one made (MPICH hands out the same value), so the history can
/// hold (handle, seq) of earlier communicators too; the newest is the live
/// one's whenever it has issued `seq` calls (the ring drops the oldest
/// first).
const proto::CollRecord* historyAt(const proto::RankQueues& q, std::uint64_t handle, std::uint64_t seq) {
  for (auto h = q.history.rbegin(); h != q.history.rend(); ++h)
    if (h->comm == handle && h->seq == seq) return &*h;
  return nullptr;
}

std::string signature(const proto::CollRecord& r) {
  return r.root >= 0 ? r.function + "(root=" + std::to_string(r.root) + ")" : r.function;
}

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
                                    bool leaveOutPending) {
  std::vector<Unreceived> out;
  if (receiver.messagesPartial || sender.messagesPartial || rc.state.localRank < 0 || sc.state.localRank < 0)
    return out;
  // The send half of an MPI_Sendrecv in progress is counted, but its tag is not known.
  if (sender.call && sender.call->function.starts_with("MPI_Sendrecv")) return out;
  const int to = rc.state.localRank, from = sc.state.localRank;
  for (const proto::MessageCount& m : sender.messages) {
    if (m.comm != sc.state.handle || m.peer != to || m.sent == 0) continue;
    std::uint64_t left = m.sent;
    const auto& call = sender.call;
    if (call && call->peerRole == "dest" && call->comm == m.comm && call->peer == to && call->hasTag &&
        call->tag == m.tag && left > 0)
      --left;  // the blocking send it is inside
    bool unseen = false;
    for (const proto::MessageCount& r : receiver.messages) {
      if (r.comm != rc.state.handle) continue;
      if (r.peer == -1 && (r.tag == m.tag || r.tag == -1) && r.received > 0) unseen = true;
      if (r.peer == from && r.tag == m.tag) left -= std::min(left, r.received);
    }
    if (leaveOutPending)
      for (const auto& op : rc.recvs)
        if (!op.blocking && op.active && (op.peer == from || op.peer == -1) && (op.tag == m.tag || op.tag == -1))
          unseen = true;
    if (!unseen && left > 0) out.push_back({m.tag, left, m.function.empty() ? "a send" : m.function});
  }
  return out;
}

/// `op` as a wait in `call` (an MPI_Wait*/Test*) names it: a polling rank's
/// requests are "waited" only while it is inside a test, and the phrase must
/// not depend on when the state was read.
proto::PendingOp waitedOp(const proto::MpiCall& call, proto::PendingOp op) {
  if (call.polling) op.waited = false;
  return op;
}

class Analyzer {
 public:
  explicit Analyzer(const HangInput& in) : in_(in) {}

  HangVerdict run() {
    classify();
    for (auto& [rank, node] : nodes_)
      if (node.kind == Kind::Blocked) waitsOf(rank, node);
    compareSequences();
    compareCommunicators();
    compareFrames();
    findCycles();
    findCulprits();
    findWildcardDeadEnds();
    findUnreceived();
    findHeldWaiters();
    joinFindings();
    suggest();
    // The call site goes into the state line only: dead ends and culprits
    // quote states in sentences of their own.
    for (const auto& [rank, node] : nodes_) {
      const auto site = v_.callSites.find(rank);
      v_.states[rank] = site == v_.callSites.end() ? node.state : node.state + " at " + site->second;
      if (node.q && !node.q->source.empty()) v_.sources[rank] = node.q->source;
    }
    v_.noHang = std::none_of(nodes_.begin(), nodes_.end(),
                             [](const auto& n) { return n.second.kind == Kind::Blocked; });
    return std::move(v_);
  }

 private:
  void classify() {
    for (const auto& q : in_.ranks) {
      Node n;
      n.q = &q;
      if (!q.error.empty()) {
        n.kind = Kind::Unreadable;
        n.state = "unreadable (" + q.error + ")";
      } else if (!q.held.empty()) {
        // The debugger's hold, not the program's state: checked before the
        // call it may be inside (a breakpoint, freeze --now in MPI_Finalize).
        n.kind = Kind::Held;
        n.state = "held: " + q.held;
      } else if (isFinalize(q)) {
        n.kind = Kind::Finalize;
        n.state = q.phase == proto::MpiPhase::Finalized ? "finalized (a bystander)"
                                                         : "in MPI_Finalize (a bystander)";
      } else if (q.call && !q.call->function.empty() && isTest(q.call->function) &&
                 !waitsLong(*q.call, in_.blockedAfter)) {
        // Tests that complete, a streak too short, or one the rank left to
        // compute: the rank goes on by itself.
        n.kind = Kind::Computing;
        n.state = q.call->function.ends_with("probe")
                      ? "running (probes with " + q.call->function + " between other work)"
                      : "running (tests requests with " + q.call->function + " between other work)";
      } else if (q.call && !q.call->function.empty()) {
        n.kind = Kind::Blocked;
        const auto& c = *q.call;
        if (c.polling) {
          n.state = pollPhrase(c);
        } else if (c.collCall > 0) {
          const std::string with = countedWith(c.function);
          n.state = "in call " + std::to_string(c.collCall) + " to " + c.function +
                    (with.empty() ? "" : " (counted with " + with + ")") + " on " +
                    (c.commName.empty() ? commName(commOf(q, c.comm), c.comm) : c.commName);
        } else {
          n.state = "blocked in " + describeCall(c);
        }
      } else if (q.phase == proto::MpiPhase::NotInitialized) {
        n.kind = Kind::NotStarted;
        n.state = "not in MPI yet (before MPI_Init returned)";
      } else {
        n.kind = Kind::Computing;
        n.state = "computing (not in MPI)";
        if (!q.frames.empty()) n.state += " in " + q.frames.front();
      }
      if (n.kind == Kind::Blocked || n.kind == Kind::Finalize)
        if (const auto site = in_.callSites.find(q.worldRank); site != in_.callSites.end())
          v_.callSites[q.worldRank] = site->second;
      nodes_[q.worldRank] = std::move(n);
    }
    for (const auto& [rank, why] : in_.ended) nodes_[rank] = Node{Kind::Ended, why, nullptr};
    for (const auto& [rank, why] : in_.unreadable)
      if (!nodes_.count(rank)) nodes_[rank] = Node{Kind::Unreadable, "unreadable (" + why + ")", nullptr};
  }

  void edge(int from, int to, const std::string& why, bool any = false) {
    if (from == to) return;
    v_.edges.push_back(WaitEdge{from, to, why, any});
  }

  /// `rank` waits in collective number `seq` (`function`, `root` or -1) on
  /// its communicator `comm`: every member that has not issued that call
  /// yet, or issued a different one there, is waited for.
  void waitCollective(int rank, const proto::CommQueues& comm, std::uint64_t seq, const std::string& function,
                      int root, const std::string& why) {
    const proto::CommIdentity id = proto::identityOf(comm.state);
    for (int m : membersOf(comm, in_.worldSize)) {
      if (m == rank) continue;
      const auto it = nodes_.find(m);
      if (it == nodes_.end() || !it->second.q || !it->second.q->error.empty()) {
        edge(rank, m, why);
        continue;
      }
      const proto::CommQueues* mc = commById(*it->second.q, id);
      if (!mc || mc->collSeq < seq) {
        edge(rank, m, why);
        continue;
      }
      const proto::CollRecord* rec = historyAt(*it->second.q, mc->state.handle, seq);
      if (rec && (rec->function != function || (root >= 0 && rec->root >= 0 && rec->root != root)))
        edge(rank, m, why);
    }
  }

  /// Point-to-point wait on `peer` (a rank of `comm`; -1 any source).
  /// `receive`: the wait is for a message (else a send waits for its receive).
  void waitPeer(int rank, const proto::RankQueues& q, std::uint64_t commHandle, int peer, const std::string& why,
                bool receive) {
    const proto::CommQueues* comm = commOf(q, commHandle);
    if (peer == -2) return;  // MPI_PROC_NULL completes at once
    if (peer == -1) {
      if (!comm) {
        if (!q.comms.empty()) v_.unfollowed[rank] = why;  // a communicator it did not see made
        return;
      }
      for (int m : membersOf(*comm, in_.worldSize)) edge(rank, m, why, true);
      return;
    }
    int world = comm ? worldOf(*comm, peer, in_.worldSize) : -1;
    if (world < 0 && !comm && q.comms.empty() && peer < in_.worldSize) world = peer;  // no registry: assume WORLD
    if (world < 0 && !q.comms.empty()) {
      // A communicator the runtime did not see made, or a peer outside the
      // job (another job's process on an intercommunicator): never guessed.
      v_.unfollowed[rank] = why;
      return;
    }
    if (world == rank && comm) waitSelf(rank, *comm, peer, why, receive);
    if (world >= 0) edge(rank, world, why);
  }

  /// `rank` waits for itself: `peer` is its own rank in `comm` (a
  /// communicator that renumbers, such as MPI_Comm_split with reversed
  /// keys, hides it). A dead end unless it has the other half pending: a
  /// nonblocking send to itself for a receive, a receive from itself (or
  /// any source) for a send.
  void waitSelf(int rank, const proto::CommQueues& comm, int peer, const std::string& why, bool receive) {
    for (const auto& op : receive ? comm.sends : comm.recvs)
      if (!op.blocking && (op.peer == peer || (!receive && op.peer == -1))) return;
    std::string line = "rank " + std::to_string(rank) + " waits in " + why + " for itself (";
    if (comm.state.name == "MPI_COMM_WORLD")
      line += "its own rank";
    else
      line += "rank " + std::to_string(peer) + " of " + commName(&comm, comm.state.handle) + " is world rank " +
              std::to_string(rank);
    line += std::string("), with no ") + (receive ? "send to itself" : "receive from itself") +
            " pending: no other rank can " + (receive ? "send this message" : "receive it");
    v_.deadEnds.push_back(std::move(line));
    dead_.insert(rank);
  }

  /// The join with `mpidbg check`: each rank-dependent collective it
  /// flagged at a site where blocked ranks wait in that function, with the
  /// ranks not there. A site every read rank waits at explains nothing.
  void joinFindings() {
    if (!in_.findings) return;
    std::map<std::size_t, RankSet> waiting;
    for (const auto& [rank, node] : nodes_) {
      const auto site = in_.callSites.find(rank);
      if (node.kind != Kind::Blocked || !node.q || !node.q->call || site == in_.callSites.end()) continue;
      for (std::size_t i : in_.findings->at(site->second, false))
        if (in_.findings->findings[i].function == node.q->call->function) waiting[i].insert(rank);
    }
    for (const auto& [i, ranks] : waiting) {
      const StaticFinding& f = in_.findings->findings[i];
      PredictedHang p{f.site(), f.function, "", f.message, ranks, {}};
      if (!f.related.empty()) {
        // "dir/x.c:18:7" -> "x.c:18"
        std::string c = f.related.front().substr(f.related.front().rfind('/') + 1);
        if (std::count(c.begin(), c.end(), ':') == 2) c.erase(c.rfind(':'));
        p.condition = c;
      }
      for (const auto& [rank, node] : nodes_)
        if (!ranks.contains(rank)) p.elsewhere.insert(rank);
      if (!p.elsewhere.empty()) v_.predicted.push_back(std::move(p));
    }
  }

  /// `rank` is in MPI_Win_lock, _unlock or _flush on rank `call.peer` of the
  /// window `call.comm`: it waits for every other rank the runtime saw
  /// holding an exclusive lock on that target of the same window (by
  /// identity; RankQueues::locks, from MPI_Win_lock's return to
  /// MPI_Win_unlock's). A shared lock draws nothing: whether the waiter
  /// asked for an exclusive one is not known. False when no holder is seen.
  bool waitLockHolders(int rank, const proto::RankQueues& q, const proto::MpiCall& call, const std::string& why) {
    const proto::CommQueues* win = commOf(q, call.comm);
    if (!win) return false;
    const proto::CommIdentity id = proto::identityOf(win->state);
    bool any = false;
    for (const auto& [other, node] : nodes_) {
      if (other == rank || !node.q) continue;
      for (const proto::WindowLock& l : node.q->locks) {
        if (!l.exclusive || l.target != call.peer) continue;
        const proto::CommQueues* theirs = commOf(*node.q, l.win);
        if (!theirs || proto::identityOf(theirs->state) != id) continue;
        edge(rank, other,
             why + ": rank " + std::to_string(other) + " holds an exclusive lock on rank " +
                 std::to_string(l.target) + " of " + commName(win, call.comm));
        any = true;
        break;
      }
    }
    return any;
  }

  void waitsOf(int rank, const Node& node) {
    const proto::RankQueues& q = *node.q;
    const proto::MpiCall& call = *q.call;
    const std::string why = describeCall(call);
    const proto::CommQueues* comm = commOf(q, call.comm);
    // The communicator calls (constructors, MPI_Comm_free) and the collective
    // MPI-IO calls are collectives too (the function table's GROUP column).
    if (call.collCall > 0 || collectiveInNoClass(call.function)) {
      if (comm) waitCollective(rank, *comm, comm->collSeq, call.function, call.peerRole == "root" ? call.peer : -1, why);
      else if (!q.comms.empty()) v_.unfollowed[rank] = why;  // a communicator it did not see made: never guessed
      return;
    }
    if (call.function.starts_with("MPI_Wait") || call.function.starts_with("MPI_Test")) {
      bool any = false;
      std::string polled;  // " on MPI_Irecv(...), ..." for a polling rank's state
      const std::set<std::uint64_t> named(q.waitingOn.begin(), q.waitingOn.end());
      for (const auto& c : q.comms) {
        auto consider = [&](const proto::PendingOp& op) {
          if (op.blocking || !(op.waited || named.count(op.request))) return;
          const proto::PendingOp shown = waitedOp(call, op);
          polled += (any ? ", " : " on ") + describeOp(shown);
          any = true;
          const std::string opWhy = call.function + ": " + describeOp(shown);
          if (op.persistent && !op.active) {
            v_.deadEnds.push_back("rank " + std::to_string(rank) + " waits in " + opWhy +
                                  ", a persistent request that was never started: it cannot complete");
            dead_.insert(rank);
            return;
          }
          if (op.kind == proto::PendingOp::Kind::Collective) {
            waitCollective(rank, c, op.collSeq, op.function, op.peer, opWhy);
          } else {
            const bool receive = op.kind == proto::PendingOp::Kind::Recv;
            waitPeer(rank, q, c.state.handle, op.peer, opWhy, receive);
            if (counterpartPosted(rank, c, op.peer, op.tag, receive)) matched_.insert({rank, opWhy});
          }
        };
        for (const auto& op : c.sends) consider(op);
        for (const auto& op : c.recvs) consider(op);
        for (const auto& op : c.collectives) consider(op);
      }
      if (!any) nodes_[rank].state += " (its requests are not known)";
      else if (call.polling) nodes_[rank].state = pollPhrase(call, polled);
      return;
    }
    if (call.peerRole == "source" || call.peerRole == "dest") {
      const bool receive = call.peerRole == "source";
      waitPeer(rank, q, call.comm, call.peer, why, receive);
      // MPI_Sendrecv* publishes its receive only: its send half is not matched here.
      if (const proto::CommQueues* c = commOf(q, call.comm);
          c && counterpartPosted(rank, *c, call.peer, call.hasTag ? call.tag : -1, receive))
        matched_.insert({rank, why});
    } else if (call.peerRole == "target" && waitLockHolders(rank, q, call, why))
      return;
    else if (!q.comms.empty())  // read with its MPI state (not from frames), and no rule says whom it waits for
      v_.unfollowed[rank] = why;  // said, never guessed
  }

  /// Per communicator: the members' collective counts, and the first call
  /// number at which their recorded sequences differ.
  void compareSequences() {
    std::map<proto::CommIdentity, std::map<int, const proto::CommQueues*>> comms;
    for (const auto& [rank, node] : nodes_)
      if (node.q && node.q->error.empty())
        for (const auto& c : node.q->comms)
          if (c.state.size > 1) comms[proto::identityOf(c.state)][rank] = &c;
    for (const auto& [id, members] : comms) {
      std::uint64_t lo = UINT64_MAX, hi = 0;
      for (const auto& [rank, c] : members) {
        lo = std::min(lo, c->collSeq);
        hi = std::max(hi, c->collSeq);
      }
      const std::string name = commName(members.begin()->second, members.begin()->second->state.handle);
      // The first position, among the ones still in some rank's history,
      // where two members recorded different calls.
      const std::uint64_t from = hi > 256 ? hi - 255 : 1;
      bool reported = false;
      for (std::uint64_t k = from; k <= hi && !reported; ++k) {
        std::map<int, std::string> sig;
        for (const auto& [rank, c] : members) {
          // Past its own count a record of (handle, k) is an earlier
          // communicator's (historyAt).
          if (k > c->collSeq) continue;
          if (const auto* rec = historyAt(*nodes_[rank].q, c->state.handle, k)) sig[rank] = signature(*rec);
        }
        const auto groups = groupByText(sig);
        if (groups.size() < 2) continue;
        std::string line = name + ": collective #" + std::to_string(k) + " differs:";
        for (std::size_t i = 0; i < groups.size(); ++i)
          line += std::string(i ? "," : "") + " " + describeRanks(groups[i].ranks) + " called " + groups[i].text;
        v_.mismatches.push_back(line);
        // The smaller side is the odd one out.
        const auto smallest = std::min_element(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
          return a.ranks.size() < b.ranks.size();
        });
        for (int r : smallest->ranks) mismatched_.insert(r);
        reported = true;
      }
      if (!reported && lo != hi) {
        std::map<int, std::string> issued;
        for (const auto& [rank, c] : members) issued[rank] = std::to_string(c->collSeq);
        std::string line = name + ": collective calls issued:";
        const auto groups = groupByText(issued);
        for (std::size_t i = 0; i < groups.size(); ++i)
          line += std::string(i ? "," : "") + " " + groups[i].ranks.toString() + " " + groups[i].text;
        bool anyActive = false, lagHeld = true;
        for (const auto& [rank, c] : members) {
          if (nodes_[rank].kind == Kind::Blocked && nodes_[rank].q->call && nodes_[rank].q->call->comm == c->state.handle)
            anyActive = true;
          // Behind only because the debugger holds it: the wait-for graph
          // names the hold (findHeldWaiters), no mismatch of the program.
          if (c->collSeq < hi && nodes_[rank].kind != Kind::Held) lagHeld = false;
        }
        if (anyActive && !lagHeld) {
          v_.mismatches.push_back(line);
          const auto fewest = std::min_element(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
            return a.ranks.size() < b.ranks.size();
          });
          for (int r : fewest->ranks) mismatched_.insert(r);
        }
      }
    }
  }

  /// Ranks inside the same collective function on different communicators
  /// that share members: "communicator vs communicator".
  void compareCommunicators() {
    std::map<std::string, std::map<int, std::string>> byFunction;  // function -> rank -> comm identity
    std::map<std::string, std::map<std::string, std::set<int>>> members;  // function -> comm identity -> members
    std::map<std::string, std::string> shown;  // comm identity -> its text (the first member's name)
    for (const auto& [rank, node] : nodes_) {
      if (node.kind != Kind::Blocked || !node.q->call || node.q->call->collCall == 0) continue;
      const auto& call = *node.q->call;
      const proto::CommQueues* comm = commOf(*node.q, call.comm);
      if (!comm) continue;
      // One communicator whose members hold different handles (known by
      // its uid) is one, whatever handle or default name ("comm 0x...",
      // "win 0x...": Open MPI's handles are addresses) each member holds:
      // the uid alone identifies it; without a uid the handle tells them
      // apart.
      const bool byUid = comm->state.uid != 0;
      const std::string identity = byUid ? "uid " + hexText(comm->state.uid) : "handle " + hexText(call.comm);
      const std::string name = byUid ? (comm->state.name.empty() ? identity : comm->state.name + " (" + identity + ")")
                                     : commName(comm, call.comm) + " (" + identity + ")";
      shown.emplace(identity, name);
      byFunction[call.function][rank] = identity;
      for (int m : membersOf(*comm, in_.worldSize)) members[call.function][identity].insert(m);
    }
    for (const auto& [function, ranks] : byFunction) {
      const auto groups = groupByText(ranks);
      if (groups.size() < 2) continue;
      // Only communicators that overlap can be confused with each other.
      bool overlap = false;
      for (std::size_t i = 0; i < groups.size() && !overlap; ++i)
        for (std::size_t j = i + 1; j < groups.size() && !overlap; ++j)
          for (int m : members[function][groups[i].text]) overlap = overlap || members[function][groups[j].text].count(m);
      if (!overlap) continue;
      std::string line = function + " is entered on different communicators:";
      for (std::size_t i = 0; i < groups.size(); ++i)
        line += std::string(i ? "," : "") + " " + describeRanks(groups[i].ranks) + " on " + shown[groups[i].text];
      v_.mismatches.push_back(line);
      const auto fewest = std::min_element(groups.begin(), groups.end(),
                                           [](const auto& a, const auto& b) { return a.ranks.size() < b.ranks.size(); });
      for (int r : fewest->ranks) mismatched_.insert(r);
    }
  }

  /// True when the other half of `rank`'s point-to-point operation on its
  /// communicator `comm` with `peer` (a rank of it, -1 any source) and `tag`
  /// (-1 any tag) is already there, so MPI completes it as the ranks make
  /// progress, whatever they call next (issue 23 item 5): for a receive
  /// (`receive`), a possible sender's send to it that is pending or blocking,
  /// or a message it sent and this rank has not received (on its way: the
  /// message counts); for a send, the destination's pending or blocking
  /// receive that matches it. Tags must match unless one side is
  /// MPI_ANY_TAG; a synchronous send still needs the receive, and has it.
  bool counterpartPosted(int rank, const proto::CommQueues& comm, int peer, int tag, bool receive) {
    if (peer < -1 || comm.state.localRank < 0) return false;
    const proto::CommIdentity id = proto::identityOf(comm.state);
    const int self = comm.state.localRank;
    std::vector<int> others;
    if (peer >= 0) others.push_back(worldOf(comm, peer, in_.worldSize));
    else others = membersOf(comm, in_.worldSize);
    for (int other : others) {
      const auto it = nodes_.find(other);
      if (other == rank || it == nodes_.end() || !it->second.q || !it->second.q->error.empty()) continue;
      const proto::RankQueues& x = *it->second.q;
      const proto::CommQueues* xc = commById(x, id);
      if (!xc) continue;
      const auto& ops = receive ? xc->sends : xc->recvs;
      for (const proto::PendingOp& op : ops) {
        if (!op.active) continue;
        const bool peerFits = receive ? op.peer == self : (op.peer == self || op.peer == -1);
        const bool tagFits = tag == -1 || op.tag == -1 || op.tag == tag;
        if (peerFits && tagFits) return true;
      }
      if (receive && nodes_.count(rank) && nodes_[rank].q)
        for (const Unreceived& u : notReceived(*nodes_[rank].q, comm, x, *xc, false))
          if (tag == -1 || u.tag == tag) return true;
    }
    return false;
  }

  /// The blocked ranks that may still return from their wait (issue 23
  /// item 5, OR-waits): a rank not blocked may act (it computes, is held by
  /// the debugger, has not started, could not be read) unless it is done
  /// with MPI (finalizing, ended); a blocked rank may return when what it
  /// waits for may come: for one wait (the edges with one `why`), any of its
  /// ranks when it is a wildcard receive (MPI_ANY_SOURCE), all of them
  /// otherwise; over its waits, any one in MPI_Waitany/Testany/Waitsome/
  /// Testsome, all of them else. A fixed point: a cycle through a wildcard
  /// wait that a held or computing rank may answer is no deadlock (HPCC's
  /// MPI_Testany on MPI_Irecv(MPI_ANY_SOURCE) with one rank frozen).
  std::set<int> mayReturn() {
    std::set<int> may;
    for (const auto& [rank, node] : nodes_)
      if (node.kind != Kind::Blocked && node.kind != Kind::Finalize && node.kind != Kind::Ended) may.insert(rank);
    auto mayAct = [&](int r) { return may.count(r) || !nodes_.count(r); };  // a rank not read at all: unknown
    std::map<int, std::map<std::string, std::pair<bool, std::vector<int>>>> waits;  // from -> why -> (or, to)
    for (const auto& e : v_.edges) {
      if (nodes_[e.from].kind != Kind::Blocked) continue;
      auto& w = waits[e.from][e.why];
      w.first = w.first || e.anySource;
      w.second.push_back(e.to);
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& [rank, byWhy] : waits) {
        if (may.count(rank)) continue;
        const Node& node = nodes_[rank];
        const std::string fn = node.q && node.q->call ? node.q->call->function : "";
        const bool anyOf = fn == "MPI_Waitany" || fn == "MPI_Testany" || fn == "MPI_Waitsome" || fn == "MPI_Testsome";
        bool returns = !anyOf;
        for (const auto& [why, w] : byWhy) {
          const bool comes = matched_.count({rank, why}) ||
                             (w.first ? std::any_of(w.second.begin(), w.second.end(), mayAct)
                                      : std::all_of(w.second.begin(), w.second.end(), mayAct));
          returns = anyOf ? returns || comes : returns && comes;
        }
        if (returns) {
          may.insert(rank);
          changed = true;
        }
      }
    }
    return may;
  }

  /// Tarjan's strongly connected components over the edges between blocked
  /// ranks that cannot return (mayReturn); each non-trivial component is
  /// reported by one shortest cycle through its lowest rank.
  void findCycles() {
    const std::set<int> may = mayReturn();
    std::map<int, std::set<int>> adj;
    for (const auto& e : v_.edges)
      if (nodes_[e.from].kind == Kind::Blocked && nodes_[e.to].kind == Kind::Blocked && !may.count(e.from) &&
          !may.count(e.to))
        adj[e.from].insert(e.to);
    std::map<int, int> index, low;
    std::vector<int> stack;
    std::set<int> onStack;
    int counter = 0;
    std::vector<std::set<int>> sccs;
    // Iterative Tarjan: jobs have thousands of ranks; no deep recursion.
    for (const auto& [start, ignored] : adj) {
      if (index.count(start)) continue;
      std::vector<std::pair<int, std::set<int>::const_iterator>> work;
      auto push = [&](int v) {
        index[v] = low[v] = counter++;
        stack.push_back(v);
        onStack.insert(v);
        work.push_back({v, adj[v].cbegin()});
      };
      push(start);
      while (!work.empty()) {
        auto& [v, it] = work.back();
        if (it != adj[v].cend()) {
          const int w = *it++;
          if (!index.count(w)) {
            push(w);
          } else if (onStack.count(w)) {
            low[v] = std::min(low[v], index[w]);
          }
          continue;
        }
        const int done = v;
        work.pop_back();
        if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
        if (low[done] == index[done]) {
          std::set<int> scc;
          int w;
          do {
            w = stack.back();
            stack.pop_back();
            onStack.erase(w);
            scc.insert(w);
          } while (w != done);
          if (scc.size() > 1) sccs.push_back(std::move(scc));
        }
      }
    }
    for (const auto& scc : sccs) {
      const int s = *scc.begin();
      // Breadth-first from s inside the component, back to s.
      std::map<int, int> parent;
      std::deque<int> queue{s};
      int last = -1;
      while (!queue.empty() && last < 0) {
        const int v = queue.front();
        queue.pop_front();
        for (int w : adj[v]) {
          if (!scc.count(w)) continue;
          if (w == s) {
            last = v;
            break;
          }
          if (!parent.count(w)) {
            parent[w] = v;
            queue.push_back(w);
          }
        }
      }
      std::vector<int> cycle;
      for (int v = last; v != s; v = parent[v]) cycle.push_back(v);
      cycle.push_back(s);
      std::reverse(cycle.begin(), cycle.end());
      v_.cycles.push_back(cycle);
      for (int r : cycle) inCycle_.insert(r);
    }
  }

  void findCulprits() {
    // Waits on a rank that is done with MPI, grouped by (why, target).
    std::map<std::pair<std::string, int>, RankSet> finalWaits;
    for (const auto& e : v_.edges) {
      const Node& to = nodes_[e.to];
      switch (to.kind) {
        case Kind::Blocked:
        case Kind::Held: break;  // findHeldWaiters
        case Kind::Finalize:
          if (!e.anySource) finalWaits[{e.why, e.to}].insert(e.from);
          break;
        default:
          if (to.kind == Kind::Ended && e.anySource) break;
          v_.culprits[e.to] = to.state;
      }
    }
    for (const auto& [key, from] : finalWaits) {
      const std::string who = from.size() == 1 ? "rank " + std::to_string(from.first()) + " waits"
                                               : "ranks " + from.toString() + " wait";
      std::string line = who + " in " + key.first + " for rank " + std::to_string(key.second) + ", which is " +
                         nodes_[key.second].state + ": no matching operation will come";
      for (int waiter : from)
        if (const proto::WildcardMatch* m = tookMessage(waiter, key.second))
          line += "; rank " + std::to_string(waiter) + "'s earlier " + m->function + "(source=MPI_ANY_SOURCE, tag=" +
                  (m->tag < 0 ? std::string("MPI_ANY_TAG") : std::to_string(m->tag)) + ") (its MPI call " +
                  std::to_string(m->call) + ") matched rank " + std::to_string(key.second) + "'s message (tag " +
                  std::to_string(m->matchedTag) + "): if that receive was meant for another sender, it took the message this one waits for";
      v_.deadEnds.push_back(std::move(line));
      for (int r : from) dead_.insert(r);
      lagging_.insert(key.second);
    }
  }

  /// A blocked rank whose every edge is a wildcard one (MPI_ANY_SOURCE) and
  /// whose every possible sender has finalized or ended: a dead end naming
  /// them. A rank stuck elsewhere is no missing sender (it may still send).
  void findWildcardDeadEnds() {
    std::map<int, std::vector<const WaitEdge*>> byRank;
    for (const auto& e : v_.edges)
      if (nodes_[e.from].kind == Kind::Blocked) byRank[e.from].push_back(&e);
    for (const auto& [rank, edges] : byRank) {
      std::map<int, std::string> senders;  // world rank -> its state
      bool done = true;
      for (const WaitEdge* e : edges) {
        const Kind k = nodes_[e->to].kind;
        done = done && e->anySource && (k == Kind::Finalize || k == Kind::Ended);
        senders[e->to] = nodes_[e->to].state;
      }
      if (!done || senders.empty()) continue;
      std::string line = "rank " + std::to_string(rank) + " waits in " + edges.front()->why +
                         ", but every rank that could send it is done with MPI:";
      const auto groups = groupByText(senders);
      for (std::size_t i = 0; i < groups.size(); ++i)
        line += std::string(i ? "," : "") + " " + describeRanks(groups[i].ranks) + " " + groups[i].text;
      line += ": no message will come";
      v_.deadEnds.push_back(std::move(line));
      dead_.insert(rank);
      for (const auto& [sender, state] : senders) lagging_.insert(sender);
    }
  }

  /// One receive a blocked rank waits in: on its communicator `comm`
  /// (handle value), from `source` (rank in it; -1 any) with `tag` (-1 any).
  struct WaitedReceive {
    std::uint64_t comm = 0;
    int source = -1;
    int tag = -1;
    std::string why;
  };

  /// The receives `q` waits in: its blocking receive or probe, or the
  /// receive requests of the MPI_Wait*/Test* it is inside.
  static std::vector<WaitedReceive> waitedReceives(const proto::RankQueues& q) {
    std::vector<WaitedReceive> out;
    const proto::MpiCall& call = *q.call;
    if (call.peerRole == "source") {
      out.push_back({call.comm, call.peer, call.hasTag ? call.tag : -1, describeCall(call)});
    } else if (call.function.starts_with("MPI_Wait") || call.function.starts_with("MPI_Test")) {
      const std::set<std::uint64_t> named(q.waitingOn.begin(), q.waitingOn.end());
      for (const auto& c : q.comms)
        for (const auto& op : c.recvs)
          if (!op.blocking && op.active && (op.waited || named.count(op.request)))
            out.push_back({c.state.handle, op.peer, op.tag, call.function + ": " + describeOp(waitedOp(call, op))});
    }
    return out;
  }

  /// Issue 23 item 6: for each receive a blocked rank waits in with a named
  /// tag, the messages its possible senders sent it with another tag that
  /// it has not received (HangVerdict::unreceived). Blocking sends count on
  /// entry, so a sender still inside one does not count it as sent.
  void findUnreceived() {
    for (const auto& [rank, node] : nodes_) {
      if (node.kind != Kind::Blocked || !node.q || !node.q->call || node.q->messagesPartial) continue;
      const proto::RankQueues& q = *node.q;
      for (const WaitedReceive& w : waitedReceives(q)) {
        const proto::CommQueues* comm = commOf(q, w.comm);
        // MPI_ANY_TAG would take any message; MPI_PROC_NULL waits for none.
        if (w.tag < 0 || w.source < -1 || !comm || comm->state.localRank < 0) continue;
        const proto::CommIdentity id = proto::identityOf(comm->state);
        std::vector<int> senders;
        if (w.source >= 0) senders.push_back(worldOf(*comm, w.source, in_.worldSize));
        else senders = membersOf(*comm, in_.worldSize);
        for (int sender : senders) {
          const auto it = nodes_.find(sender);
          if (sender == rank || it == nodes_.end() || !it->second.q) continue;
          const proto::RankQueues& x = *it->second.q;
          if (!x.error.empty()) continue;
          const proto::CommQueues* theirs = commById(x, id);
          if (!theirs || theirs->state.localRank < 0) continue;
          for (const Unreceived& u : notReceived(q, *comm, x, *theirs, true)) {
            if (u.tag == w.tag) continue;
            v_.unreceived.push_back(
                "rank " + std::to_string(sender) + "'s " + u.function + "(dest=" +
                std::to_string(comm->state.localRank) + ", tag=" + std::to_string(u.tag) +
                ", comm=" + commName(theirs, theirs->state.handle) + ") sent " + std::to_string(u.count) +
                (u.count == 1 ? " message" : " messages") + " that rank " + std::to_string(rank) +
                " has not received; rank " + std::to_string(rank) + " waits in " + w.why + ": a tag mismatch?");
          }
        }
      }
    }
  }

  /// For each held rank, the blocked ranks with a path to it in the wait-for
  /// graph (through blocked ranks only); onlyHeld when they are all the
  /// blocked ranks and nothing else is wrong.
  void findHeldWaiters() {
    std::map<int, std::set<int>> waitedBy;  // to -> from, blocked `from` only
    for (const auto& e : v_.edges)
      if (nodes_[e.from].kind == Kind::Blocked) waitedBy[e.to].insert(e.from);
    RankSet all;
    for (const auto& [rank, node] : nodes_) {
      if (node.kind != Kind::Held) continue;
      HangVerdict::Held h{node.q ? node.q->held : node.state, {}};
      std::deque<int> queue{rank};
      while (!queue.empty()) {
        const int v = queue.front();
        queue.pop_front();
        for (int w : waitedBy[v])
          if (w != rank && !h.waiters.contains(w)) {
            h.waiters.insert(w);
            all.insert(w);
            queue.push_back(w);
          }
      }
      v_.held[rank] = std::move(h);
    }
    bool every = !all.empty();
    for (const auto& [rank, node] : nodes_)
      if (node.kind == Kind::Blocked && !all.contains(rank)) every = false;
    v_.onlyHeld = every && v_.cycles.empty() && v_.deadEnds.empty() && v_.mismatches.empty() && v_.culprits.empty();
  }

  /// The latest wildcard receive of `waiter` that matched a message of world
  /// rank `sender` on the communicator (and with the tag) `waiter` now waits
  /// on: the receive that may have taken the message this wait needs.
  /// nullptr when there is none (or the rank's source keeps no matches).
  const proto::WildcardMatch* tookMessage(int waiter, int sender) {
    const Node& node = nodes_[waiter];
    if (!node.q || !node.q->call) return nullptr;
    const proto::MpiCall& call = *node.q->call;
    const proto::CommQueues* comm = commOf(*node.q, call.comm);
    for (auto it = node.q->wildcards.rbegin(); it != node.q->wildcards.rend(); ++it) {
      if (it->comm != call.comm) continue;
      if (call.hasTag && call.tag >= 0 && it->matchedTag != call.tag) continue;
      int world = it->source;
      if (comm && !comm->worldRanks.empty()) {
        if (it->source < 0 || static_cast<std::size_t>(it->source) >= comm->worldRanks.size()) continue;
        world = comm->worldRanks[static_cast<std::size_t>(it->source)];
      }
      if (world == sender) return &*it;
    }
    return nullptr;
  }

  /// When no rank brought collective state (every one was read from stack
  /// frames: attached by pid, an MPI's DLL without collective state), the
  /// call names alone, STAT's way: if most ranks are in one collective and
  /// others are blocked elsewhere, those others are the odd ones out. No
  /// call numbers or communicators, so the line says it is a guess.
  void compareFrames() {
    std::map<std::string, RankSet> byCall;
    std::size_t withCall = 0, read = 0;
    for (const auto& [rank, node] : nodes_) {
      if (!node.q) continue;
      if (!node.q->comms.empty()) return;
      ++read;
      if (!node.q->call || (node.kind != Kind::Blocked && node.kind != Kind::Finalize)) continue;
      byCall[node.q->call->function].insert(rank);
      ++withCall;
    }
    v_.framesOnly = read > 0;
    const std::string* collective = nullptr;
    std::size_t most = 0;
    for (const auto& [function, ranks] : byCall) {
      bool isColl = false;
      for (std::size_t c = 0; c < proto::kCollClassCount; ++c)
        isColl = isColl || proto::collName(static_cast<proto::CollClass>(c)) == function;
      if (isColl && ranks.size() > most) {
        most = ranks.size();
        collective = &function;
      }
    }
    if (collective == nullptr || most == withCall) return;
    std::string line = "from stack frames only (no call numbers): " + describeRanks(byCall[*collective]) + " in " +
                       *collective + ", but";
    // The others in rank order.
    std::map<int, const std::string*> byFirstRank;
    for (const auto& [function, ranks] : byCall)
      if (function != *collective) byFirstRank[*ranks.begin()] = &function;
    bool first = true;
    for (const auto& [lowest, function] : byFirstRank) {
      const RankSet& ranks = byCall[*function];
      line += std::string(first ? "" : ",") + " " + describeRanks(ranks) + " in " + *function;
      first = false;
      for (int r : ranks) mismatched_.insert(r);
    }
    line += ": unless they reach " + *collective + ", it cannot complete";
    v_.mismatches.push_back(line);
  }

  /// In order of interest, at most 8 (few enough to attach gdb to at once):
  /// ranks others wait for outside MPI, ranks that fell behind a collective,
  /// the odd ones out of a sequence mismatch, one cycle, dead-end waiters.
  void suggest() {
    std::vector<int> order;
    for (const auto& [r, _] : v_.culprits) order.push_back(r);
    order.insert(order.end(), lagging_.begin(), lagging_.end());
    order.insert(order.end(), mismatched_.begin(), mismatched_.end());
    if (!v_.cycles.empty()) order.insert(order.end(), v_.cycles.front().begin(), v_.cycles.front().end());
    order.insert(order.end(), dead_.begin(), dead_.end());
    for (const auto& [r, _] : v_.unfollowed) order.push_back(r);
    for (int r : order) {
      if (v_.suggested.size() >= 8) break;
      v_.suggested.insert(r);
    }
  }

  const HangInput& in_;
  HangVerdict v_;
  std::map<int, Node> nodes_;
  std::set<int> dead_, mismatched_, inCycle_, lagging_;
  /// (rank, why) of the waits whose other half is already there (counterpartPosted).
  std::set<std::pair<int, std::string>> matched_;
};

}  // namespace

HangVerdict analyzeHang(const HangInput& input) { return Analyzer(input).run(); }

std::string describeOp(const proto::PendingOp& op) {
  std::string args;
  auto add = [&](const std::string& a) { args += (args.empty() ? "" : ", ") + a; };
  switch (op.kind) {
    case proto::PendingOp::Kind::Send:
      add("dest=" + (op.peer == -2 ? std::string("MPI_PROC_NULL") : std::to_string(op.peer)));
      break;
    case proto::PendingOp::Kind::Recv:
      add("source=" + (op.peer == -1   ? std::string("MPI_ANY_SOURCE")
                       : op.peer == -2 ? std::string("MPI_PROC_NULL")
                                       : std::to_string(op.peer)));
      break;
    case proto::PendingOp::Kind::Collective:
      if (op.peer >= 0) add("root=" + std::to_string(op.peer));
      break;
  }
  if (op.kind != proto::PendingOp::Kind::Collective)
    add("tag=" + (op.tag == -1 ? std::string("MPI_ANY_TAG") : std::to_string(op.tag)));
  if (op.count >= 0) add("count=" + std::to_string(op.count));
  std::string out = op.function + "(" + args + ")";
  if (op.kind == proto::PendingOp::Kind::Collective && op.collSeq > 0)
    out += " collective #" + std::to_string(op.collSeq);
  if (op.request != 0) out += " request " + hexText(op.request);
  std::vector<std::string> flags;
  if (op.blocking) flags.push_back("blocking");
  if (op.persistent) flags.push_back(op.active ? "persistent, started" : "persistent, not started");
  if (op.synchronous) flags.push_back("synchronous");
  if (op.waited) flags.push_back("waited");
  if (!flags.empty()) {
    out += " [";
    for (std::size_t i = 0; i < flags.size(); ++i) out += (i ? ", " : "") + flags[i];
    out += "]";
  }
  return out;
}

namespace {

/// "Read from: [0-1] ccs; [2-3] mqs:libmpidbg-mqs.so".
std::string renderSources(const HangVerdict& v) {
  if (v.sources.empty()) return {};
  std::string out = "Read from:";
  const auto groups = groupByText(v.sources);
  for (std::size_t i = 0; i < groups.size(); ++i)
    out += std::string(i ? ";" : "") + " " + groups[i].ranks.toString() + " " + groups[i].text;
  return out + "\n";
}

/// "rank 1, which you froze (continue 1)": held ranks of one kind of hold,
/// and the command that lets them go.
std::string heldPhrase(const RankSet& ranks, const std::string& how) {
  const std::string arg = ranks.size() == 1 ? std::to_string(ranks.first()) : ranks.toString();
  const bool one = ranks.size() == 1;
  std::string which;
  std::string release = "continue " + arg;
  if (how.starts_with("frozen")) which = "which you froze";
  else if (how.starts_with("stepped")) which = "which you stepped";
  else if (how.starts_with("breakpoint")) which = one ? "which is stopped at " + how : "which are stopped at " + how;
  else which = (one ? "which is held " : "which are held ") + how;
  return describeRanks(ranks) + ", " + which + " (" + release + ")";
}

/// One line per group of held ranks others wait for: "ranks [0,2-3] wait
/// for rank 1, which you froze (continue 1)". Holds that differ in where
/// the rank was (the text after "frozen (--now) in") still group by kind.
std::vector<std::string> heldLines(const HangVerdict& v) {
  auto kindOf = [](const std::string& how) -> std::string {
    if (how.starts_with("frozen")) return "frozen";
    if (how.starts_with("stepped")) return "stepped";
    return how;
  };
  std::map<std::pair<std::string, std::string>, std::pair<RankSet, RankSet>> groups;  // (waiters, kind) -> (waiters, held)
  std::map<std::pair<std::string, std::string>, std::string> howOf;
  for (const auto& [rank, h] : v.held) {
    if (h.waiters.empty()) continue;
    const auto key = std::make_pair(h.waiters.toString(), kindOf(h.how));
    groups[key].first = h.waiters;
    groups[key].second.insert(rank);
    howOf.emplace(key, h.how);
  }
  std::vector<std::string> out;
  for (const auto& [key, sets] : groups) {
    const std::string who = sets.first.size() == 1 ? "rank " + std::to_string(sets.first.first()) + " waits"
                                                   : "ranks " + sets.first.toString() + " wait";
    out.push_back(who + " for " + heldPhrase(sets.second, howOf[key]));
  }
  return out;
}

}  // namespace

std::string renderHang(const HangVerdict& v) {
  std::string out = "Ranks:\n";
  {
    const auto groups = groupByText(v.states);
    std::string body = renderGroups(groups);
    std::size_t pos = 0;
    while (pos < body.size()) {
      const std::size_t nl = body.find('\n', pos);
      out += "  " + body.substr(pos, nl - pos + 1);
      pos = nl == std::string::npos ? body.size() : nl + 1;
    }
  }
  if (v.noHang) {
    out += "No rank is waiting in MPI: nothing is hung.\n";
    return out + renderSources(v);
  }
  if (!v.mismatches.empty()) {
    out += "Collective sequences:\n";
    for (const auto& m : v.mismatches) out += "  " + m + "\n";
  }
  if (!v.edges.empty()) {
    out += "Wait-for graph:\n";
    // Group: (to, why) -> from ranks; then (from ranks, why) -> to ranks.
    std::map<std::pair<std::string, int>, RankSet> byTarget;
    for (const auto& e : v.edges) byTarget[{e.why, e.to}].insert(e.from);
    std::map<std::pair<std::string, std::string>, std::pair<RankSet, RankSet>> lines;
    for (const auto& [key, from] : byTarget) {
      auto& slot = lines[{from.toString(), key.first}];
      slot.first = from;
      slot.second.insert(key.second);
    }
    std::vector<std::tuple<int, std::string>> ordered;
    for (const auto& [key, sets] : lines)
      ordered.emplace_back(sets.first.first(),
                           sets.first.toString() + " -> " + sets.second.toString() + "  in " + key.second);
    std::sort(ordered.begin(), ordered.end());
    for (const auto& [first, line] : ordered) out += "  " + line + "\n";
  }
  for (const auto& cycle : v.cycles) {
    out += "Deadlock: cycle ";
    for (int r : cycle) out += std::to_string(r) + " -> ";
    out += std::to_string(cycle.front()) + "\n";
    for (std::size_t i = 0; i < cycle.size(); ++i) {
      const int from = cycle[i], to = cycle[(i + 1) % cycle.size()];
      for (const auto& e : v.edges)
        if (e.from == from && e.to == to) {
          out += "  rank " + std::to_string(from) + " waits in " + e.why + " for rank " + std::to_string(to);
          if (const auto site = v.callSites.find(from); site != v.callSites.end()) out += ", at " + site->second;
          out += "\n";
          break;
        }
    }
  }
  for (const auto& d : v.deadEnds) out += "Dead end: " + d + ".\n";
  for (const auto& u : v.unreceived) out += "Not received: " + u + "\n";
  for (const auto& g : groupByText(v.unfollowed)) {
    const bool one = g.ranks.size() == 1;
    const char* what = g.text.starts_with("MPI_Win_")
                           ? ", a synchronisation the verdict does not follow (PSCW epochs; locks and flushes whose lock holder it did not see)"
                           : ", a call whose waits the verdict does not follow";
    out += "Not followed: " + describeRanks(g.ranks) + (one ? " waits" : " wait") + " in " + g.text + what +
           ": whom " + (one ? "it waits" : "they wait") + " for is unknown.\n";
  }
  for (const auto& p : v.predicted)
    out += "Predicted by mpidbg check: " + describeRanks(p.elsewhere) + (p.elsewhere.size() == 1 ? " is" : " are") +
           " not in " + p.function + " at " + p.site + ", where " + describeRanks(p.waiting) +
           (p.waiting.size() == 1 ? " waits" : " wait") +
           (p.condition.empty() ? ": not every rank may call it" : ": the condition at " + p.condition + " depends on the rank") +
           " [mpidbg-rank-dependent-collective].\n";
  for (const auto& line : heldLines(v))
    out += (v.onlyHeld ? "No hang of the program: " : "Held by the debugger: ") + line + ".\n";
  for (const auto& [rank, doing] : v.culprits)
    out += "Waited for: rank " + std::to_string(rank) + " is " + doing + ".\n";
  if (v.cycles.empty() && !v.unfollowed.empty()) {
    out += "No cycle found among the waits the verdict follows; the ranks it does not follow may close one.\n";
  } else if (v.cycles.empty() && v.culprits.empty() && v.deadEnds.empty() && v.mismatches.empty() && !v.onlyHeld) {
    if (v.framesOnly && v.edges.empty() && !v.noHang)
      out += "Whom the blocked ranks wait for is unknown: their stack frames show the calls but not the "
             "arguments (run the job with the runtime, MPIDBG_LISTEN=1, for the wait-for graph).\n";
    else
      out += "No cycle found: the ranks wait for each other without a closed loop (a rank may still be on its way).\n";
  }
  if (!v.suggested.empty())
    out += "Look first at " + describeRanks(v.suggested) + ": gdb " + v.suggested.toString() + " bt\n";
  return out + renderSources(v);
}

nlohmann::json hangToJson(const HangVerdict& v) {
  nlohmann::json j;
  j["version"] = 1;
  j["states"] = nlohmann::json::array();
  for (const auto& g : groupByText(v.states))
    j["states"].push_back({{"ranks", g.ranks.toString()}, {"rank_list", g.ranks.toVector()}, {"state", g.text}});
  j["mismatches"] = v.mismatches;
  j["edges"] = nlohmann::json::array();
  for (const auto& e : v.edges)
    j["edges"].push_back({{"from", e.from}, {"to", e.to}, {"why", e.why}, {"any_source", e.anySource}});
  j["cycles"] = v.cycles;
  j["dead_ends"] = v.deadEnds;
  j["unreceived"] = v.unreceived;
  j["culprits"] = nlohmann::json::array();
  for (const auto& [rank, doing] : v.culprits) j["culprits"].push_back({{"rank", rank}, {"doing", doing}});
  j["suggested"] = v.suggested.toVector();
  j["no_hang"] = v.noHang;
  j["held"] = nlohmann::json::array();
  for (const auto& [rank, h] : v.held)
    j["held"].push_back({{"rank", rank}, {"how", h.how}, {"waiters", h.waiters.toVector()}});
  j["only_held"] = v.onlyHeld;
  j["unfollowed"] = nlohmann::json::array();
  for (const auto& g : groupByText(v.unfollowed))
    j["unfollowed"].push_back({{"ranks", g.ranks.toString()}, {"rank_list", g.ranks.toVector()}, {"call", g.text}});
  j["predicted"] = nlohmann::json::array();
  for (const auto& p : v.predicted)
    j["predicted"].push_back({{"site", p.site},
                              {"function", p.function},
                              {"condition", p.condition.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.condition)},
                              {"category", "mpidbg-rank-dependent-collective"},
                              {"message", p.message},
                              {"waiting", p.waiting.toVector()},
                              {"elsewhere", p.elsewhere.toVector()}});
  j["call_sites"] = nlohmann::json::array();
  for (const auto& g : groupByText(v.callSites))
    j["call_sites"].push_back({{"ranks", g.ranks.toString()}, {"rank_list", g.ranks.toVector()}, {"site", g.text}});
  j["sources"] = nlohmann::json::array();
  for (const auto& g : groupByText(v.sources))
    j["sources"].push_back({{"ranks", g.ranks.toString()}, {"rank_list", g.ranks.toVector()}, {"source", g.text}});
  return j;
}

std::vector<std::string> notReceivedOn(const std::vector<proto::RankQueues>& ranks, const proto::RankQueues& q,
                                       const proto::CommQueues& c) {
  std::vector<std::string> out;
  if (!q.error.empty()) return out;
  const proto::CommIdentity id = proto::identityOf(c.state);
  for (const auto& x : ranks) {
    const proto::CommQueues* xc = x.worldRank == q.worldRank || !x.error.empty() ? nullptr : commById(x, id);
    if (!xc) continue;
    for (const Unreceived& u : notReceived(q, c, x, *xc, false))
      out.push_back(std::to_string(u.count) + (u.count == 1 ? " message" : " messages") + " from source=" +
                    std::to_string(xc->state.localRank) + " with tag=" + std::to_string(u.tag) + " (" + u.function +
                    ")");
  }
  return out;
}

std::string renderQueues(const std::vector<proto::RankQueues>& ranks, const std::map<int, std::string>& unreadable) {
  std::map<int, std::string> byRank;
  for (const auto& q : ranks) {
    if (!q.error.empty()) {
      byRank[q.worldRank] = "unreadable: " + q.error;
      continue;
    }
    std::string text;
    for (const auto& c : q.comms) {
      std::string body;
      for (const auto& op : c.sends) body += "  send " + describeOp(op) + "\n";
      for (const auto& op : c.recvs) body += "  receive " + describeOp(op) + "\n";
      for (const auto& op : c.collectives) body += "  collective " + describeOp(op) + "\n";
      for (const auto& op : c.unexpected) body += "  unexpected " + describeOp(op) + "\n";
      for (const auto& line : notReceivedOn(ranks, q, c)) body += "  not received: " + line + "\n";
      if (body.empty()) continue;
      text += c.state.name + " (size " + std::to_string(c.state.size) + ", rank " +
              std::to_string(c.state.localRank) + "):\n" + body;
    }
    for (const proto::WindowLock& l : q.locks) {
      const proto::CommQueues* win = commOf(q, l.win);
      text += std::string("holds ") + (l.exclusive ? "an exclusive" : "a shared") + " lock on " +
              (l.target < 0 ? std::string("every rank") : "rank " + std::to_string(l.target)) + " of " +
              commName(win, l.win) + " (since MPI call " + std::to_string(l.call) + ")\n";
    }
    if (q.call && q.call->collCall > 0) text = "inside " + describeCall(*q.call) + "\n" + text;
    if (text.empty()) text = "no pending operations";
    if (!text.empty() && text.back() == '\n') text.pop_back();
    byRank[q.worldRank] = text;
  }
  for (const auto& [rank, why] : unreadable) byRank[rank] = "unreadable: " + why;
  return renderGroups(groupByText(byRank));
}

}  // namespace mpidbg::core
