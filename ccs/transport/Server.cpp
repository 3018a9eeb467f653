// Non-blocking CCS server: one poll() loop over the listening socket, the
// client connections, the reply mailbox and any watched descriptors.
#include "ccs/transport/Server.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <memory>
#include <mutex>
#include <variant>

#include "ccs/transport/ServerConnection.hpp"
#include "ccs/transport/Socket.hpp"

namespace mpidbg::ccs {
namespace {

using Clock = std::chrono::steady_clock;
using detail::ServerConnection;

/// Connections accepted per poll round.
constexpr int kAcceptBudget = 64;
/// Requests served per connection per poll round, so a flooding peer cannot
/// starve the others.
constexpr int kRequestsPerRound = 64;

/// A registered handler, answering at once or through a Responder.
using HandlerEntry = std::variant<Handler, AsyncHandler>;

/// `name` with control and non-ASCII bytes shown as '?', for log lines.
std::string printable(std::string_view name) {
  std::string out(name);
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = '?';
  return out;
}

/// A listening TCP socket on `bindAddress`:`port` (0: ephemeral) and the
/// endpoint it got. Errors name the address and port, and the cause.
Expected<std::pair<ScopedFd, Endpoint>> bindListener(const std::string& bindAddress, std::uint16_t port) {
  const std::string where = bindAddress + " port " + std::to_string(port);
  auto addresses = detail::resolve(bindAddress, port, true);
  if (!addresses) return fail("cannot listen on " + where + ": " + addresses.error().message);
  std::string lastError = "no usable address";
  for (const addrinfo* a = addresses->get(); a != nullptr; a = a->ai_next) {
    ScopedFd fd(
        ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
    int on = 1;
    if (!fd.valid() || ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) < 0 ||
        ::bind(fd.get(), a->ai_addr, a->ai_addrlen) < 0 || ::listen(fd.get(), SOMAXCONN) < 0) {
      lastError = detail::errnoText(errno);
      continue;
    }
    // Every CCS client speaks first: wake accept() only once its first bytes
    // arrived (one poll round and one wake-up less per Charm++ request).
    int deferSeconds = 1;
    ::setsockopt(fd.get(), IPPROTO_TCP, TCP_DEFER_ACCEPT, &deferSeconds, sizeof deferSeconds);
    sockaddr_storage local{};
    socklen_t length = sizeof local;
    if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &length) < 0) {
      lastError = detail::errnoText(errno);
      continue;
    }
    auto text = detail::describeAddress(reinterpret_cast<sockaddr*>(&local), length);
    auto endpoint = Endpoint::parse(text);
    if (!endpoint) {
      lastError = endpoint.error().message;
      continue;
    }
    return std::pair<ScopedFd, Endpoint>(std::move(fd), *endpoint);
  }
  return fail("cannot listen on " + where + ": " + lastError);
}

}  // namespace

struct Server::Impl {
  /// A listener beside the main one (addCharmListener), with the options its
  /// connections get (they keep a reference: the entry is never moved).
  struct CharmListener {
    ScopedFd fd;
    ServerOptions options;
  };

  /// One watched external descriptor. `serial` tells a re-watched fd number
  /// apart from the entry a poll round saw.
  struct Watch {
    std::uint64_t serial;
    std::shared_ptr<std::function<void(short)>> onReady;
  };

  ServerOptions options;
  detail::LogFunction logLine;  // never throws (wraps options.log)
  ScopedFd listener;
  Endpoint bound;
  std::unique_ptr<detail::TlsContext> tls;  // with SecurityMode::Tls
  std::shared_ptr<detail::ReplyMailbox> mailbox;
  std::map<std::string, std::shared_ptr<HandlerEntry>> handlers;
  RoutingHook routingHook;
  std::vector<std::unique_ptr<ServerConnection>> connections;
  std::map<int, Watch> watches;
  std::vector<std::unique_ptr<CharmListener>> charmListeners;
  std::uint64_t nextSerial = 1;
  bool polling = false;

  void log(const std::string& line) const { logLine(line); }
  /// Accepts on `fd`; the connections get `connectionOptions`, and TLS when
  /// `tlsContext` is set.
  void acceptClients(int fd, const ServerOptions& connectionOptions, detail::TlsContext* tlsContext);
  void serve(ServerConnection& c);
  void dispatch(ServerConnection& c, Request& request);
  /// Runs the local handler for `request`; answers via `answerNow` (sync) or
  /// `makeResponder` (async).
  template <typename AnswerNow, typename MakeResponder>
  void runLocal(const Request& request, const std::string& peer, AnswerNow&& answerNow,
                MakeResponder&& makeResponder);
  int pollTimeoutMs(std::chrono::milliseconds timeout) const;
};

