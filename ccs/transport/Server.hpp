#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ccs/transport/Endpoint.hpp"
#include "ccs/transport/Frame.hpp"
#include "ccs/transport/Security.hpp"
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

class CharmAuthServerState;

/// A handle to answer one request later, from any thread (the server's poll
/// loop is woken to send it). Move-only. Answering twice is ignored; a
/// Responder destroyed without answering sends an empty reply. Safe to use
/// after the connection closed or the server was destroyed (the reply is then
/// dropped).
class Responder {
 public:
  Responder();
  ~Responder();
  Responder(Responder&&) noexcept;
  Responder& operator=(Responder&&) noexcept;
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  /// Sends `data` as the reply.
  void reply(std::vector<std::uint8_t> data);
  /// Leaves the request unanswered for good (Charm++'s freeze: no reply).
  void noReply();
  /// True until reply() or noReply() was called.
  bool pending() const;

  /// A Responder not tied to a connection: the answer goes to `onAnswer`
  /// (std::nullopt for noReply), called once on the answering thread. For
  /// running a local handler from a forwarding layer (Server::invokeLocal).
  static Responder toCallback(
      std::function<void(std::optional<std::vector<std::uint8_t>>)> onAnswer);

  struct State;  ///< shared with the server; opaque
  explicit Responder(std::shared_ptr<State> state);

 private:
  std::shared_ptr<State> state_;
};

/// A handler that answers later through a Responder.
using AsyncHandler = std::function<void(const Request&, Responder)>;

/// Called for every request that is not for this PE alone (broadcast,
/// multicast, or pe != ServerOptions::pe), instead of the empty reply, so a
/// forwarding layer can route it. Runs on the server's thread.
using RoutingHook = std::function<void(const Request&, Responder)>;

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
  /// after one request (Charm++'s plain mode). With SecurityMode::Tls every
  /// connection is persistent regardless.
  bool persistent = false;
  /// Called with one line for each malformed request or handler error; at
  /// most 20 lines per 10 s, then the number of lines dropped.
  std::function<void(const std::string&)> log;
  /// Charm++'s SHA-1 authenticated mode, for plain-security servers: the key
  /// table and client/salt state shared by every connection (see
  /// ccs/transport/CharmAuthServer.hpp). Streams starting with 0x80 are then served in
  /// that mode; plain streams are refused unless the table allows them (no
  /// level-0 key), as Charm++ does. Null: 0x80 is refused as an unknown mode.
  std::shared_ptr<CharmAuthServerState> charmAuth;
  /// Protection of every connection (plain only when explicitly chosen).
  /// Tls: each client must complete a TLS 1.3 handshake with `key` (32 bytes)
  /// as external PSK under `identity`; others are closed with a log line.
  Security security{SecurityMode::Plain, {}, "mpidbg-session"};
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

  /// Registers (or replaces) an asynchronous handler for `name`.
  void addAsyncHandler(std::string name, AsyncHandler handler);

  /// Also accepts clients on `bindAddress`:`port` (0: ephemeral) in Charm++'s
  /// own way: plain CCS, one request per connection, and Charm++'s SHA-1 mode
  /// when `charmAuth` is set (then plain requests only if its key table
  /// allows them). Same handlers, routing hook and poll loop as the main
  /// listener; requests for another PE go to the routing hook. For serving
  /// Charm++'s clients next to a TLS listener (the runtime's MPIDBG_CHARM).
  /// Returns the bound endpoint. Errors: bad address, port in use.
  Expected<Endpoint> addCharmListener(const std::string& bindAddress, std::uint16_t port,
                                      std::shared_ptr<CharmAuthServerState> charmAuth);

  /// Sets the routing hook (see RoutingHook); none by default.
  void setRoutingHook(RoutingHook hook);

  /// Runs the local handler for `request.handler` as if the request were
  /// addressed to this PE, and answers through `responder` (empty reply for
  /// an unknown handler or a handler error). For the forwarding layer; call
  /// on the server's thread.
  void invokeLocal(const Request& request, Responder responder);

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
