// Blocking exchanges with a total deadline (see ccs/transport/BlockingIo.hpp).
#include "ccs/transport/BlockingIo.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "ccs/transport/Socket.hpp"

namespace mpidbg::ccs::detail {

int Deadline::remainingMs() const {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<long long>(left.count(), 1 << 30));
}

int pollWithoutSleeping(int fd, short events, std::chrono::steady_clock::time_point until) {
  do {
    pollfd entry{fd, events, 0};
    if (::poll(&entry, 1, 0) > 0) return entry.revents;
  } while (std::chrono::steady_clock::now() < until);
  return 0;
}

int Deadline::wait(int fd, short events) const {
  if (spin.count() > 0) {
    if (int revents = pollWithoutSleeping(fd, events, std::min(end, Clock::now() + spin))) return revents;
  }
  for (;;) {
    pollfd entry{fd, events, 0};
    int rc = ::poll(&entry, 1, remainingMs());
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) return -1;
    return rc == 0 ? 0 : entry.revents;
  }
}

std::unexpected<Error> Deadline::timedOut(const std::string& what) const {
  return fail("timed out after " + std::to_string(timeout.count()) + " ms " + what + " " + peer);
}

namespace {

/// Tries one resolved address with a non-blocking connect.
Expected<ScopedFd> connectOne(const addrinfo& address, const Deadline& deadline) {
  ScopedFd fd(::socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                       address.ai_protocol));
  if (!fd.valid()) return fail("cannot connect to " + deadline.peer + ": " + errnoText(errno));
  int rc;
  do {
    rc = ::connect(fd.get(), address.ai_addr, address.ai_addrlen);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0 && errno != EINPROGRESS)
    return fail("cannot connect to " + deadline.peer + ": " + errnoText(errno));
  if (rc < 0) {
    int revents = deadline.wait(fd.get(), POLLOUT);
    if (revents < 0) return fail("cannot connect to " + deadline.peer + ": " + errnoText(errno));
    if (revents == 0) return deadline.timedOut("connecting to");
    int error = 0;
    socklen_t length = sizeof error;
    if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length) < 0) error = errno;
    if (error != 0) return fail("cannot connect to " + deadline.peer + ": " + errnoText(error));
  }
  return fd;
}

}  // namespace

Expected<ScopedFd> connectTo(const Endpoint& server, const Deadline& deadline) {
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
    return connectOne(address, deadline);
  }
  auto addresses = resolve(server.host, server.port, false);
  if (!addresses) return fail("cannot connect to " + deadline.peer + ": " + addresses.error().message);
  Error last{"cannot connect to " + deadline.peer + ": no usable address"};
  for (const addrinfo* a = addresses->get(); a != nullptr; a = a->ai_next) {
    auto fd = connectOne(*a, deadline);
    if (fd) return fd;
    last = fd.error();
    if (deadline.remainingMs() == 0) break;
  }
  return std::unexpected(last);
}

Expected<void> sendAll(int fd, std::span<const std::uint8_t> bytes, const Deadline& deadline) {
  while (!bytes.empty()) {
    ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent > 0) {
      bytes = bytes.subspan(static_cast<std::size_t>(sent));
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
      return fail("cannot send to " + deadline.peer + ": " + errnoText(errno));
    int revents = deadline.wait(fd, POLLOUT);
    if (revents < 0) return fail("cannot send to " + deadline.peer + ": " + errnoText(errno));
    if (revents == 0) return deadline.timedOut("sending to");
  }
  return {};
}

}  // namespace mpidbg::ccs::detail
