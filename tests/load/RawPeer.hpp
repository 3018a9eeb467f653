#pragma once

// Raw TCP for peers no CCS client would be: half headers, garbage, requests
// whose replies are never read. Blocking helpers with explicit bounds.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>

#include "ccs/transport/Endpoint.hpp"
#include "mpidbg/Error.hpp"
#include "mpidbg/ScopedFd.hpp"

namespace mpidbg::load {

/// Opens a non-blocking TCP connection to `server` (resolved with
/// getaddrinfo) within `timeout`. Errors: cannot resolve, refused, timed out.
Expected<ScopedFd> connectRaw(const ccs::Endpoint& server, std::chrono::milliseconds timeout);

/// How one non-blocking send ended.
struct SendResult {
  /// Bytes the socket took (0 when its buffer is full).
  std::size_t bytes = 0;
  /// The server closed or reset the connection (EPIPE, ECONNRESET).
  bool peerClosed = false;
};

/// Sends what the socket takes of `bytes` now, without blocking and without
/// SIGPIPE.
SendResult sendSome(int fd, std::span<const std::uint8_t> bytes);

/// Waits until the server closes `fd` (FIN or reset: POLLRDHUP, POLLHUP,
/// POLLERR; data it sends is not read), `wait` passed, or `stop` became true.
/// True when the server closed it.
bool waitForClose(int fd, std::chrono::milliseconds wait, const std::atomic<bool>& stop);

/// Waits up to `wait` until `fd` can take more bytes. True when it can, or
/// when the server closed it (the next send reports that).
bool waitWritable(int fd, std::chrono::milliseconds wait);

}  // namespace mpidbg::load
