#include "debugger/core/CollectiveReport.hpp"

#include <cstdio>
#include <set>
#include <tuple>

#include "debugger/core/Grouping.hpp"
#include "debugger/core/Intercomm.hpp"
#include "debugger/core/StatusReport.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::core {

namespace proto = ccs::proto;

namespace {

struct Communicator {
  std::string name;
  std::int32_t size = 0;
  std::map<int, proto::CommState> members;  // by world rank
  std::map<int, std::vector<proto::PendingOp>> pending;  // nonblocking collectives, by world rank
};

/// True when the rank of `view` is inside the blocking collective of class
/// `c` on `s`'s communicator, as far as can be told: its class is active and
/// either no nonblocking operation of the class is pending or its current
/// call is that collective on that communicator.
bool inBlocking(const Communicator& comm, int rank, const proto::CommState& s, std::size_t c, const RankView* view) {
  if (!s.active[c]) return false;
  bool nonblocking = false;
  if (const auto it = comm.pending.find(rank); it != comm.pending.end())
    for (const auto& op : it->second)
      nonblocking = nonblocking || (op.active && op.collClass == static_cast<std::int32_t>(c));
  if (!nonblocking) return true;
  if (view == nullptr || !view->status || !view->status->call) return false;
  const auto& call = *view->status->call;
  return call.comm == s.handle && call.function == proto::collName(static_cast<proto::CollClass>(c));
}

/// The members of `comm` grouped by the handle value ("0x84000003") each
/// holds for it: one group unless it is one communicator by uid.
std::vector<RankGroup> handleGroups(const Communicator& comm) {
  std::map<int, std::string> byRank;
  for (const auto& [rank, s] : comm.members) byRank[rank] = hexText(s.handle);
  return groupByText(byRank);
}

/// "handle 0x84000003", or, when the members hold different handle values
/// for it (one communicator by uid), "handles 0x84000005 on [0], 0x84000003
/// on [1-2]".
std::string handlesOf(const Communicator& comm) {
  const auto groups = handleGroups(comm);
  if (groups.size() == 1) return "handle " + groups.front().text;
  std::string out = "handles";
  for (std::size_t i = 0; i < groups.size(); ++i)
    out += std::string(i ? "," : "") + " " + groups[i].text + " on " + groups[i].ranks.toString();
  return out;
}

/// The collective of class `c` the rank of `view` is in: its current call
/// when that is one counted in the class ("MPI_Exscan (counted with
/// MPI_Scan)"), else the class's own.
std::string collectiveIn(std::size_t c, const RankView* view) {
  const std::string own(proto::collName(static_cast<proto::CollClass>(c)));
  if (!view || !view->status || !view->status->call) return own;
  const std::string& function = view->status->call->function;
  // A window's collectives (MPI_Win_fence, MPI_Win_free) are the only calls
  // counted on its record: named as they are.
  if (function.starts_with("MPI_Win_")) return function;
  if (function == own || countedWith(function) != own) return own;
  return function + " (counted with " + own + ")";
}

std::string calls(std::uint64_t n) { return std::to_string(n) + (n == 1 ? " call" : " calls"); }

/// What a member not inside class `c` is doing, seen from communicator `comm`.
std::string doingInstead(const Communicator& comm, int rank, const proto::CommState& state,
                         const RankView* view, std::chrono::milliseconds blockedAfter) {
  for (std::size_t other = 0; other < proto::kCollClassCount; ++other) {
    if (!inBlocking(comm, rank, state, other, view)) continue;
    return "is in call " + std::to_string(state.counts[other]) + " to " + collectiveIn(other, view) + " on " +
           comm.name;
  }
  if (view == nullptr) return "is in an unknown state";
  return "is " + describeRankState(*view, blockedAfter);
}

/// Ranks of one communicator with the same count of one collective class
/// and, for those not inside it, the same thing done instead.
struct MemberGroup {
  RankSet ranks;
  std::uint64_t calls = 0;  ///< inside: the call number; others: calls made
  std::string doing;        ///< others: "is blocked in MPI_Recv(...)"; inside: empty
  /// inside: the collective they are in ("MPI_Exscan (counted with
  /// MPI_Scan)", collectiveIn); others: empty
  std::string collective;
  /// inside: where they made the call ("solver.c:88 in step"), or empty
  std::string site;
};

/// One collective class some member is inside.
struct ClassReport {
  std::string collective;  ///< "MPI_Allreduce"
  std::vector<MemberGroup> inside, others;
};

/// One communicator with a collective in progress.
struct CommReport {
  const Communicator* comm = nullptr;
  std::vector<ClassReport> classes;
  int unreported = 0;  ///< members that did not report
  RankSet silent;      ///< which ones, known for MPI_COMM_WORLD only
  /// Nonblocking and started persistent collectives not completed:
  /// "MPI_Iallreduce (collective #2"
  /// ... grouped by (function and root, position), with the ranks.
  struct Nonblocking {
    std::string collective;  ///< "MPI_Iallreduce", "MPI_Ibcast(root=0)"
    std::uint64_t seq = 0;   ///< position in the communicator's collective sequence
    RankSet ranks;
  };
  std::vector<Nonblocking> nonblocking;
};

/// The report's content, rendered as text or JSON.
struct Analysis {
  std::map<proto::CommIdentity, Communicator> comms;
  std::vector<CommReport> busy;  ///< communicators with a collective in progress
  int quiet = 0;                 ///< communicators (size 2 or more) without one
};

Analysis analyze(const std::vector<RankView>& views,
                 const std::map<int, std::vector<proto::CommState>>& states,
                 std::chrono::milliseconds blockedAfter, const PendingCollectives& pending,
                 const std::map<int, std::string>& callSites) {
  const auto siteOf = [&](int rank) {
    const auto it = callSites.find(rank);
    return it == callSites.end() ? std::string() : it->second;
  };
  std::map<int, const RankView*> viewByRank;
  for (const auto& v : views) viewByRank[v.info.rank] = &v;

  Analysis a;
  for (const auto& [rank, list] : states) {
    for (const auto& s : list) {
      if (s.size <= 1) continue;
      auto& comm = a.comms[proto::identityOf(s)];
      comm.name = s.name;
      comm.size = s.size;
      comm.members[rank] = s;
      if (const auto r = pending.find(rank); r != pending.end())
        if (const auto ops = r->second.find(proto::identityOf(s)); ops != r->second.end())
          comm.pending[rank] = ops->second;
    }
  }
  for (const auto& [key, comm] : a.comms) {
    CommReport report;
    report.comm = &comm;
    for (std::size_t c = 0; c < proto::kCollClassCount; ++c) {
      const std::string cname(proto::collName(static_cast<proto::CollClass>(c)));
      // Grouped by the text each rank's line would have, so equal counts and
      // equal doings go together.
      std::map<int, std::string> inside, others;
      std::map<int, std::string> doing;
      std::string collective = cname;  // what the first rank inside calls
      for (const auto& [rank, s] : comm.members) {
        const auto it = viewByRank.find(rank);
        const RankView* view = it == viewByRank.end() ? nullptr : it->second;
        if (inBlocking(comm, rank, s, c, view)) {
          if (inside.empty()) collective = collectiveIn(c, view);
          inside[rank] = "in call " + std::to_string(s.counts[c]) + " to " + collectiveIn(c, view) + "|" +
                         siteOf(rank);
        } else {
          doing[rank] = doingInstead(comm, rank, s, view, blockedAfter);
          if (const std::string site = siteOf(rank); !site.empty()) doing[rank] += " at " + site;
          others[rank] = calls(s.counts[c]) + " and " + doing[rank];
        }
      }
      if (inside.empty()) continue;
      ClassReport cls{collective, {}, {}};
      for (const auto& g : groupByText(inside))
        cls.inside.push_back({g.ranks, comm.members.at(g.ranks.first()).counts[c], {},
                              collectiveIn(c, viewByRank.count(g.ranks.first()) ? viewByRank.at(g.ranks.first())
                                                                                  : nullptr),
                              siteOf(g.ranks.first())});
      for (const auto& g : groupByText(others))
        cls.others.push_back(
            {g.ranks, comm.members.at(g.ranks.first()).counts[c], doing.at(g.ranks.first()), {}, {}});
      report.classes.push_back(std::move(cls));
    }
    std::map<std::pair<std::uint64_t, std::string>, RankSet> nonblocking;
    for (const auto& [rank, ops] : comm.pending)
      for (const auto& op : ops)
        if (op.active)  // a persistent collective not started is no call in progress
          nonblocking[{op.collSeq, op.peer >= 0 ? op.function + "(root=" + std::to_string(op.peer) + ")" : op.function}]
            .insert(rank);
    for (const auto& [key, ranks] : nonblocking) report.nonblocking.push_back({key.second, key.first, ranks});
    if (report.classes.empty() && report.nonblocking.empty()) {
      ++a.quiet;
      continue;
    }
    report.unreported = comm.size - static_cast<int>(comm.members.size());
    if (report.unreported > 0 && comm.name == "MPI_COMM_WORLD")
      for (int r = 0; r < comm.size; ++r)
        if (!comm.members.count(r)) report.silent.insert(r);
    a.busy.push_back(std::move(report));
  }
  return a;
}

}  // namespace

