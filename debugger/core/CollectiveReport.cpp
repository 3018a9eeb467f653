#include "debugger/core/CollectiveReport.hpp"

#include <cstdio>
#include <tuple>

#include "debugger/core/Grouping.hpp"

namespace mpidbg::core {

namespace proto = ccs::proto;

namespace {

using CommKey = std::tuple<std::int32_t, std::uint64_t, std::int32_t>;  // root, handle, size

struct Communicator {
  std::string name;
  std::uint64_t handle = 0;
  std::int32_t size = 0;
  std::map<int, proto::CommState> members;  // by world rank
};

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string calls(std::uint64_t n) { return std::to_string(n) + (n == 1 ? " call" : " calls"); }

/// What a member not inside class `c` is doing, seen from communicator `comm`.
std::string doingInstead(const Communicator& comm, const proto::CommState& state,
                         const RankView* view, std::chrono::milliseconds blockedAfter) {
  for (std::size_t other = 0; other < proto::kCollClassCount; ++other) {
    if (!state.active[other]) continue;
    return "is in call " + std::to_string(state.counts[other]) + " to " +
           std::string(proto::collName(static_cast<proto::CollClass>(other))) + " on " + comm.name;
  }
  if (view == nullptr) return "is in an unknown state";
  return "is " + describeRankState(*view, blockedAfter);
}

}  // namespace

std::string renderCollectives(const std::vector<RankView>& views,
                              const std::map<int, std::vector<proto::CommState>>& states,
                              std::chrono::milliseconds blockedAfter) {
  std::map<int, const RankView*> viewByRank;
  for (const auto& v : views) viewByRank[v.info.rank] = &v;

  std::map<CommKey, Communicator> comms;
  for (const auto& [rank, list] : states) {
    for (const auto& s : list) {
      if (s.size <= 1) continue;
      auto& comm = comms[CommKey{s.rootWorldRank, s.handle, s.size}];
      comm.name = s.name;
      comm.handle = s.handle;
      comm.size = s.size;
      comm.members[rank] = s;
    }
  }

  std::string out;
  int quiet = 0;
  for (const auto& [key, comm] : comms) {
    std::string body;
    for (std::size_t c = 0; c < proto::kCollClassCount; ++c) {
      const std::string cname(proto::collName(static_cast<proto::CollClass>(c)));
      std::map<int, std::string> inside, others;
      for (const auto& [rank, s] : comm.members) {
        if (s.active[c]) {
          inside[rank] = "in call " + std::to_string(s.counts[c]) + " to " + cname;
        } else {
          const auto it = viewByRank.find(rank);
          others[rank] = "has made " + calls(s.counts[c]) + " to " + cname + " and " +
                         doingInstead(comm, s, it == viewByRank.end() ? nullptr : it->second,
                                      blockedAfter);
        }
      }
      if (inside.empty()) continue;
      for (const auto& g : groupByText(inside))
        body += "  " + (g.ranks.size() == 1 ? "Rank " + std::to_string(g.ranks.first()) + " is "
                                             : "Ranks " + g.ranks.toString() + " are ") +
                g.text + ".\n";
      for (const auto& g : groupByText(others)) {
        // The texts are written for one rank ("has made ... and is ..."):
        // several ranks "have made ... and are ...".
        std::string text = g.text;
        if (g.ranks.size() > 1) {
          if (text.starts_with("has ")) text.replace(0, 3, "have");
          if (const std::size_t is = text.find(" and is "); is != std::string::npos) text.replace(is, 8, " and are ");
        }
        body += "  " + (g.ranks.size() == 1 ? "Rank " + std::to_string(g.ranks.first())
                                             : "Ranks " + g.ranks.toString()) +
                " " + text + ".\n";
      }
    }
    if (body.empty()) {
      ++quiet;
      continue;
    }
    out += "Communicator " + comm.name + " (handle " + hex(comm.handle) + ", size " +
           std::to_string(comm.size) + "):\n" + body;
    if (static_cast<std::int32_t>(comm.members.size()) < comm.size) {
      RankSet silent;
      if (comm.name == "MPI_COMM_WORLD")
        for (int r = 0; r < comm.size; ++r)
          if (!comm.members.count(r)) silent.insert(r);
      out += "  " + std::to_string(comm.size - static_cast<int>(comm.members.size())) + " of " +
             std::to_string(comm.size) + " members did not report" +
             (silent.empty() ? std::string() : " (" + describeRanks(silent) + ")") + ".\n";
    }
  }
  if (comms.empty() || quiet == static_cast<int>(comms.size())) {
    out += "No collective is in progress on any communicator";
    out += states.empty() ? " (no rank answered).\n" : ".\n";
  } else if (quiet > 0) {
    out += std::to_string(quiet) + " other communicator" + (quiet == 1 ? " has" : "s have") +
           " no collective in progress.\n";
  }
  return out;
}

}  // namespace mpidbg::core
