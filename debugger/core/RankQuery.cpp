#include "debugger/core/RankQuery.hpp"

#include <atomic>
#include <mutex>
#include <thread>

#include "ccs/Client.hpp"

namespace mpidbg::core {

std::map<int, Expected<std::vector<std::uint8_t>>> queryRanks(
    const std::vector<RankInfo>& ranks, std::string_view handler,
    std::chrono::milliseconds timeout, std::size_t parallel) {
  std::map<int, Expected<std::vector<std::uint8_t>>> replies;
  std::mutex mutex;
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < ranks.size(); i = next++) {
      ccs::Request request;
      request.pe = ranks[i].rank;
      request.handler = std::string(handler);
      auto reply = ccs::Client::call(ranks[i].endpoint, request, timeout);
      std::lock_guard lock(mutex);
      replies.emplace(ranks[i].rank, std::move(reply));
    }
  };
  std::vector<std::thread> workers;
  const std::size_t n = std::min(parallel == 0 ? 1 : parallel, ranks.size());
  for (std::size_t i = 0; i < n; ++i) workers.emplace_back(worker);
  for (auto& t : workers) t.join();
  return replies;
}

}  // namespace mpidbg::core