void Server::Impl::acceptClients(int listenerFd, const ServerOptions& connectionOptions,
                                 detail::TlsContext* tlsContext) {
  for (int i = 0; i < kAcceptBudget; ++i) {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    int fd = ::accept4(listenerFd, reinterpret_cast<sockaddr*>(&address), &length,
                       SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        log("ccs: accept failed: " + detail::errnoText(errno));
      return;
    }
    ScopedFd socket(fd);
    std::string peer = detail::describeAddress(reinterpret_cast<sockaddr*>(&address), length);
    std::unique_ptr<detail::Stream> stream;
    if (tlsContext) {
      int on = 1;  // many small replies on one connection
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
      auto created = detail::TlsStream::create(std::move(socket), *tlsContext);
      if (!created) {
        log("ccs: closing connection from " + peer + ": " + created.error().message);
        continue;
      }
      stream = std::move(*created);
    } else {
      if (connectionOptions.persistent) {
        int on = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
      }
      stream = std::make_unique<detail::PlainStream>(std::move(socket));
    }
    connections.push_back(
        std::make_unique<ServerConnection>(std::move(stream), std::move(peer), connectionOptions, logLine));
    // With TCP_DEFER_ACCEPT the first bytes are usually already there: serve
    // them in this round instead of the next.
    ServerConnection& fresh = *connections.back();
    fresh.noteReady(POLLIN);
    serve(fresh);
    fresh.collectReplies();
    if (fresh.wantsFlush()) fresh.flush();  // reply before the next accept
  }
}

template <typename AnswerNow, typename MakeResponder>
void Server::Impl::runLocal(const Request& request, const std::string& peer,
                            AnswerNow&& answerNow, MakeResponder&& makeResponder) {
  const std::string name = printable(request.handler);
  auto found = handlers.find(request.handler);
  if (found == handlers.end()) {
    log("ccs: unknown handler '" + name + "' from " + peer + ": empty reply");
    answerNow(std::vector<std::uint8_t>{});
    return;
  }
  std::shared_ptr<HandlerEntry> entry = found->second;  // survives addHandler from inside
  try {
    if (auto* handler = std::get_if<Handler>(entry.get())) {
      HandlerResult result = (*handler)(request);
      if (result) {
        answerNow(std::move(*result));
      } else {
        log("ccs: handler '" + name + "' failed for " + peer + ": " + result.error().message);
        answerNow(std::vector<std::uint8_t>{});
      }
    } else {
      std::get<AsyncHandler>(*entry)(request, makeResponder());
    }
    return;
  } catch (const std::exception& e) {
    log("ccs: handler '" + name + "' threw: " + e.what());
  } catch (...) {
    log("ccs: handler '" + name + "' threw an unknown exception");
  }
  // A sync handler that threw has not answered; an async one's Responder was
  // destroyed in the unwinding and answered empty (then this is ignored).
  answerNow(std::vector<std::uint8_t>{});
}

void Server::Impl::dispatch(ServerConnection& c, Request& request) {
  const bool local = request.pe >= 0 && request.pe == options.pe;
  const std::string& peer = c.peer();
  if (!local && routingHook) {
    RoutingHook hook = routingHook;  // survives setRoutingHook from inside
    try {
      hook(request, Responder(c.defer(mailbox)));
    } catch (...) {
      log("ccs: routing hook threw for handler '" + printable(request.handler) + "'");
    }
  } else if (!local) {
    log("ccs: request for handler '" + printable(request.handler) + "' to pe " +
        std::to_string(request.pe) + " from " + peer + " answered empty: this server is pe " +
        std::to_string(options.pe) + " and does not forward");
    c.answerNow(std::vector<std::uint8_t>{});
  } else {
    bool answered = false;
    runLocal(
        request, peer,
        [&](std::optional<std::vector<std::uint8_t>> reply) {
          if (!answered) c.answerNow(std::move(reply));
          answered = true;
        },
        [&] {
          answered = true;
          return Responder(c.defer(mailbox));
        });
  }
  if (!c.persistent()) c.markServed();
}

void Server::Impl::serve(ServerConnection& c) {
  if (c.wantsReceive()) c.receive();
  for (int i = 0; i < kRequestsPerRound; ++i) {
    std::optional<Request> request = c.nextRequest();
    if (!request) break;
    dispatch(c, *request);
  }
}

