// Non-blocking CCS server: one poll() loop over the listening socket, the
// client connections and any watched descriptors.
#include "ccs/Server.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <list>

#include "ccs/Socket.hpp"

namespace mpidbg::ccs {
namespace {

using Clock = std::chrono::steady_clock;

/// Bytes read from one connection per poll round, so one busy client cannot
/// starve the others.
constexpr std::size_t kReadBudget = 256 * 1024;
/// Connections accepted per poll round.
constexpr int kAcceptBudget = 64;

/// One accepted client.
struct Connection {
  ScopedFd fd;
  std::string peer;
  RequestParser parser;
  std::vector<std::uint8_t> output;
  std::size_t outputOffset = 0;
  /// Last time bytes moved in either direction.
  Clock::time_point lastActivity;
  /// Plain mode: one request was taken; later bytes are ignored.
  bool served = false;
  /// Close once the output is flushed.
  bool closeAfterFlush = false;
  bool dead = false;

  Connection(ScopedFd f, std::string p, std::size_t maxBytes)
      : fd(std::move(f)), peer(std::move(p)), parser(maxBytes), lastActivity(Clock::now()) {}
  bool hasOutput() const { return outputOffset < output.size(); }
};

/// One watched external descriptor. `serial` tells a re-watched fd number
/// apart from the entry a poll round saw.
struct Watch {
  std::uint64_t serial;
  std::shared_ptr<std::function<void(short)>> onReady;
};

/// `name` with control and non-ASCII bytes shown as '?', for log lines.
std::string printable(std::string_view name) {
  std::string out(name);
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = '?';
  return out;
}

}  // namespace

struct Server::Impl {
  ServerOptions options;
  ScopedFd listener;
  Endpoint bound;
  std::map<std::string, std::shared_ptr<Handler>> handlers;
  std::list<Connection> connections;
  std::map<int, Watch> watches;
  std::uint64_t nextSerial = 1;
  bool polling = false;

  void log(const std::string& line) const {
    if (!options.log) return;
    try {
      options.log(line);
    } catch (...) {
      // A failing logger must not take the server down.
    }
  }

  void acceptClients();
  void readFrom(Connection& c);
  void dispatch(Connection& c, const Request& request);
  void flush(Connection& c);
  void close(Connection& c, const std::string& why);
  int pollTimeoutMs(std::chrono::milliseconds timeout) const;
  void expireIdle();
};

void Server::Impl::close(Connection& c, const std::string& why) {
  if (c.dead) return;
  if (!why.empty()) log("ccs: closing connection from " + c.peer + ": " + why);
  c.dead = true;
  c.fd.reset();
}

void Server::Impl::acceptClients() {
  for (int i = 0; i < kAcceptBudget; ++i) {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    int fd = ::accept4(listener.get(), reinterpret_cast<sockaddr*>(&address), &length,
                       SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        log("ccs: accept failed: " + detail::errnoText(errno));
      return;
    }
    connections.emplace_back(ScopedFd(fd),
                             detail::describeAddress(reinterpret_cast<sockaddr*>(&address), length),
                             options.maxRequestBytes);
  }
}

void Server::Impl::dispatch(Connection& c, const Request& request) {
  const std::string name = printable(request.handler);
  std::optional<std::vector<std::uint8_t>> reply = std::vector<std::uint8_t>{};
  if (request.pe != options.pe) {
    log("ccs: request for handler '" + name + "' to pe " + std::to_string(request.pe) + " from " +
        c.peer + " answered empty: this server is pe " + std::to_string(options.pe) +
        " and does not forward");
  } else if (auto found = handlers.find(request.handler); found == handlers.end()) {
    log("ccs: unknown handler '" + name + "' from " + c.peer + ": empty reply");
  } else {
    std::shared_ptr<Handler> handler = found->second;  // survives addHandler from inside
    try {
      HandlerResult result = (*handler)(request);
      if (result) {
        reply = std::move(*result);
      } else {
        log("ccs: handler '" + name + "' failed for " + c.peer + ": " + result.error().message);
      }
    } catch (const std::exception& e) {
      log("ccs: handler '" + name + "' threw: " + e.what());
    } catch (...) {
      log("ccs: handler '" + name + "' threw an unknown exception");
    }
  }
  if (!options.persistent) c.served = true;
  if (!reply) return;  // no reply: keep the connection open and silent
  if (reply->size() > static_cast<std::size_t>(INT32_MAX)) {
    log("ccs: reply of handler '" + name + "' is too large; sending an empty reply");
    reply->clear();
  }
  auto bytes = encodeReply(*reply);
  if (c.outputOffset == c.output.size()) {
    c.output.clear();
    c.outputOffset = 0;
  }
  c.output.insert(c.output.end(), bytes.begin(), bytes.end());
  if (!options.persistent) c.closeAfterFlush = true;
}

void Server::Impl::readFrom(Connection& c) {
  std::uint8_t buffer[16384];
  std::size_t total = 0;
  while (!c.dead && total < kReadBudget) {
    ssize_t got = ::recv(c.fd.get(), buffer, sizeof buffer, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) close(c, detail::errnoText(errno));
      return;
    }
    if (got == 0) {
      if (!c.parser.idle() && !c.served) {
        close(c, "peer closed in the middle of a request");
      } else if (c.hasOutput()) {
        c.closeAfterFlush = true;  // half-close: still deliver the reply
      } else {
        close(c, "");
      }
      return;
    }
    total += static_cast<std::size_t>(got);
    c.lastActivity = Clock::now();
    std::span<const std::uint8_t> input(buffer, static_cast<std::size_t>(got));
    while (!input.empty() && !c.served && !c.dead) {
      auto request = c.parser.feed(input);
      if (!request) {
        close(c, "malformed request: " + request.error().message);
        return;
      }
      if (!*request) break;
      dispatch(c, **request);
    }
    // Bytes after the one request of a plain connection are ignored.
  }
}

