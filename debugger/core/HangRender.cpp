// The hang verdict and the message queues as text (HangReport.hpp).

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ccs/proto/CollectiveRoot.hpp"
#include "debugger/core/Grouping.hpp"
#include "debugger/core/HangDetail.hpp"
#include "debugger/core/HangReport.hpp"
#include "debugger/core/StatusReport.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::core {

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
      if (op.peer == proto::kRootIsMe) add("root=MPI_ROOT");
      if (op.peer == proto::kRootProcNull) add("root=MPI_PROC_NULL");
      break;
    case proto::PendingOp::Kind::Rma:
      add("target=" + std::to_string(op.peer));
      break;
  }
  if (op.kind == proto::PendingOp::Kind::Send || op.kind == proto::PendingOp::Kind::Recv)
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
                           ? ", a synchronisation the verdict does not follow (a lock, flush or PSCW epoch whose other side it did not see)"
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
  // A held rank nobody is seen waiting for, beside ranks whose waits the
  // verdict does not follow (a flush of every target, say): they may wait
  // for it, so it is named before any search for a cycle among them.
  if (v.cycles.empty() && !v.unfollowed.empty()) {
    RankSet idle;
    std::string how;
    for (const auto& [rank, h] : v.held)
      if (h.waiters.empty()) {
        idle.insert(rank);
        if (how.empty()) how = h.how;
      }
    if (!idle.empty())
      out += "Held by the debugger: the ranks not followed may wait for " + heldPhrase(idle, how) + ".\n";
  }
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

std::vector<std::string> notReceivedOn(const std::vector<proto::RankQueues>& ranks, const proto::RankQueues& q,
                                       const proto::CommQueues& c) {
  std::vector<std::string> out;
  if (!q.error.empty()) return out;
  const proto::CommIdentity id = proto::identityOf(c.state);
  for (const auto& x : ranks) {
    const proto::CommQueues* xc = x.worldRank == q.worldRank || !x.error.empty() ? nullptr : detail::commById(x, id);
    if (!xc) continue;
    for (const detail::Unreceived& u : detail::notReceived(q, c, x, *xc, false))
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
      for (const auto& op : c.rma) body += "  one-sided " + describeOp(op) + "\n";
      for (const auto& line : notReceivedOn(ranks, q, c)) body += "  not received: " + line + "\n";
      if (body.empty()) continue;
      text += c.state.name + " (size " + std::to_string(c.state.size) + ", rank " +
              std::to_string(c.state.localRank) + "):\n" + body;
    }
    for (const proto::WindowLock& l : q.locks) {
      const proto::CommQueues* win = detail::commOf(q, l.win);
      text += std::string(l.granted ? "holds " : "asks for ") + (l.exclusive ? "an exclusive" : "a shared") +
              " lock on " + (l.target < 0 ? std::string("every rank") : "rank " + std::to_string(l.target)) + " of " +
              detail::commName(win, l.win) + " (since MPI call " + std::to_string(l.call) + ")\n";
    }
    for (const proto::WindowEpoch& e : q.epochs) {
      if (!e.access && !e.exposure) continue;
      const std::string of = " to rank " + std::to_string(e.peer) + " of " +
                             detail::commName(detail::commOf(q, e.win), e.win);
      if (e.access)
        text += "access epoch" + of + " open (MPI_Win_start; " + std::to_string(e.started) + " started, " +
                std::to_string(e.completed) + " completed)\n";
      if (e.exposure)
        text += "exposure epoch" + of + " open (MPI_Win_post; " + std::to_string(e.posted) + " posted, " +
                std::to_string(e.waited) + " waited for)\n";
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
