// Plain CCS client: one connection per request, bounded by a total timeout.
#include "ccs/Client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

#include "mpidbg/ScopedFd.hpp"
#include "ccs/Socket.hpp"

namespace mpidbg::ccs {
namespace {

using Clock = std::chrono::steady_clock;

/// The deadline of one call and the text used in its error messages.
struct Call {
  std::string peer;
  Clock::time_point deadline;
  std::chrono::milliseconds timeout;

  /// Milliseconds left for poll(), at least 0.
  int remainingMs() const {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return left.count() <= 0 ? 0 : static_cast<int>(std::min<long long>(left.count(), 1 << 30));
  }
  std::unexpected<Error> timedOut(const std::string& what) const {
    return fail("timed out after " + std::to_string(timeout.count()) + " ms " + what + " " + peer);
  }
};

/// Waits until `fd` reports `events` or the deadline passes. Returns revents
/// (0 on timeout), or -1 with errno set.
int waitFor(int fd, short events, const Call& call) {
  for (;;) {
    pollfd entry{fd, events, 0};
    int rc = ::poll(&entry, 1, call.remainingMs());
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) return -1;
    return rc == 0 ? 0 : entry.revents;
  }
}

/// Tries one resolved address with a non-blocking connect.
Expected<ScopedFd> connectOne(const addrinfo& address, const Call& call) {
  ScopedFd fd(::socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                       address.ai_protocol));
  if (!fd.valid()) return fail("cannot connect to " + call.peer + ": " + detail::errnoText(errno));
  int rc;
  do {
    rc = ::connect(fd.get(), address.ai_addr, address.ai_addrlen);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0 && errno != EINPROGRESS)
    return fail("cannot connect to " + call.peer + ": " + detail::errnoText(errno));
  if (rc < 0) {
    int revents = waitFor(fd.get(), POLLOUT, call);
    if (revents < 0)
      return fail("cannot connect to " + call.peer + ": " + detail::errnoText(errno));
    if (revents == 0) return call.timedOut("connecting to");
    int error = 0;
    socklen_t length = sizeof error;
    if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length) < 0) error = errno;
    if (error != 0) return fail("cannot connect to " + call.peer + ": " + detail::errnoText(error));
  }
  return fd;
}

Expected<ScopedFd> connectTo(const Endpoint& server, const Call& call) {
  // An IPv4 literal (every rank endpoint) needs no resolver round.
  sockaddr_in literal{};
  if (::inet_pton(AF_INET, server.host.c_str(), &literal.sin_addr) == 1) {
    literal.sin_family = AF_INET;
    literal.sin_port = htons(server.port);
    addrinfo address{};
    address.ai_family = AF_INET;
    address.ai_socktype = SOCK_STREAM;
    address.ai_addr = reinterpret_cast<sockaddr*>(&literal);
    address.ai_addrlen = sizeof literal;
    return connectOne(address, call);
  }
  auto addresses = detail::resolve(server.host, server.port, false);
  if (!addresses) return fail("cannot connect to " + call.peer + ": " + addresses.error().message);
  Error last{"cannot connect to " + call.peer + ": no usable address"};
  for (const addrinfo* a = addresses->get(); a != nullptr; a = a->ai_next) {
    auto fd = connectOne(*a, call);
    if (fd) return fd;
    last = fd.error();
    if (call.remainingMs() == 0) break;
  }
  return std::unexpected(last);
}

Expected<void> sendAll(int fd, std::span<const std::uint8_t> bytes, const Call& call) {
  while (!bytes.empty()) {
    ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent > 0) {
      bytes = bytes.subspan(static_cast<std::size_t>(sent));
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
      return fail("cannot send request to " + call.peer + ": " + detail::errnoText(errno));
    int revents = waitFor(fd, POLLOUT, call);
    if (revents < 0)
      return fail("cannot send request to " + call.peer + ": " + detail::errnoText(errno));
    if (revents == 0) return call.timedOut("sending request to");
  }
  return {};
}

Expected<ScopedFd> connectAndSend(const Endpoint& server, const Request& request,
                                  const Call& call) {
  auto bytes = encodeRequest(request);
  if (!bytes) return std::unexpected(bytes.error());
  auto fd = connectTo(server, call);
  if (!fd) return fd;
  if (auto sent = sendAll(fd->get(), *bytes, call); !sent) return std::unexpected(sent.error());
  return fd;
}

Call startCall(const Endpoint& server, std::chrono::milliseconds timeout) {
  return Call{server.toString(), Clock::now() + timeout, timeout};
}

}  // namespace

Expected<std::vector<std::uint8_t>> Client::call(const Endpoint& server, const Request& request,
                                                 std::chrono::milliseconds timeout) {
  Call call = startCall(server, timeout);
  auto fd = connectAndSend(server, request, call);
  if (!fd) return std::unexpected(fd.error());

  ReplyParser parser;
  std::uint8_t buffer[16384];
  for (;;) {
    // The reply cannot be there yet right after sending: wait first, then read.
    int revents = waitFor(fd->get(), POLLIN, call);
    if (revents < 0)
      return fail("cannot read reply from " + call.peer + ": " + detail::errnoText(errno));
    if (revents == 0) return call.timedOut("waiting for reply from");
    ssize_t got = ::recv(fd->get(), buffer, sizeof buffer, 0);
    if (got > 0) {
      std::span<const std::uint8_t> input(buffer, static_cast<std::size_t>(got));
      auto reply = parser.feed(input);
      if (!reply) return fail("malformed reply from " + call.peer + ": " + reply.error().message);
      if (*reply) return std::move(**reply);
      continue;
    }
    if (got == 0) return fail(call.peer + " closed the connection without a reply");
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      return fail("cannot read reply from " + call.peer + ": " + detail::errnoText(errno));
  }
}

Expected<void> Client::send(const Endpoint& server, const Request& request,
                            std::chrono::milliseconds timeout) {
  Call call = startCall(server, timeout);
  auto fd = connectAndSend(server, request, call);
  if (!fd) return std::unexpected(fd.error());
  return {};
}

}  // namespace mpidbg::ccs