std::string renderCollectives(const std::vector<RankView>& views,
                              const std::map<int, std::vector<proto::CommState>>& states,
                              std::chrono::milliseconds blockedAfter, const PendingCollectives& pending,
                              const std::map<int, std::string>& callSites) {
  const Analysis a = analyze(views, states, blockedAfter, pending, callSites);
  std::string out;
  for (const auto& report : a.busy) {
    const Communicator& comm = *report.comm;
    out += "Communicator " + comm.name + " (" + handlesOf(comm) + ", size " + std::to_string(comm.size) + "):\n";
    for (const auto& cls : report.classes) {
      for (const auto& g : cls.inside)
        out += "  " +
               (g.ranks.size() == 1 ? "Rank " + std::to_string(g.ranks.first()) + " is "
                                    : "Ranks " + g.ranks.toString() + " are ") +
               "in call " + std::to_string(g.calls) + " to " + g.collective +
               (g.site.empty() ? "" : " at " + g.site) + ".\n";
      for (const auto& g : cls.others) {
        // The texts are written for one rank ("has made ... and is ..."):
        // several ranks "have made ... and are ...".
        std::string text =
            "has made " + calls(g.calls) + " to " + cls.collective + " and " + g.doing;
        if (g.ranks.size() > 1) {
          if (text.starts_with("has ")) text.replace(0, 3, "have");
          if (const std::size_t is = text.find(" and is "); is != std::string::npos)
            text.replace(is, 8, " and are ");
        }
        out += "  " +
               (g.ranks.size() == 1 ? "Rank " + std::to_string(g.ranks.first())
                                    : "Ranks " + g.ranks.toString()) +
               " " + text + ".\n";
      }
    }
    for (const auto& nb : report.nonblocking)
      out += "  " +
             (nb.ranks.size() == 1 ? "Rank " + std::to_string(nb.ranks.first()) + " has"
                                   : "Ranks " + nb.ranks.toString() + " have") +
             " not completed " + nb.collective + " (collective #" + std::to_string(nb.seq) + " on the communicator).\n";
    if (report.unreported > 0)
      out += "  " + std::to_string(report.unreported) + " of " + std::to_string(comm.size) +
             " members did not report" +
             (report.silent.empty() ? std::string() : " (" + describeRanks(report.silent) + ")") +
             ".\n";
  }
  if (a.busy.empty()) {
    out += "No collective is in progress on any communicator";
    out += states.empty() ? " (no rank answered).\n" : ".\n";
  } else if (a.quiet > 0) {
    out += std::to_string(a.quiet) + " other communicator" + (a.quiet == 1 ? " has" : "s have") +
           " no collective in progress.\n";
  }
  return out;
}

