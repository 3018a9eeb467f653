// The hang verdict's search over the wait-for graph and the collective
// sequences (Analyzer, HangDetail.hpp): mismatches, cycles, dead ends,
// messages not received, held ranks, the join with `mpidbg check`, and the
// ranks to look at first.

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "debugger/core/Grouping.hpp"
#include "debugger/core/HangDetail.hpp"
#include "debugger/core/Intercomm.hpp"
#include "debugger/core/StatusReport.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::core::detail {

namespace {

std::string signature(const proto::CollRecord& r) {
  return r.root >= 0 ? r.function + "(root=" + std::to_string(r.root) + ")" : r.function;
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
std::vector<WaitedReceive> waitedReceives(const proto::RankQueues& q) {
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

}  // namespace

/// The join with `mpidbg check`: each rank-dependent collective it
/// flagged at a site where blocked ranks wait in that function, with the
/// ranks not there. A site every read rank waits at explains nothing.
void Analyzer::joinFindings() {
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

/// Per communicator: the members' collective counts, and the first call
/// number at which their recorded sequences differ.
void Analyzer::compareSequences() {
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
void Analyzer::compareCommunicators() {
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
    // An intercommunicator has no uid, and the members of one group may
    // hold different handles for it (MPICH's do): the remote group it
    // reaches (Intercomm.hpp) tells it apart.
    const bool byUid = comm->state.uid != 0;
    std::string identity = byUid ? "uid " + hexText(comm->state.uid) : "handle " + hexText(call.comm);
    if (!byUid && isInter(*comm, rank)) {
      identity = "remote group";
      for (const std::int32_t w : comm->worldRanks) identity += " " + std::to_string(w);
    }
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
std::set<int> Analyzer::mayReturn() {
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
void Analyzer::findCycles() {
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

void Analyzer::findCulprits() {
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
void Analyzer::findWildcardDeadEnds() {
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

/// Issue 23 item 6: for each receive a blocked rank waits in with a named
/// tag, the messages its possible senders sent it with another tag that
/// it has not received (HangVerdict::unreceived). Blocking sends count on
/// entry, so a sender still inside one does not count it as sent.
void Analyzer::findUnreceived() {
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
void Analyzer::findHeldWaiters() {
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
const proto::WildcardMatch* Analyzer::tookMessage(int waiter, int sender) {
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
void Analyzer::compareFrames() {
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
/// the odd ones out of a sequence mismatch, one cycle, dead-end waiters,
/// and the ranks not followed unless a rank is held.
void Analyzer::suggest() {
  std::vector<int> order;
  for (const auto& [r, _] : v_.culprits) order.push_back(r);
  order.insert(order.end(), lagging_.begin(), lagging_.end());
  order.insert(order.end(), mismatched_.begin(), mismatched_.end());
  if (!v_.cycles.empty()) order.insert(order.end(), v_.cycles.front().begin(), v_.cycles.front().end());
  order.insert(order.end(), dead_.begin(), dead_.end());
  // Beside a held rank, a rank whose waits are not followed may only wait
  // for it: continuing the held rank comes first, not gdb on the waiter.
  if (v_.held.empty() || !v_.cycles.empty())
    for (const auto& [r, _] : v_.unfollowed) order.push_back(r);
  for (int r : order) {
    if (v_.suggested.size() >= 8) break;
    v_.suggested.insert(r);
  }
}

}  // namespace mpidbg::core::detail
