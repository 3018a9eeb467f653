#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ccs/transport/Endpoint.hpp"
#include "mpidbg/ScopedFd.hpp"
#include "debugger/core/Job.hpp"
#include "debugger/core/Launcher.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// Where the hub listens and the address ranks are told to connect to
/// (MPIDBG_FRONTEND); they differ only for a wildcard bind.
struct HubAddress {
  std::string bind;       ///< dotted IPv4 address the listener binds
  std::string advertise;  ///< dotted IPv4 address ranks connect to
};

/// Resolves mpidbg's --listen value: "" or "loopback" (127.0.0.1, the
/// default: ranks on this host only); "host" (ccs::thisHostAddress, for ranks
/// on other hosts); "any" (bind 0.0.0.0, advertise this host's address); or
/// an IPv4 address or host name (bound and advertised as resolved).
/// Errors: the name does not resolve, or this host has no address other
/// hosts reach ("host", "any").
Expected<HubAddress> resolveHubAddress(const std::string& spec);

/// The rendezvous listener and every rank's event channel, served by one
/// background thread. Protocol (ccs/proto/RankProtocol.hpp): on accept the hub
/// sends a 32-byte random challenge; the rank answers with a plain CCS frame
/// `mpidbg/register` whose record carries an HMAC-SHA256 (session key) over the
/// challenge and the record; later frames are `mpidbg/event`. A connection
/// with a bad MAC or a malformed frame is logged and closed; the job carries
/// on. The thread also reaps the launcher and records its exit in the Job.
class EventHub {
 public:
  /// Binds `address.bind` on an ephemeral port and starts the thread; ranks
  /// are to connect to `address.advertise` (endpoint()). `log` receives one
  /// line per rejected connection. Errors: an address that is not dotted
  /// IPv4, or the bind fails (the message names the address).
  static Expected<std::unique_ptr<EventHub>> start(const HubAddress& address,
                                                   std::vector<std::uint8_t> key, Job& job,
                                                   std::function<void(const std::string&)> log);
  /// Stops the thread and closes every channel (ranks then resume by themselves).
  ~EventHub();
  EventHub(const EventHub&) = delete;
  EventHub& operator=(const EventHub&) = delete;

  /// Address ranks connect to (MPIDBG_FRONTEND).
  ccs::Endpoint endpoint() const { return endpoint_; }
  /// Lets the thread reap `launcher` (which must outlive the hub or be
  /// detached with nullptr first).
  void setLauncher(Launcher* launcher);

 private:
  EventHub(Job& job) : job_(job) {}
  void run();
  struct Channel;
  Job& job_;
  std::vector<std::uint8_t> key_;
  std::function<void(const std::string&)> log_;
  ccs::Endpoint endpoint_;
  ScopedFd listener_;
  ScopedFd wakeRead_, wakeWrite_;
  std::atomic<Launcher*> launcher_{nullptr};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace mpidbg::core