void Server::Impl::flush(Connection& c) {
  while (!c.dead && c.hasOutput()) {
    ssize_t sent = ::send(c.fd.get(), c.output.data() + c.outputOffset,
                          c.output.size() - c.outputOffset, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) close(c, detail::errnoText(errno));
      return;
    }
    c.outputOffset += static_cast<std::size_t>(sent);
    c.lastActivity = Clock::now();
  }
  if (!c.dead && !c.hasOutput()) {
    c.output.clear();
    c.outputOffset = 0;
    if (c.closeAfterFlush) close(c, "");
  }
}

int Server::Impl::pollTimeoutMs(std::chrono::milliseconds timeout) const {
  auto wait = std::max(timeout, std::chrono::milliseconds(0));
  auto now = Clock::now();
  for (const Connection& c : connections) {
    if (c.dead || (c.parser.idle() && !c.hasOutput())) continue;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(c.lastActivity +
                                                                      options.idleTimeout - now);
    wait = std::clamp(left + std::chrono::milliseconds(1), std::chrono::milliseconds(0), wait);
  }
  return static_cast<int>(std::min<long long>(wait.count(), 1 << 30));
}

void Server::Impl::expireIdle() {
  auto now = Clock::now();
  for (Connection& c : connections) {
    if (c.dead || now - c.lastActivity < options.idleTimeout) continue;
    if (!c.parser.idle() && !c.served)
      close(c, "partial request idle for " + std::to_string(options.idleTimeout.count()) + " ms");
    else if (c.hasOutput())
      close(c, "reply not read for " + std::to_string(options.idleTimeout.count()) + " ms");
  }
}

// ---- Server ----

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}

Server::~Server() = default;

Expected<std::unique_ptr<Server>> Server::create(ServerOptions options) {
  std::string where = options.bindAddress + " port " + std::to_string(options.port);
  auto addresses = detail::resolve(options.bindAddress, options.port, true);
  if (!addresses) return fail("cannot listen on " + where + ": " + addresses.error().message);
  std::unique_ptr<Server> server(new Server(std::move(options)));
  Impl& impl = *server->impl_;
  std::string lastError = "no usable address";
  for (const addrinfo* a = addresses->get(); a != nullptr; a = a->ai_next) {
    ScopedFd fd(
        ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
    int on = 1;
    if (!fd.valid() || ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) < 0 ||
        ::bind(fd.get(), a->ai_addr, a->ai_addrlen) < 0 || ::listen(fd.get(), 128) < 0) {
      lastError = detail::errnoText(errno);
      continue;
    }
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
    impl.bound = *endpoint;
    impl.listener = std::move(fd);
    return server;
  }
  return fail("cannot listen on " + where + ": " + lastError);
}

Endpoint Server::endpoint() const { return impl_->bound; }

void Server::addHandler(std::string name, Handler handler) {
  impl_->handlers[std::move(name)] = std::make_shared<Handler>(std::move(handler));
}

void Server::watch(int fd, std::function<void(short revents)> onReady) {
  impl_->watches[fd] =
      Watch{impl_->nextSerial++, std::make_shared<std::function<void(short)>>(std::move(onReady))};
}

void Server::unwatch(int fd) { impl_->watches.erase(fd); }

std::size_t Server::connectionCount() const {
  return static_cast<std::size_t>(std::count_if(impl_->connections.begin(),
                                                impl_->connections.end(),
                                                [](const Connection& c) { return !c.dead; }));
}

void Server::pollOnce(std::chrono::milliseconds timeout) {
  Impl& impl = *impl_;
  if (impl.polling) {
    impl.log("ccs: pollOnce called from inside a handler or watch callback; ignored");
    return;
  }
  impl.polling = true;
  try {
    // Snapshot what this round polls; callbacks may change the tables.
    std::vector<pollfd> fds;
    std::vector<Connection*> polledConnections;
    std::vector<std::pair<int, std::uint64_t>> polledWatches;
    fds.push_back({impl.listener.get(), POLLIN, 0});
    for (Connection& c : impl.connections) {
      short events = c.hasOutput() ? POLLOUT : 0;
      if (!c.closeAfterFlush) events |= POLLIN;
      fds.push_back({c.fd.get(), events, 0});
      polledConnections.push_back(&c);
    }
    for (const auto& [fd, w] : impl.watches) {
      fds.push_back({fd, POLLIN, 0});
      polledWatches.emplace_back(fd, w.serial);
    }

    int ready = ::poll(fds.data(), fds.size(), impl.pollTimeoutMs(timeout));
    if (ready < 0 && errno != EINTR) impl.log("ccs: poll failed: " + detail::errnoText(errno));
    if (ready > 0) {
      std::size_t index = 1;
      for (Connection* c : polledConnections) {
        short revents = fds[index++].revents;
        if (revents == 0 || c->dead) continue;
        if (revents & (POLLIN | POLLHUP | POLLERR)) impl.readFrom(*c);
        if (!c->dead && (revents & POLLERR) && !(revents & POLLIN)) impl.close(*c, "socket error");
        impl.flush(*c);
      }
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
      if (fds[0].revents & POLLIN) impl.acceptClients();
    }
    impl.expireIdle();
    impl.connections.remove_if([](const Connection& c) { return c.dead; });
  } catch (const std::exception& e) {
    impl.log(std::string("ccs: internal error in poll round: ") + e.what());
  } catch (...) {
    impl.log("ccs: internal error in poll round");
  }
  impl.polling = false;
}

}  // namespace mpidbg::ccs
