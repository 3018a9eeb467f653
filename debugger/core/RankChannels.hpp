#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "ccs/transport/Connection.hpp"
#include "ccs/tree/Forwarder.hpp"
#include "ccs/transport/Security.hpp"
#include "debugger/core/Job.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// The front end's persistent CCS connections to the ranks' runtimes (TLS
/// with the session key by default; ../shared/protocols/ccs.md "mpidbg's own
/// mode"): one per rank, opened on first use, reopened after a failure.
/// Thread-safe: queries to different ranks run in parallel.
///
/// Where one thread waits for one reply (call(), forward(), a query with one
/// worker), the wait first polls for up to kReplySpin without sleeping
/// (Connection::setReplySpin): a request to one rank then costs about 30 µs
/// of loopback round trip instead of 70 on an idle machine (ccs_bench (d)
/// against (b)), for at most 50 µs of front-end CPU per request. Parallel
/// workers never spin: they would take the CPUs the ranks need.
class RankChannels {
 public:
  /// How long a lone waiter polls for its reply before it sleeps.
  static constexpr std::chrono::microseconds kReplySpin{50};

  explicit RankChannels(ccs::Security security) : security_(std::move(security)) {}

  /// Sends `handler` with `data` to each rank of `ranks` (at most `parallel`
  /// at a time) and collects the replies by rank. A rank that refuses, times
  /// out or closes gets an Error entry; the others are unaffected.
  std::map<int, Expected<std::vector<std::uint8_t>>> query(const std::vector<RankInfo>& ranks,
                                                           std::string_view handler,
                                                           const std::vector<std::uint8_t>& data,
                                                           std::chrono::milliseconds timeout,
                                                           std::size_t parallel = 16);

  /// One request to one rank.
  Expected<std::vector<std::uint8_t>> call(const RankInfo& rank, std::string_view handler,
                                           const std::vector<std::uint8_t>& data,
                                           std::chrono::milliseconds timeout);

  /// Sends `request` (an mpidbg/forward envelope whose table starts with
  /// `gateway`) over the gateway's connection and decodes the merged reply:
  /// one request and one reply for many ranks (ccs/tree/Forwarder.hpp). Errors:
  /// the gateway could not be reached or sent a malformed envelope.
  Expected<ccs::ForwardReply> forward(const RankInfo& gateway, const ccs::ForwardRequest& request);

  /// Closes every connection.
  void clear();

  const ccs::Security& security() const { return security_; }

 private:
  /// Takes the rank's idle connection (opening one if needed); the caller
  /// gives it back with giveBack when it is still usable.
  Expected<std::unique_ptr<ccs::Connection>> take(const RankInfo& rank, std::chrono::milliseconds timeout);
  void giveBack(int rank, std::unique_ptr<ccs::Connection> connection);
  /// call() with the connection's reply spin set to `spin`.
  Expected<std::vector<std::uint8_t>> callSpinning(const RankInfo& rank, std::string_view handler,
                                                   const std::vector<std::uint8_t>& data,
                                                   std::chrono::milliseconds timeout, std::chrono::microseconds spin);

  ccs::Security security_;
  std::mutex mutex_;
  std::map<int, std::unique_ptr<ccs::Connection>> idle_;
};

}  // namespace mpidbg::core
