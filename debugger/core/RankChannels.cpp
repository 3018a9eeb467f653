#include "debugger/core/RankChannels.hpp"

#include <atomic>
#include <thread>

namespace mpidbg::core {

Expected<std::unique_ptr<ccs::Connection>> RankChannels::take(const RankInfo& rank,
                                                              std::chrono::milliseconds timeout) {
  {
    std::lock_guard lock(mutex_);
    auto it = idle_.find(rank.rank);
    if (it != idle_.end()) {
      auto connection = std::move(it->second);
      idle_.erase(it);
      if (!connection->broken() && connection->endpoint().port == rank.endpoint.port) return connection;
    }
  }
  return ccs::Connection::open(rank.endpoint, security_, timeout);
}

void RankChannels::giveBack(int rank, std::unique_ptr<ccs::Connection> connection) {
  if (!connection || connection->broken()) return;
  std::lock_guard lock(mutex_);
  idle_[rank] = std::move(connection);
}

Expected<std::vector<std::uint8_t>> RankChannels::call(const RankInfo& rank, std::string_view handler,
                                                       const std::vector<std::uint8_t>& data,
                                                       std::chrono::milliseconds timeout) {
  return callSpinning(rank, handler, data, timeout, kReplySpin);
}

Expected<std::vector<std::uint8_t>> RankChannels::callSpinning(const RankInfo& rank, std::string_view handler,
                                                               const std::vector<std::uint8_t>& data,
                                                               std::chrono::milliseconds timeout,
                                                               std::chrono::microseconds spin) {
  auto connection = take(rank, timeout);
  if (!connection) return std::unexpected(connection.error());
  (*connection)->setReplySpin(spin);
  ccs::Request request;
  request.pe = rank.rank;
  request.handler = std::string(handler);
  request.data = data;
  auto reply = (*connection)->call(request, timeout);
  giveBack(rank.rank, std::move(*connection));
  return reply;
}

std::map<int, Expected<std::vector<std::uint8_t>>> RankChannels::query(
    const std::vector<RankInfo>& ranks, std::string_view handler, const std::vector<std::uint8_t>& data,
    std::chrono::milliseconds timeout, std::size_t parallel) {
  std::map<int, Expected<std::vector<std::uint8_t>>> replies;
  std::mutex repliesMutex;
  std::atomic<std::size_t> next{0};
  const std::size_t n = std::min(parallel == 0 ? 1 : parallel, ranks.size());
  const std::chrono::microseconds spin = n <= 1 ? kReplySpin : std::chrono::microseconds{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < ranks.size(); i = next++) {
      auto reply = callSpinning(ranks[i], handler, data, timeout, spin);
      std::lock_guard lock(repliesMutex);
      replies.emplace(ranks[i].rank, std::move(reply));
    }
  };
  if (n <= 1) {
    worker();
    return replies;
  }
  std::vector<std::thread> workers;
  for (std::size_t i = 0; i < n; ++i) workers.emplace_back(worker);
  for (auto& t : workers) t.join();
  return replies;
}

Expected<ccs::ForwardReply> RankChannels::forward(const RankInfo& gateway,
                                                  const ccs::ForwardRequest& request) {
  auto connection = take(gateway, request.deadline);
  if (!connection) return std::unexpected(connection.error());
  (*connection)->setReplySpin(kReplySpin);
  auto reply = ccs::callForward(**connection, request);
  giveBack(gateway.rank, std::move(*connection));
  return reply;
}

void RankChannels::clear() {
  std::lock_guard lock(mutex_);
  idle_.clear();
}

}  // namespace mpidbg::core