int Server::Impl::pollTimeoutMs(std::chrono::milliseconds timeout) const {
  auto wait = std::max(timeout, std::chrono::milliseconds(0));
  auto now = Clock::now();
  for (const auto& c : connections) {
    if (c->hasBacklog()) return 0;
    if (auto deadline = c->idleDeadline()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - now);
      wait = std::clamp(left + std::chrono::milliseconds(1), std::chrono::milliseconds(0), wait);
    }
  }
  return static_cast<int>(std::min<long long>(wait.count(), 1 << 30));
}

// ---- Server ----

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  // At most kLogLinesPerWindow lines per kLogWindow: a flood of hostile
  // connections must not become a flood on the rank's stderr (tests/load saw
  // 75,000 lines in one run). The count of dropped lines is logged when the
  // next window opens.
  struct LogLimit {
    std::mutex mutex;
    std::chrono::steady_clock::time_point windowStart{};
    int lines = 0;
    std::uint64_t dropped = 0;
  };
  impl_->logLine = [log = impl_->options.log, limit = std::make_shared<LogLimit>()](const std::string& line) {
    if (!log) return;
    constexpr int kLogLinesPerWindow = 20;
    constexpr auto kLogWindow = std::chrono::seconds(10);
    std::string note;
    {
      std::lock_guard lock(limit->mutex);
      const auto now = std::chrono::steady_clock::now();
      if (now - limit->windowStart >= kLogWindow) {
        if (limit->dropped > 0)
          note = "ccs: " + std::to_string(limit->dropped) + " more log line" + (limit->dropped == 1 ? "" : "s") +
                 " dropped in 10 s (at most " + std::to_string(kLogLinesPerWindow) + " are written)";
        limit->windowStart = now;
        limit->lines = 0;
        limit->dropped = 0;
      }
      if (limit->lines >= kLogLinesPerWindow) {
        ++limit->dropped;
        return;
      }
      ++limit->lines;
    }
    try {
      if (!note.empty()) log(note);
      log(line);
    } catch (...) {
      // A failing logger must not take the server down.
    }
  };
}

Server::~Server() = default;

Expected<std::unique_ptr<Server>> Server::create(ServerOptions options) {
  const std::string where = options.bindAddress + " port " + std::to_string(options.port);
  std::unique_ptr<Server> server(new Server(std::move(options)));
  Impl& impl = *server->impl_;
  if (impl.options.security.mode == SecurityMode::Tls) {
    auto tls = detail::TlsContext::create(detail::TlsRole::Server, impl.options.security);
    if (!tls) return fail("cannot listen on " + where + ": " + tls.error().message);
    impl.tls = std::move(*tls);
  }
  auto mailbox = detail::ReplyMailbox::create();
  if (!mailbox) return fail("cannot listen on " + where + ": " + mailbox.error().message);
  impl.mailbox = std::move(*mailbox);
  auto bound = bindListener(impl.options.bindAddress, impl.options.port);
  if (!bound) return std::unexpected(bound.error());
  impl.listener = std::move(bound->first);
  impl.bound = bound->second;
  return server;
}

Expected<Endpoint> Server::addCharmListener(const std::string& bindAddress, std::uint16_t port,
                                            std::shared_ptr<CharmAuthServerState> charmAuth) {
  auto bound = bindListener(bindAddress, port);
  if (!bound) return std::unexpected(bound.error());
  auto listener = std::make_unique<Impl::CharmListener>();
  listener->fd = std::move(bound->first);
  listener->options = impl_->options;
  listener->options.bindAddress = bindAddress;
  listener->options.port = bound->second.port;
  listener->options.persistent = false;
  listener->options.security = Security{SecurityMode::Plain, {}, impl_->options.security.identity};
  listener->options.charmAuth = std::move(charmAuth);
  impl_->charmListeners.push_back(std::move(listener));
  return bound->second;
}

Endpoint Server::endpoint() const { return impl_->bound; }

void Server::addHandler(std::string name, Handler handler) {
  impl_->handlers[std::move(name)] = std::make_shared<HandlerEntry>(std::move(handler));
}

void Server::addAsyncHandler(std::string name, AsyncHandler handler) {
  impl_->handlers[std::move(name)] = std::make_shared<HandlerEntry>(std::move(handler));
}

void Server::setRoutingHook(RoutingHook hook) { impl_->routingHook = std::move(hook); }

