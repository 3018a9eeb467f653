#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ccs/transport/Connection.hpp"
#include "ccs/transport/Endpoint.hpp"
#include "ccs/transport/Frame.hpp"
#include "ccs/transport/Security.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// Persistent Connections to other nodes, cached per endpoint and reopened
/// when broken (internal to ccs/Forwarder). Thread-safe: a connection is used
/// by one caller at a time (checked out for the call, returned after it), so
/// concurrent calls to one endpoint open more connections.
class ConnectionCache {
 public:
  /// `connectTimeout` bounds each open (further capped by the call's time).
  ConnectionCache(Security security, std::chrono::milliseconds connectTimeout);

  /// Sends `request` to `endpoint` and returns its reply, all within
  /// `timeout`. When a cached connection fails (e.g. the peer restarted) and
  /// time is left, the call is retried once on a fresh connection; a fresh
  /// connection's failure is final. Errors name the endpoint and the cause.
  Expected<std::vector<std::uint8_t>> call(const Endpoint& endpoint, const Request& request,
                                           std::chrono::milliseconds timeout);

  /// Closes every idle connection.
  void clear();

 private:
  /// Most idle connections kept per endpoint.
  static constexpr std::size_t kMaxIdlePerEndpoint = 8;

  std::unique_ptr<Connection> takeIdle(const std::string& key);
  void giveBack(const std::string& key, std::unique_ptr<Connection> connection);

  Security security_;
  std::chrono::milliseconds connectTimeout_;
  std::mutex mutex_;
  std::map<std::string, std::vector<std::unique_ptr<Connection>>> idle_;
};

}  // namespace mpidbg::ccs
