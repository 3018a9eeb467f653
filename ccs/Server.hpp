#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ccs/Endpoint.hpp"
#include "ccs/Frame.hpp"
#include "mpidbg/ScopedFd.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// What a handler returns: reply bytes (possibly empty), std::nullopt for "no
/// reply" (the connection is left open and silent, as Charm++ does for
/// debug/converse/freeze), or an Error (answered with an empty reply and
/// logged).
using HandlerResult = Expected<std::optional<std::vector<std::uint8_t>>>;

/// A request handler. Runs on the server's thread; sees only the parsed
/// Request.
using Handler = std::function<HandlerResult(const Request&)>;

/// Options of a Server.
struct ServerOptions {
  /// Interface to bind; loopback unless an interface is named.
  std::string bindAddress = "127.0.0.1";
  /// 0 picks an ephemeral port.
  std::uint16_t port = 0;
  /// Bound on a request's data (and multicast PE list) bytes.
  std::size_t maxRequestBytes = kDefaultMaxRequestBytes;
  /// A connection that has sent part of a request and then nothing for this
  /// long is closed, so a stalled peer cannot hold the server.
  std::chrono::milliseconds idleTimeout{10000};
  /// This server's own PE number: requests addressed to another PE (or
  /// broadcast/multicast, until forwarding exists) get an empty reply.
  std::int32_t pe = 0;
  /// Keep connections open after a reply (mpidbg's mode) instead of closing
  /// after one request (Charm++'s plain mode).
  bool persistent = false;
  /// Called with one line for each malformed request or handler error.
  std::function<void(const std::string&)> log;
};

/// Non-blocking CCS server: one poll loop, any number of clients, a handler
/// table keyed by handler name. Not thread-safe: drive it from one thread.
class Server {
 public:
  /// Binds and listens. Errors: bad address, port in use.
  static Expected<std::unique_ptr<Server>> create(ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// The bound endpoint (with the real port when 0 was asked for).
  Endpoint endpoint() const;

  /// Registers (or replaces) the handler for `name`. Unknown handlers get an
  /// empty reply, as Charm++ answers them.
  void addHandler(std::string name, Handler handler);

  /// Also watches `fd` in the same poll loop; `onReady` gets the poll revents.
  /// The caller keeps ownership of `fd` and must call unwatch before closing it.
  void watch(int fd, std::function<void(short revents)> onReady);
  /// Stops watching `fd`.
  void unwatch(int fd);

  /// Runs one poll round, waiting at most `timeout` for activity; serves every
  /// ready client. Never throws; errors on one connection close only it.
  void pollOnce(std::chrono::milliseconds timeout);

  /// Number of open client connections (for tests and load checks).
  std::size_t connectionCount() const;

 private:
  explicit Server(ServerOptions options);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mpidbg::ccs
