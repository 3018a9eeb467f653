#include "CollSkipChecks.hpp"

#include <sstream>

namespace mpidbg::bench {
namespace proto = ccs::proto;
namespace {

/// "[0-14]" for n = 16 (the ranks in MPI_Allreduce), "[0]" for n = 2.
std::string othersText(long n) { return n == 2 ? "[0]" : "[0-" + std::to_string(n - 2) + "]"; }

/// The first rank of `views` without a status, with the reason; "" if none.
std::string firstUnanswered(const std::vector<core::RankView>& views, long n) {
  if (static_cast<long>(views.size()) != n)
    return std::to_string(views.size()) + " ranks known, " + std::to_string(n) + " launched";
  for (const auto& v : views)
    if (!v.status)
      return "rank " + std::to_string(v.info.rank) +
             " did not answer: " + (v.queryError.empty() ? v.info.describeEnd() : v.queryError);
  return "";
}

}  // namespace

std::string checkFrozen(const std::vector<core::RankView>& views, long n) {
  if (auto missing = firstUnanswered(views, n); !missing.empty()) return missing;
  for (const auto& v : views)
    if (v.status->state != proto::RankState::Frozen)
      return "rank " + std::to_string(v.info.rank) + " is " +
             std::string(proto::stateName(v.status->state)) + ", not frozen at MPI_Init";
  return "";
}

std::string checkBlocked(const std::vector<core::RankView>& views, long n) {
  if (auto missing = firstUnanswered(views, n); !missing.empty()) return missing;
  for (const auto& v : views) {
    const std::string expected = v.info.rank == n - 1 ? "MPI_Recv" : "MPI_Allreduce";
    const auto& s = *v.status;
    if (s.state != proto::RankState::InMpi || !s.call || s.call->function != expected)
      return "rank " + std::to_string(v.info.rank) + " is " +
             std::string(proto::stateName(s.state)) +
             (s.call ? " in " + s.call->function : std::string()) + ", expected in " + expected;
  }
  return "";
}

std::string checkCollectives(const core::HangInput& input,
                             const std::map<int, std::vector<proto::CommState>>& states, long n) {
  if (!input.unreadable.empty())
    return "rank " + std::to_string(input.unreadable.begin()->first) +
           " unreadable: " + input.unreadable.begin()->second;
  if (!input.ended.empty()) return "rank " + std::to_string(input.ended.begin()->first) + " ended";
  for (const auto& q : input.ranks)
    if (!q.error.empty()) return "rank " + std::to_string(q.worldRank) + ": " + q.error;
  if (static_cast<long>(states.size()) != n)
    return "collective state of " + std::to_string(states.size()) + " of " + std::to_string(n) +
           " ranks";
  const auto allreduce = static_cast<std::size_t>(proto::CollClass::Allreduce);
  for (const auto& [rank, list] : states) {
    const proto::CommState* world = nullptr;
    for (const auto& c : list)
      if (c.name == "MPI_COMM_WORLD" || (!world && c.size == n && c.rootWorldRank == 0)) world = &c;
    if (!world) return "rank " + std::to_string(rank) + " reports no world communicator";
    const bool last = rank == n - 1;
    if (last ? (world->counts[allreduce] != 0 || world->active[allreduce])
             : (world->counts[allreduce] != 1 || !world->active[allreduce]))
      return "rank " + std::to_string(rank) + " has " + std::to_string(world->counts[allreduce]) +
             " MPI_Allreduce calls" + (world->active[allreduce] ? " (one active)" : "") +
             (last ? ", expected none" : ", expected to be inside call 1");
  }
  return "";
}

std::string checkWhere(const std::string& leaves, long n, std::size_t viaGdb, std::size_t failed) {
  if (viaGdb || failed)
    return std::to_string(viaGdb) + " ranks read through gdb, " + std::to_string(failed) +
           " not read: the runtimes did not all answer";
  std::map<std::string, std::string> ranksByLeaf;
  std::istringstream in(leaves);
  for (std::string line; std::getline(in, line);) {
    const auto split = line.rfind("  [");
    if (split == std::string::npos) continue;
    const std::string path = line.substr(0, split);
    const auto arrow = path.rfind(" > ");
    ranksByLeaf[arrow == std::string::npos ? path : path.substr(arrow + 3)] =
        line.substr(split + 2);
  }
  if (ranksByLeaf["MPI_Allreduce"] != othersText(n) ||
      ranksByLeaf["MPI_Recv"] != "[" + std::to_string(n - 1) + "]")
    return "unexpected leaves:\n" + leaves;
  return "";
}

}  // namespace mpidbg::bench
