#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "ccs/transport/Endpoint.hpp"
#include "ccs/transport/Frame.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// Plain CCS client, Charm++'s connection-per-request mode: connect, send one
/// request, read one reply, close.
class Client {
 public:
  /// Sends `request` to `server` and returns the reply data. The whole call
  /// (connect, send, receive) is bounded by `timeout`. Errors name the
  /// endpoint and the cause: connection refused, timed out, peer closed
  /// before a reply (a bare close is also how Charm++ answers a rejected
  /// zero-length request; it is reported as an error here), malformed reply.
  /// `spin` > 0: every wait (the connect, the reply) first polls without
  /// sleeping for up to `spin` (as Connection::setReplySpin).
  static Expected<std::vector<std::uint8_t>> call(const Endpoint& server, const Request& request,
                                                  std::chrono::milliseconds timeout,
                                                  std::chrono::microseconds spin = {});

  /// Sends `request` and does not wait for a reply (for handlers such as
  /// Charm++'s debug/converse/freeze that never answer).
  static Expected<void> send(const Endpoint& server, const Request& request,
                             std::chrono::milliseconds timeout);
};

}  // namespace mpidbg::ccs
