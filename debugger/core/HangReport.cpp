// The hang verdict (analyzeHang): the helpers HangDetail.hpp and Intercomm.hpp declare, and
// the wait-for graph (each rank's state, whom it waits for); the search over
// it is HangSearch.cpp's, the text HangRender.cpp's, the JSON HangJson.cpp's.

#include "debugger/core/HangReport.hpp"

#include <algorithm>
#include <set>

#include "ccs/proto/CollectiveRoot.hpp"
#include "debugger/core/HangDetail.hpp"
#include "debugger/core/Intercomm.hpp"
#include "debugger/core/StatusReport.hpp"
#include "mpidbg/MpiFunctions.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::core::detail {

namespace {

/// MPI_Test, MPI_Testall, ..., MPI_Iprobe: calls that return at once, so
/// that being inside one says nothing about waiting unless the rank polls.
bool isTest(const std::string& function) {
  return function.starts_with("MPI_Test") || function == "MPI_Iprobe" || function == "MPI_Improbe";
}

bool isFinalize(const proto::RankQueues& q) {
  return q.phase == proto::MpiPhase::Finalizing || q.phase == proto::MpiPhase::Finalized ||
         (q.call && q.call->function == "MPI_Finalize");
}

}  // namespace

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

int worldOf(const proto::CommQueues& comm, int local, int worldSize) {
  if (local < 0 || local >= comm.state.size) return -1;
  if (static_cast<std::size_t>(local) < comm.worldRanks.size()) return comm.worldRanks[local];
  if (comm.state.name == "MPI_COMM_WORLD" && comm.state.size == worldSize) return local;
  return -1;
}

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

const proto::CollRecord* historyAt(const proto::RankQueues& q, std::uint64_t handle, std::uint64_t seq) {
  for (auto h = q.history.rbegin(); h != q.history.rend(); ++h)
    if (h->comm == handle && h->seq == seq) return &*h;
  return nullptr;
}

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

proto::PendingOp waitedOp(const proto::MpiCall& call, proto::PendingOp op) {
  if (call.polling) op.waited = false;
  return op;
}