void Server::invokeLocal(const Request& request, Responder responder) {
  auto shared = std::make_shared<Responder>(std::move(responder));
  impl_->runLocal(
      request, "the forwarding layer",
      [&](std::optional<std::vector<std::uint8_t>> reply) {
        if (!shared->pending()) return;
        if (reply)
          shared->reply(std::move(*reply));
        else
          shared->noReply();
      },
      [&] { return std::move(*shared); });
}

void Server::watch(int fd, std::function<void(short revents)> onReady) {
  impl_->watches[fd] =
      Impl::Watch{impl_->nextSerial++, std::make_shared<std::function<void(short)>>(std::move(onReady))};
}

void Server::unwatch(int fd) { impl_->watches.erase(fd); }

std::size_t Server::connectionCount() const {
  return static_cast<std::size_t>(
      std::count_if(impl_->connections.begin(), impl_->connections.end(),
                    [](const std::unique_ptr<ServerConnection>& c) { return !c->dead(); }));
}

}  // namespace mpidbg::ccs

namespace mpidbg::ccs {

void Server::pollOnce(std::chrono::milliseconds timeout) {
  Impl& impl = *impl_;
  if (impl.polling) {
    impl.log("ccs: pollOnce called from inside a handler or watch callback; ignored");
    return;
  }
  impl.polling = true;
  impl.mailbox->beginRound();
  try {
    // Snapshot what this round polls; callbacks may change the tables.
    std::vector<pollfd> fds;
    std::vector<std::pair<int, std::uint64_t>> polledWatches;
    fds.reserve(2 + impl.connections.size() + impl.watches.size() + impl.charmListeners.size());
    fds.push_back({impl.listener.get(), POLLIN, 0});
    fds.push_back({impl.mailbox->fd(), POLLIN, 0});
    const std::size_t polledConnections = impl.connections.size();
    for (const auto& c : impl.connections) fds.push_back({c->fd(), c->pollEvents(), 0});
    for (const auto& [fd, w] : impl.watches) {
      fds.push_back({fd, POLLIN, 0});
      polledWatches.emplace_back(fd, w.serial);
    }
    const std::size_t firstCharmListener = fds.size();
    const std::size_t polledCharmListeners = impl.charmListeners.size();
    for (const auto& l : impl.charmListeners) fds.push_back({l->fd.get(), POLLIN, 0});

    int ready = ::poll(fds.data(), fds.size(), impl.pollTimeoutMs(timeout));
    if (ready < 0 && errno != EINTR) impl.log("ccs: poll failed: " + detail::errnoText(errno));
    if (ready < 0) ready = 0;
    for (std::size_t i = 0; i < polledConnections; ++i) {
      ServerConnection& c = *impl.connections[i];
      if (c.dead()) continue;
      if (short revents = fds[2 + i].revents) c.noteReady(revents);
      impl.serve(c);
    }
    std::size_t index = 2 + polledConnections;
    for (const auto& [fd, serial] : polledWatches) {
      short revents = fds[index++].revents;
      if (revents == 0) continue;
      auto found = impl.watches.find(fd);
      if (found == impl.watches.end() || found->second.serial != serial) continue;
      auto callback = found->second.onReady;  // survives unwatch from inside
      try {
        if (*callback) (*callback)(revents);
      } catch (...) {
        impl.log("ccs: watch callback for fd " + std::to_string(fd) + " threw");
      }
    }
    if (fds[0].revents & POLLIN) impl.acceptClients(impl.listener.get(), impl.options, impl.tls.get());
    for (std::size_t i = 0; i < polledCharmListeners; ++i)
      if (fds[firstCharmListener + i].revents & POLLIN)
        impl.acceptClients(impl.charmListeners[i]->fd.get(), impl.charmListeners[i]->options, nullptr);
    // Answers from other threads (and from this round) go out in request order.
    if (fds[1].revents & POLLIN) impl.mailbox->clear();
    auto now = Clock::now();
    for (const auto& c : impl.connections) {
      c->collectReplies();
      if (c->wantsFlush()) c->flush();
      c->expire(now);
    }
    std::erase_if(impl.connections, [](const auto& c) { return c->dead(); });
  } catch (const std::exception& e) {
    impl.log(std::string("ccs: internal error in poll round: ") + e.what());
  } catch (...) {
    impl.log("ccs: internal error in poll round");
  }
  impl.mailbox->endRound();
  impl.polling = false;
}

}  // namespace mpidbg::ccs
