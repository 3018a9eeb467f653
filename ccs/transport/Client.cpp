// Plain CCS client: one connection per request, bounded by a total timeout.
#include "ccs/transport/Client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

#include "mpidbg/ScopedFd.hpp"
#include "ccs/transport/BlockingIo.hpp"
#include "ccs/transport/Socket.hpp"

namespace mpidbg::ccs {
namespace {

using detail::Deadline;

Expected<ScopedFd> connectAndSend(const Endpoint& server, const Request& request,
                                  const Deadline& call) {
  auto bytes = encodeRequest(request);
  if (!bytes) return std::unexpected(bytes.error());
  auto fd = detail::connectTo(server, call);
  if (!fd) return fd;
  if (auto sent = detail::sendAll(fd->get(), *bytes, call); !sent) return std::unexpected(sent.error());
  return fd;
}

}  // namespace

Expected<std::vector<std::uint8_t>> Client::call(const Endpoint& server, const Request& request,
                                                 std::chrono::milliseconds timeout,
                                                 std::chrono::microseconds spin) {
  Deadline call = Deadline::after(server, timeout);
  call.spin = spin;
  auto fd = connectAndSend(server, request, call);
  if (!fd) return std::unexpected(fd.error());

  ReplyParser parser;
  std::uint8_t buffer[16384];
  for (;;) {
    // The reply cannot be there yet right after sending: wait first, then read.
    int revents = call.wait(fd->get(), POLLIN);
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
  Deadline call = Deadline::after(server, timeout);
  auto fd = connectAndSend(server, request, call);
  if (!fd) return std::unexpected(fd.error());
  return {};
}

}  // namespace mpidbg::ccs
