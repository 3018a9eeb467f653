// RuntimeRanks: the mpidbg ranks' runtimes over CCS, through the forwarding
// tree or rank by rank (RankBackend.hpp).
#include "debugger/core/RankBackend.hpp"

#include "ccs/tree/Forwarder.hpp"
#include "debugger/core/RankChannels.hpp"

namespace mpidbg::core {

Gathered RuntimeRanks::gather(const std::vector<RankInfo>& targets, std::string_view handler,
                              const std::vector<std::uint8_t>& data) {
  Gathered out;
  RankChannels* channels = channels_();
  if (!channels || targets.empty()) return out;
  const RouteSettings settings = settings_();
  std::string treeFailure;
  if (settings.useTree && targets.size() > 1) {
    ccs::ForwardRequest request;
    request.deadline = settings.requestTimeout;
    request.fanOut = settings.fanOut;
    request.inner.pe = ccs::kBroadcastPe;
    request.inner.handler = std::string(handler);
    request.inner.data = data;
    for (const auto& info : targets)  // sorted by rank: the lowest is the gateway
      request.table.push_back(ccs::PeerEntry{info.rank, info.endpoint.host, info.endpoint.port});
    auto reply = channels->forward(targets.front(), request);
    if (reply && !reply->error) {
      out.payload = std::move(reply->payload);
      for (const auto& m : reply->missing) out.missing[m.pe] = m.reason;
      return out;
    }
    treeFailure = reply ? *reply->error : reply.error().message;
  }
  for (auto& [rank, reply] : channels->query(targets, handler, data, settings.requestTimeout)) {
    if (reply) out.byRank[rank] = std::move(*reply);
    else out.missing[rank] = reply.error().message;
  }
  // A gateway that does not answer directly either has ended or is ending
  // (the job finishing): its own entry in `missing` says so, and the tree's
  // failure is no news. Otherwise the tree failed on its own: said.
  if (!treeFailure.empty() && !out.missing.count(targets.front().rank))
    notify_("forwarding tree failed (" + treeFailure + "); asked each rank directly");
  return out;
}

std::map<int, Expected<std::vector<std::uint8_t>>> RuntimeRanks::each(const std::vector<RankInfo>& targets,
                                                                      std::string_view handler,
                                                                      const std::vector<std::uint8_t>& data) {
  RankChannels* channels = channels_();
  if (!channels) {
    std::map<int, Expected<std::vector<std::uint8_t>>> out;
    for (const auto& info : targets) out.emplace(info.rank, fail("no job"));
    return out;
  }
  return channels->query(targets, handler, data, settings_().requestTimeout);
}

std::map<int, Expected<void>> RuntimeRanks::post(const std::vector<RankInfo>& targets, std::string_view handler,
                                                 const std::vector<std::uint8_t>& data) {
  std::map<int, Expected<void>> out;
  for (auto& [rank, reply] : each(targets, handler, data)) {
    if (reply) out.emplace(rank, Expected<void>{});
    else out.emplace(rank, std::unexpected(std::move(reply.error())));
  }
  return out;
}

std::map<int, std::string> RuntimeRanks::endedMeanwhile(const std::map<int, std::string>& missing) {
  std::map<int, std::string> ended;
  if (missing.empty()) return ended;
  auto look = [&] {
    ended.clear();
    for (const auto& [rank, why] : missing)
      if (auto info = job_.rank(rank); info && info->ended()) ended[rank] = info->endedPhrase();
    return ended.size() == missing.size();
  };
  // waitUntil asks `look` last after its last wait, so `ended` is current.
  job_.waitUntil(look, std::chrono::milliseconds(1000), {});
  return ended;
}

}  // namespace mpidbg::core