nlohmann::json collectivesToJson(const std::vector<RankView>& views,
                                 const std::map<int, std::vector<proto::CommState>>& states,
                                 std::chrono::milliseconds blockedAfter, const PendingCollectives& pending,
                              const std::map<int, std::string>& callSites) {
  const Analysis a = analyze(views, states, blockedAfter, pending, callSites);
  const auto group = [](const MemberGroup& g, nlohmann::json j) {
    j["ranks"] = g.ranks.toString();
    j["rank_list"] = g.ranks.toVector();
    return j;
  };
  nlohmann::json comms = nlohmann::json::array();
  for (const auto& report : a.busy) {
    nlohmann::json classes = nlohmann::json::array();
    for (const auto& cls : report.classes) {
      nlohmann::json inside = nlohmann::json::array(), others = nlohmann::json::array();
      for (const auto& g : cls.inside)
        inside.push_back(group(g, {{"call", g.calls},
                                   {"call_site", g.site.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.site)}}));
      for (const auto& g : cls.others)
        others.push_back(
            group(g, {{"calls", g.calls},
                      {"doing", g.doing.starts_with("is ") ? g.doing.substr(3) : g.doing}}));
      classes.push_back({{"collective", cls.collective},
                         {"inside", std::move(inside)},
                         {"others", std::move(others)}});
    }
    nlohmann::json handles = nlohmann::json::array();
    for (const auto& g : handleGroups(*report.comm))
      handles.push_back({{"handle", g.text}, {"ranks", g.ranks.toString()}, {"rank_list", g.ranks.toVector()}});
    nlohmann::json nonblocking = nlohmann::json::array();
    for (const auto& nb : report.nonblocking)
      nonblocking.push_back({{"collective", nb.collective},
                             {"seq", nb.seq},
                             {"ranks", nb.ranks.toString()},
                             {"rank_list", nb.ranks.toVector()}});
    const std::uint64_t uid = report.comm->members.begin()->second.uid;
    comms.push_back({{"name", report.comm->name},
                     {"handle", hexText(report.comm->members.begin()->second.handle)},
                     {"handles", std::move(handles)},
                     {"uid", uid != 0 ? nlohmann::json(hexText(uid)) : nlohmann::json(nullptr)},
                     {"size", report.comm->size},
                     {"collectives", std::move(classes)},
                     {"unreported",
                      {{"count", report.unreported},
                       {"ranks", report.silent.toString()},
                       {"rank_list", report.silent.toVector()}}},
                     {"nonblocking", std::move(nonblocking)}});
  }
  return {{"communicators", std::move(comms)},
          {"idle_communicators", a.quiet},
          {"answered", !states.empty()}};
}

