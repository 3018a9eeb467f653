#pragma once

// Blocking exchanges with a total deadline, shared by the connection-per-request
// clients (ccs/transport/Client.cpp: Charm++'s plain mode; ccs/transport/CharmAuthClient.cpp: its
// SHA-1 mode). Internal to the ccs library.

#include <chrono>
#include <cstdint>
#include <span>
#include <string>

#include "ccs/transport/Endpoint.hpp"
#include "mpidbg/Error.hpp"
#include "mpidbg/ScopedFd.hpp"

namespace mpidbg::ccs::detail {

/// The deadline of one blocking exchange and the peer its errors name.
struct Deadline {
  using Clock = std::chrono::steady_clock;
  std::string peer;
  Clock::time_point end;
  std::chrono::milliseconds timeout;
  /// wait() first polls without sleeping for up to this long (0: sleeps at
  /// once; see Connection::setReplySpin).
  std::chrono::microseconds spin{0};

  /// A deadline `timeout` from now for talking to `server`.
  static Deadline after(const Endpoint& server, std::chrono::milliseconds timeout) {
    return Deadline{server.toString(), Clock::now() + timeout, timeout, {}};
  }
  /// Milliseconds left for poll(), at least 0.
  int remainingMs() const;
  /// Waits until `fd` reports `events`: revents, 0 on timeout, -1 (errno set) on error.
  int wait(int fd, short events) const;
  /// "timed out after N ms WHAT PEER".
  std::unexpected<Error> timedOut(const std::string& what) const;
};

/// Polls `fd` for `events` without sleeping until it is ready or `until` has
/// passed (at least once): revents, or 0 when it was not ready in time (or
/// poll failed; the sleeping wait that follows reports that). The reply
/// spin of Deadline::wait and Connection::setReplySpin.
int pollWithoutSleeping(int fd, short events, std::chrono::steady_clock::time_point until);

/// Connects to `server` (an IPv4 literal directly, else through the resolver)
/// with a non-blocking connect bounded by `deadline`. Errors: "cannot connect
/// to PEER: <reason>", or timed out.
Expected<ScopedFd> connectTo(const Endpoint& server, const Deadline& deadline);

/// Sends every byte of `bytes` on the non-blocking `fd` (MSG_NOSIGNAL) within
/// `deadline`. Errors: "cannot send to PEER: <reason>", or timed out.
Expected<void> sendAll(int fd, std::span<const std::uint8_t> bytes, const Deadline& deadline);

}  // namespace mpidbg::ccs::detail
