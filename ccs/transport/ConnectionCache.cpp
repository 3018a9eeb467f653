// Cached persistent connections for the forwarding layer.
#include "ccs/transport/ConnectionCache.hpp"

#include <algorithm>

#include "mpidbg/Deadline.hpp"

namespace mpidbg::ccs {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

ConnectionCache::ConnectionCache(Security security, std::chrono::milliseconds connectTimeout)
    : security_(std::move(security)), connectTimeout_(connectTimeout) {}

std::unique_ptr<Connection> ConnectionCache::takeIdle(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto found = idle_.find(key);
  if (found == idle_.end()) return nullptr;
  auto& list = found->second;
  while (!list.empty()) {
    auto connection = std::move(list.back());
    list.pop_back();
    if (!connection->broken()) return connection;
  }
  return nullptr;
}

void ConnectionCache::giveBack(const std::string& key, std::unique_ptr<Connection> connection) {
  if (!connection || connection->broken()) return;
  std::lock_guard lock(mutex_);
  auto& list = idle_[key];
  if (list.size() < kMaxIdlePerEndpoint) list.push_back(std::move(connection));
}

Expected<std::vector<std::uint8_t>> ConnectionCache::call(const Endpoint& endpoint,
                                                          const Request& request,
                                                          std::chrono::milliseconds timeout) {
  Clock::time_point until = Clock::now() + timeout;
  std::string key = endpoint.toString();
  if (auto cached = takeIdle(key)) {
    auto reply = cached->call(request, timeLeft(until));
    if (reply) {
      giveBack(key, std::move(cached));
      return reply;
    }
    if (timeLeft(until).count() <= 0) return reply;
    // Fall through: the cached connection was stale; retry on a fresh one.
  }
  auto remaining = timeLeft(until);
  if (remaining.count() <= 0) return fail("no time left to connect to " + key);
  auto opened = Connection::open(endpoint, security_, std::min(connectTimeout_, remaining));
  if (!opened) return std::unexpected(opened.error());
  auto reply = (*opened)->call(request, timeLeft(until));
  if (reply) giveBack(key, std::move(*opened));
  return reply;
}

void ConnectionCache::clear() {
  std::lock_guard lock(mutex_);
  idle_.clear();
}

}  // namespace mpidbg::ccs
