// Raw TCP helpers of the hostile peers.
#include "RawPeer.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

namespace mpidbg::load {
namespace {

using Clock = std::chrono::steady_clock;

int millisLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<long long>(0, left.count()));
}

struct AddrInfoFree {
  void operator()(addrinfo* list) const { ::freeaddrinfo(list); }
};

}  // namespace

Expected<ScopedFd> connectRaw(const ccs::Endpoint& server, std::chrono::milliseconds timeout) {
  const std::string where = server.toString();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(server.port);
  if (int rc = ::getaddrinfo(server.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return fail("cannot resolve " + where + ": " + ::gai_strerror(rc));
  std::unique_ptr<addrinfo, AddrInfoFree> list(found);
  const auto deadline = Clock::now() + timeout;
  ScopedFd fd(::socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail("cannot create a socket: " + std::string(std::strerror(errno)));
  if (::connect(fd.get(), found->ai_addr, found->ai_addrlen) == 0) return fd;
  if (errno != EINPROGRESS) return fail("cannot connect to " + where + ": " + std::strerror(errno));
  pollfd p{fd.get(), POLLOUT, 0};
  int ready = 0;
  do {
    ready = ::poll(&p, 1, millisLeft(deadline));
  } while (ready < 0 && errno == EINTR);
  if (ready == 0) return fail("timed out connecting to " + where);
  int error = 0;
  socklen_t length = sizeof error;
  if (ready < 0 || ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length) < 0) error = errno;
  if (error != 0) return fail("cannot connect to " + where + ": " + std::strerror(error));
  return fd;
}

SendResult sendSome(int fd, std::span<const std::uint8_t> bytes) {
  for (;;) {
    ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent >= 0) return SendResult{static_cast<std::size_t>(sent), false};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return SendResult{0, false};
    return SendResult{0, true};  // EPIPE, ECONNRESET and the like: the server is gone
  }
}

bool waitForClose(int fd, std::chrono::milliseconds wait, const std::atomic<bool>& stop) {
  const auto deadline = Clock::now() + wait;
  while (!stop.load(std::memory_order_relaxed)) {
    const int left = millisLeft(deadline);
    if (left == 0) return false;
    pollfd p{fd, POLLRDHUP, 0};
    int ready = ::poll(&p, 1, std::min(left, 100));
    if (ready > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) return true;
  }
  return false;
}

bool waitWritable(int fd, std::chrono::milliseconds wait) {
  pollfd p{fd, POLLOUT | POLLRDHUP, 0};
  int ready = ::poll(&p, 1, static_cast<int>(wait.count()));
  return ready > 0;
}

}  // namespace mpidbg::load
