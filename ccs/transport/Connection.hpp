#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ccs/transport/Endpoint.hpp"
#include "ccs/transport/Frame.hpp"
#include "ccs/transport/Security.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// A persistent client connection to a CCS server in mpidbg's mode: many
/// requests on one connection, each answered in order, protected by TLS 1.3
/// with the session key (or plain, when explicitly chosen). Not thread-safe:
/// one thread uses a Connection at a time.
class Connection {
 public:
  /// Connects (and completes the TLS handshake) within `timeout`. Errors name
  /// the endpoint and cause: refused, timed out, TLS handshake failed (e.g.
  /// the server has another key).
  static Expected<std::unique_ptr<Connection>> open(const Endpoint& server, const Security& security,
                                                    std::chrono::milliseconds timeout);
  virtual ~Connection() = default;

  /// Sends one request and returns its reply data, within `timeout`. After an
  /// error the connection is broken (every later call fails at once).
  virtual Expected<std::vector<std::uint8_t>> call(const Request& request,
                                                   std::chrono::milliseconds timeout) = 0;

  /// Sends every request, then reads the replies in order (pipelining).
  /// Returns one entry per request; after a transport error the remaining
  /// entries carry that error.
  virtual std::vector<Expected<std::vector<std::uint8_t>>> callMany(
      std::span<const Request> requests, std::chrono::milliseconds timeout) = 0;

  /// True after a transport error or a close by the server.
  virtual bool broken() const = 0;

  /// The server this connection talks to.
  virtual const Endpoint& endpoint() const = 0;

  /// Before sleeping until a reply arrives, polls the socket without
  /// sleeping for up to `spin` (0, the default: sleep at once). A reply
  /// that comes within it is read without waking the thread from sleep,
  /// which on an idle virtual CPU costs tens of microseconds; the price is
  /// up to `spin` of CPU per wait. For callers that wait on one connection
  /// and have nothing else to run.
  virtual void setReplySpin(std::chrono::microseconds spin) = 0;
};

}  // namespace mpidbg::ccs
