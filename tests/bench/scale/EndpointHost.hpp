#pragma once

// The emulated ranks of scale_bench's synthetic mode: in one process, many
// lightweight runtime endpoints, each a real TLS CCS server with the
// runtime's forwarder and merge table, answering mpidbg/status with a record
// encoded like the runtime's (ccs/proto/RankProtocol.hpp). The emulation mode STAT
// uses to test scale without a big machine.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ccs/tree/Forwarder.hpp"
#include "ccs/transport/Security.hpp"
#include "ccs/transport/Server.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::bench {

/// What one host process emulates.
struct HostOptions {
  std::int32_t firstRank = 0;             ///< world rank of the first endpoint
  std::int32_t count = 0;                 ///< endpoints in this process
  std::int32_t worldSize = 0;             ///< ranks of the whole emulated job
  std::string bindAddress = "127.0.0.1";  ///< every endpoint of the host listens here
  ccs::Security security;                 ///< the session's mode and key
  /// 0: one thread per endpoint blocked in pollOnce, as each rank's runtime
  /// has its helper thread. N > 0: N threads each sweep pollOnce(0) over
  /// their share of the endpoints (ccs::Server offers no way to wait on many
  /// servers at once), spinning while `active` is non-zero and sleeping 1 ms
  /// between checks otherwise.
  std::size_t pollers = 0;
  /// Set by the front end while it has requests in flight (sweep mode only);
  /// may live in memory shared between processes. Not owned.
  const std::atomic<int>* active = nullptr;
};

/// The status record rank `rank` of `worldSize` answers: as in
/// examples/hangs/coll_skip, ranks 0..worldSize-2 inside call 1 to
/// MPI_Allreduce on MPI_COMM_WORLD, the last inside MPI_Recv(source=0,
/// tag=42), for 5 s. Encoded with ccs::proto::encode(RankStatus) and ended
/// with the record separator, as runtime/Handlers.cpp answers.
std::string emulatedStatus(std::int32_t rank, std::int32_t worldSize);

/// The endpoints of one host process and the threads polling them.
class EndpointHost {
 public:
  /// Creates every endpoint (server bound to an ephemeral port of
  /// bindAddress, status handler, forwarder as the runtime installs it:
  /// Concatenate for mpidbg/status, fan-out + 1 workers) and starts polling.
  /// Errors: a server or forwarder could not be created (e.g. out of file
  /// descriptors or ports), a thread could not be started.
  static Expected<std::unique_ptr<EndpointHost>> start(HostOptions options);
  /// Stops the pollers, then destroys forwarders and servers.
  ~EndpointHost();
  EndpointHost(const EndpointHost&) = delete;
  EndpointHost& operator=(const EndpointHost&) = delete;

  /// The endpoints as the front end's PE table lists them, by rank.
  std::vector<ccs::PeerEntry> peers() const;

 private:
  explicit EndpointHost(HostOptions options) : options_(std::move(options)) {}
  void startPollers();

  struct Endpoint {
    std::unique_ptr<ccs::Server> server;
    std::unique_ptr<ccs::Forwarder> forwarder;
  };
  HostOptions options_;
  std::vector<Endpoint> endpoints_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace mpidbg::bench
