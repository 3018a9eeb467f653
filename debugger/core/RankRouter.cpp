// RankRouter: which ranks of a request can be asked, why the others cannot,
// and the raw ways of asking (RankRouter.hpp; the typed ask is a template).
#include "debugger/core/RankRouter.hpp"

namespace mpidbg::core {

RankReach RankRouter::reachOf(const RankInfo& info) {
  if (info.ended()) return RankReach::Ended;
  if (info.heldByGdb) return RankReach::HeldByGdb;
  if (info.noRuntime) return RankReach::NoRuntime;
  return RankReach::Reachable;
}

std::string RankRouter::refusal(RankReach reach, const RankInfo& info) {
  switch (reach) {
    case RankReach::Reachable: return {};
    case RankReach::NotRegistered: return "has not registered";
    case RankReach::Ended: return info.endedPhrase();
    case RankReach::HeldByGdb:
      return "is " + std::string(kHeldByGdb) + " (release it with: gdb detach " + std::to_string(info.rank) + ")";
    case RankReach::NoRuntime: return std::string(kNoRuntime);
  }
  return {};
}

RankSort RankRouter::sort(const RankSet& ranks) {
  RankSort out;
  if (ranks.empty()) return out;
  for (auto& info : backend_.processes())
    if (ranks.contains(info.rank)) out.infos.emplace(info.rank, std::move(info));
  for (int rank : ranks) {
    auto it = out.infos.find(rank);
    RankInfo unknown;
    unknown.rank = rank;
    const RankInfo& info = it == out.infos.end() ? unknown : it->second;
    const RankReach reach = it == out.infos.end() ? RankReach::NotRegistered : reachOf(info);
    if (reach == RankReach::Reachable) {
      out.reachable.push_back(info);
      continue;
    }
    out.refused[rank] = reach;
    out.why[rank] = refusal(reach, info);
  }
  return out;
}

std::map<int, Expected<std::vector<std::uint8_t>>> RankRouter::askEach(const RankSet& ranks,
                                                                      std::string_view handler,
                                                                      const std::vector<std::uint8_t>& data) {
  const RankSort sorted = sort(ranks);
  std::map<int, Expected<std::vector<std::uint8_t>>> out;
  for (const auto& [rank, why] : sorted.why) out.emplace(rank, std::unexpected(refusedError(rank, why)));
  if (sorted.reachable.empty()) return out;
  for (auto& [rank, reply] : backend_.each(sorted.reachable, handler, data)) out.emplace(rank, std::move(reply));
  return out;
}

std::pair<std::string, std::map<int, std::string>> RankRouter::collect(const RankSet& ranks,
                                                                       std::string_view handler) {
  const RankSort sorted = sort(ranks);
  if (sorted.reachable.empty()) return {};
  Gathered gathered = backend_.gather(sorted.reachable, handler, {});
  std::string text(textOf(gathered.payload));
  for (const auto& [rank, bytes] : gathered.byRank) text += std::string(textOf(bytes));
  return {std::move(text), std::move(gathered.missing)};
}

}  // namespace mpidbg::core