HangVerdict Analyzer::run() {
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

void Analyzer::classify() {
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

void Analyzer::edge(int from, int to, const std::string& why, bool any) {
  if (from == to) return;
  v_.edges.push_back(WaitEdge{from, to, why, any});
}

/// `rank` waits in collective number `seq` (`function`, `root` or -1) on
/// its communicator `comm`: every member that has not issued that call
/// yet, or issued a different one there, or is held by the debugger inside
/// it, is waited for. On an
/// intercommunicator (MPI 4.0, 6.2.2) the members are the remote group's,
/// as `comm` holds them; a rooted collective's root passes MPI_ROOT and
/// waits for them all, the other members of its group pass MPI_PROC_NULL
/// and wait for nobody, and the remote group's members wait for the root
/// alone.
void Analyzer::waitCollective(int rank, const proto::CommQueues& comm, std::uint64_t seq,
                              const std::string& function, int root, const std::string& why) {
  const bool inter = isInter(comm, rank);
  if (inter && root == proto::kRootProcNull) return;  // in a collective with nobody
  std::vector<int> waited;
  if (inter && root >= 0) {
    if (const int w = worldOf(comm, root, in_.worldSize); w >= 0) waited.push_back(w);
  } else {
    waited = membersOf(comm, in_.worldSize);
  }
  const proto::CommIdentity id = proto::identityOf(comm.state);
  for (int m : waited) {
    if (m == rank) continue;
    const auto it = nodes_.find(m);
    if (it == nodes_.end() || !it->second.q || !it->second.q->error.empty()) {
      edge(rank, m, why);
      continue;
    }
    const proto::CommQueues* mc = inter ? interCounterpart(*it->second.q, rank, comm) : commById(*it->second.q, id);
    if (!mc || mc->collSeq < seq) {
      edge(rank, m, why);
      continue;
    }
    // A member the debugger holds inside this very collective cannot
    // complete it: `rank` waits for it (the verdict then names the hold,
    // never a deadlock).
    if (it->second.kind == Kind::Held && mc->collSeq == seq && it->second.q->call &&
        it->second.q->call->function == function && commOf(*it->second.q, it->second.q->call->comm) == mc) {
      edge(rank, m, why);
      continue;
    }
    // The two groups of an intercommunicator pass different roots to one call.
    const proto::CollRecord* rec = historyAt(*it->second.q, mc->state.handle, seq);
    if (rec && (rec->function != function || (!inter && root >= 0 && rec->root >= 0 && rec->root != root)))
      edge(rank, m, why);
  }
}

/// Point-to-point wait on `peer` (a rank of `comm`; -1 any source).
/// `receive`: the wait is for a message (else a send waits for its receive).
void Analyzer::waitPeer(int rank, const proto::RankQueues& q, std::uint64_t commHandle, int peer,
                        const std::string& why, bool receive) {
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
void Analyzer::waitSelf(int rank, const proto::CommQueues& comm, int peer, const std::string& why, bool receive) {
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

/// `rank` is in `function`, MPI_Win_lock, _unlock, _flush (or a wait on a
/// request-based RMA operation), on rank `target` of the window of handle
/// `window` (or in MPI_Win_lock_all: on every rank of it): it
/// waits for every other rank the runtime saw holding a conflicting lock on
/// that target of the same window (by identity; RankQueues::locks, from
/// MPI_Win_lock's return to MPI_Win_unlock's). Inside an MPI_Win_lock that
/// asks for an exclusive lock, every lock conflicts (MPI_Win_lock_all's
/// shared ones included); otherwise (a shared request, MPI_Win_lock_all, or
/// an unlock or flush, whose lock type is not known) only exclusive ones.
/// False when no holder is seen.
bool Analyzer::waitLockHolders(int rank, const proto::RankQueues& q, const std::string& function,
                               std::uint64_t window, int target, const std::string& why) {
  const proto::CommQueues* win = commOf(q, window);
  if (!win) return false;
  const proto::CommIdentity id = proto::identityOf(win->state);
  const bool exclusiveAsked =
      function == "MPI_Win_lock" && std::ranges::any_of(q.locks, [&](const proto::WindowLock& l) {
        return !l.granted && l.exclusive && l.win == window && l.target == target;
      });
  const bool everyTarget = function == "MPI_Win_lock_all";
  bool any = false;
  for (const auto& [other, node] : nodes_) {
    if (other == rank || !node.q) continue;
    for (const proto::WindowLock& l : node.q->locks) {
      if (!l.granted || !(everyTarget || l.target == target || (exclusiveAsked && l.target == -1))) continue;
      if (!l.exclusive && !exclusiveAsked) continue;
      const proto::CommQueues* theirs = commOf(*node.q, l.win);
      if (!theirs || proto::identityOf(theirs->state) != id) continue;
      const std::string held = l.target == -1 ? "a shared lock on every rank (MPI_Win_lock_all)"
                                              : std::string(l.exclusive ? "an exclusive" : "a shared") +
                                                    " lock on rank " + std::to_string(l.target);
      edge(rank, other,
           why + ": rank " + std::to_string(other) + " holds " + held + " of " + commName(win, window) +
               (exclusiveAsked && !l.exclusive ? ", and rank " + std::to_string(rank) + " asks for an exclusive one"
                                               : ""));
      any = true;
      break;
    }
  }
  return any;
}

/// `rank` is in MPI_Win_start or _complete (`access`: its open access
/// epoch's targets) or in MPI_Win_wait (its open exposure epoch's origins)
/// on the window `call.comm`. PSCW epochs match in order per pair of ranks
/// (MPI 4.0 §12.5.2; RankQueues::epochs): an origin waits for each target
/// that has posted fewer exposure epochs to it than it started access
/// epochs to the target; a target waits for each origin that has completed
/// fewer access epochs to it than it posted. A peer whose state was not
/// read is waited for. False when no edge was drawn: every peer has done
/// its part (the MPI is still at work), or the runtime kept no epochs.
bool Analyzer::waitEpochPeers(int rank, const proto::RankQueues& q, const proto::MpiCall& call, bool access,
                              const std::string& why) {
  const proto::CommQueues* win = commOf(q, call.comm);
  if (!win) return false;
  const proto::CommIdentity id = proto::identityOf(win->state);
  bool any = false;
  for (const proto::WindowEpoch& mine : q.epochs) {
    if (mine.win != call.comm || !(access ? mine.access : mine.exposure)) continue;
    const int peer = worldOf(*win, mine.peer, in_.worldSize);
    if (peer < 0 || peer == rank) continue;
    const std::uint64_t needed = access ? mine.started : mine.posted;
    const auto it = nodes_.find(peer);
    if (it == nodes_.end() || !it->second.q || !it->second.q->error.empty()) {
      edge(rank, peer, why);
      any = true;
      continue;
    }
    std::uint64_t done = 0;
    for (const proto::WindowEpoch& theirs : it->second.q->epochs) {
      if (theirs.peer != win->state.localRank) continue;
      const proto::CommQueues* w = commOf(*it->second.q, theirs.win);
      if (!w || proto::identityOf(w->state) != id) continue;
      done = access ? theirs.posted : theirs.completed;
      break;
    }
    if (done >= needed) continue;
    auto epochs = [](std::uint64_t n, const char* kind) {
      return std::to_string(n) + " " + kind + (n == 1 ? " epoch" : " epochs");
    };
    const std::string r = std::to_string(rank), p = std::to_string(peer);
    edge(rank, peer,
         why + ": rank " + p +
             (access ? " has posted " + epochs(done, "exposure") + " to rank " + r + " (MPI_Win_post), rank " + r +
                           " started " + epochs(needed, "access") + " to it"
                     : " has completed " + epochs(done, "access") + " to rank " + r + " (MPI_Win_complete), rank " +
                           r + " posted " + epochs(needed, "exposure") + " to it"));
    any = true;
  }
  return any;
}

/// `rank` inside MPI_Intercomm_create (MPI 4.0, 7.6.2), `call` naming its
/// local leader (the root, on the local communicator) or, at a local
/// leader, the remote leader (the dest, on the peer communicator;
/// runtime/CallScope.hpp intercommCreate): a leader waits for the remote
/// leader unless that one is inside the call too; a member waits for its
/// leader unless both leaders are inside it.
void Analyzer::waitIntercommCreate(int rank, const proto::RankQueues& q, const proto::MpiCall& call,
                                   const std::string& why) {
  const auto inside = [&](int r) -> const proto::MpiCall* {
    const auto it = nodes_.find(r);
    if (it == nodes_.end() || !it->second.q || !it->second.q->call || it->second.q->call->function != call.function)
      return nullptr;
    return &*it->second.q->call;
  };
  // The world rank `c` (a call inside MPI_Intercomm_create of the rank with
  // queues `x`) names.
  const auto named = [&](const proto::RankQueues& x, const proto::MpiCall& c) {
    const proto::CommQueues* comm = commOf(x, c.comm);
    return comm ? worldOf(*comm, c.peer, in_.worldSize) : -1;
  };
  const int other = named(q, call);
  if (other < 0) {
    if (!q.comms.empty()) v_.unfollowed[rank] = why;  // a communicator it did not see made: never guessed
    return;
  }
  if (other == rank) return;
  const proto::MpiCall* theirs = inside(other);
  if (theirs && call.peerRole == "dest") return;  // both leaders are there
  if (theirs && theirs->peerRole == "dest")
    if (const int remote = named(*nodes_.at(other).q, *theirs); remote >= 0 && inside(remote)) return;
  edge(rank, other, why);
}

void Analyzer::waitsOf(int rank, const Node& node) {
  const proto::RankQueues& q = *node.q;
  const proto::MpiCall& call = *q.call;
  const std::string why = describeCall(call);
  const proto::CommQueues* comm = commOf(q, call.comm);
  if (call.function == "MPI_Intercomm_create" && (call.peerRole == "root" || call.peerRole == "dest")) {
    waitIntercommCreate(rank, q, call, why);
    return;
  }
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
        } else if (op.kind == proto::PendingOp::Kind::Rma) {
          // As a flush of its target: for the holder of a conflicting lock.
          if (!waitLockHolders(rank, q, op.function, c.state.handle, op.peer, opWhy)) v_.unfollowed[rank] = opWhy;
        } else {
          const bool receive = op.kind == proto::PendingOp::Kind::Recv;
          waitPeer(rank, q, c.state.handle, op.peer, opWhy, receive);
          if (counterpartPosted(rank, c, op.peer, op.tag, receive)) matched_.insert({rank, opWhy});
        }
      };
      for (const auto& op : c.sends) consider(op);
      for (const auto& op : c.recvs) consider(op);
      for (const auto& op : c.collectives) consider(op);
      for (const auto& op : c.rma) consider(op);
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
  } else if ((call.peerRole == "target" || call.function == "MPI_Win_lock_all") &&
             waitLockHolders(rank, q, call.function, call.comm, call.peer, why))
    return;
  else if ((call.function == "MPI_Win_start" || call.function == "MPI_Win_complete") &&
           waitEpochPeers(rank, q, call, true, why))
    return;
  else if (call.function == "MPI_Win_wait" && waitEpochPeers(rank, q, call, false, why))
    return;
  else if (!q.comms.empty())  // read with its MPI state (not from frames), and no rule says whom it waits for
    v_.unfollowed[rank] = why;  // said, never guessed
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
bool Analyzer::counterpartPosted(int rank, const proto::CommQueues& comm, int peer, int tag, bool receive) {
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

}  // namespace mpidbg::core::detail

namespace mpidbg::core {

bool isInter(const proto::CommQueues& comm, int rank) {
  const auto& w = comm.worldRanks;
  return comm.state.size > 0 && w.size() == static_cast<std::size_t>(comm.state.size) &&
         std::find(w.begin(), w.end(), rank) == w.end();
}

const proto::CommQueues* interCounterpart(const proto::RankQueues& q, int rank, const proto::CommQueues& comm) {
  const proto::CommQueues* found = nullptr;
  int candidates = 0;
  const auto mine = static_cast<std::size_t>(comm.state.localRank);
  for (const auto& c : q.comms) {
    const auto theirs = static_cast<std::size_t>(c.state.localRank);
    if (comm.state.localRank < 0 || c.state.localRank < 0 || !isInter(c, q.worldRank) ||
        mine >= c.worldRanks.size() || theirs >= comm.worldRanks.size() || c.worldRanks[mine] != rank ||
        comm.worldRanks[theirs] != q.worldRank)
      continue;
    if (c.state.handle == comm.state.handle) return &c;
    found = &c;
    ++candidates;
  }
  return candidates == 1 ? found : nullptr;
}

HangVerdict analyzeHang(const HangInput& input) { return detail::Analyzer(input).run(); }

}  // namespace mpidbg::core