namespace {

/// World rank `rank`'s intercommunicator `c` (isInter) as one communicator of
/// both its groups in `s`, its state: the runtime describes each side by the
/// other group (size, rank 0), so its two sides would be two communicators
/// of other sizes. With a member of the remote group that answered and holds
/// the other side (interCounterpart, whose members are `rank`'s group):
/// the size of both groups and the lowest world rank of either, the same on
/// both sides. The members of one group may hold different handles for it
/// (MPICH's do, and another intercommunicator's members the same value), so
/// its two groups name it: a uid made from their world ranks (interUid),
/// unless `rank` holds another intercommunicator to the same remote group,
/// which the groups could not tell apart (then each handle stays its own).
/// A uid for the intercommunicator between world-rank groups `a` and `b`,
/// the same whichever group is `a`: FNV-1a over the smaller group's ranks
/// then the other's, with the top bit set (the runtime's uids of
/// intracommunicators, CommTable.hpp, are made otherwise; never 0).
std::uint64_t interUid(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
  const bool aFirst = a < b;
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const auto* g : {aFirst ? &a : &b, aFirst ? &b : &a}) {
    for (std::int32_t r : *g)
      for (int i = 0; i < 4; ++i) {
        h ^= (static_cast<std::uint32_t>(r) >> (8 * i)) & 0xffu;
        h *= 0x100000001b3ull;
      }
    h ^= 0xffu;  // the groups' boundary
    h *= 0x100000001b3ull;
  }
  return h | (1ull << 63);
}

void bothGroups(proto::CommState& s, int rank, const proto::CommQueues& c,
                const std::map<int, const proto::RankQueues*>& byRank) {
  for (int m : c.worldRanks) {
    const auto it = byRank.find(m);
    if (it == byRank.end()) continue;
    const proto::CommQueues* other = interCounterpart(*it->second, rank, c);
    if (!other) continue;
    std::set<int> all(c.worldRanks.begin(), c.worldRanks.end());
    all.insert(other->worldRanks.begin(), other->worldRanks.end());
    all.erase(-1);  // processes outside the job
    s.size = static_cast<std::int32_t>(c.worldRanks.size() + other->worldRanks.size());
    if (!all.empty()) s.rootWorldRank = *all.begin();
    int sameGroups = 0;
    if (const auto self = byRank.find(rank); self != byRank.end())
      for (const auto& d : self->second->comms)
        if (isInter(d, rank) && d.worldRanks == c.worldRanks) ++sameGroups;
    if (sameGroups == 1) s.uid = interUid(c.worldRanks, other->worldRanks);
    return;
  }
}

/// Each answered rank's communicators as the report counts them: their
/// states with worldRank set, an intercommunicator's for both groups
/// (bothGroups); calls `each(rank, communicator, state)`.
template <typename Each>
void forEachState(const HangInput& input, Each each) {
  std::map<int, const proto::RankQueues*> byRank;
  for (const auto& q : input.ranks)
    if (q.error.empty()) byRank[q.worldRank] = &q;
  for (const auto& q : input.ranks) {
    if (!q.error.empty()) continue;
    for (const auto& c : q.comms) {
      proto::CommState s = c.state;
      s.worldRank = q.worldRank;
      if (isInter(c, q.worldRank)) bothGroups(s, q.worldRank, c, byRank);
      each(q.worldRank, c, std::move(s));
    }
  }
}

}  // namespace

std::map<int, std::vector<proto::CommState>> commStatesOf(const HangInput& input) {
  std::map<int, std::vector<proto::CommState>> states;
  for (const auto& q : input.ranks)
    if (q.error.empty()) states[q.worldRank];  // a rank without communicators answered too
  forEachState(input, [&](int rank, const proto::CommQueues&, proto::CommState s) {
    states[rank].push_back(std::move(s));
  });
  return states;
}

PendingCollectives pendingCollectivesOf(const HangInput& input) {
  PendingCollectives out;
  forEachState(input, [&](int rank, const proto::CommQueues& c, const proto::CommState& s) {
    for (const auto& op : c.collectives)
      if (!op.blocking) out[rank][proto::identityOf(s)].push_back(op);
  });
  return out;
}

}  // namespace mpidbg::core
