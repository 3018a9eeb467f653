// Persistent CCS client connection (mpidbg's mode): plain or TLS 1.3 PSK,
// many requests on one socket, replies in order, poll-driven with deadlines.
#include "ccs/transport/Connection.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <optional>

#include "ccs/transport/BlockingIo.hpp"
#include "ccs/transport/Socket.hpp"
#include "ccs/transport/TlsStream.hpp"

namespace mpidbg::ccs {
namespace {

using Clock = std::chrono::steady_clock;
using detail::IoStatus;

/// Milliseconds left until `deadline` for poll(), at least 0.
int remainingMs(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) return 0;
  // Round up so a sub-millisecond remainder does not spin.
  return static_cast<int>(std::min<long long>(left.count() + 1, 1 << 30));
}

/// Waits for `events` on `fd` until `deadline`: revents, 0 on timeout, -1 on error.
int waitFor(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd entry{fd, events, 0};
    int rc = ::poll(&entry, 1, remainingMs(deadline));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) return -1;
    return rc == 0 ? 0 : entry.revents;
  }
}

/// Non-blocking connect to one resolved address, bounded by `deadline`.
Expected<ScopedFd> connectOne(const addrinfo& address, Clock::time_point deadline) {
  ScopedFd fd(::socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                       address.ai_protocol));
  if (!fd.valid()) return fail(detail::errnoText(errno));
  int on = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  int rc;
  do {
    rc = ::connect(fd.get(), address.ai_addr, address.ai_addrlen);
  } while (rc < 0 && errno == EINTR);
  if (rc == 0) return fd;
  if (errno != EINPROGRESS) return fail(detail::errnoText(errno));
  int revents = waitFor(fd.get(), POLLOUT, deadline);
  if (revents < 0) return fail(detail::errnoText(errno));
  if (revents == 0) return fail("timed out");
  int error = 0;
  socklen_t length = sizeof error;
  if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length) < 0) error = errno;
  if (error != 0) return fail(detail::errnoText(error));
  return fd;
}

/// A Connection over a Stream (plain or TLS).
class StreamConnection final : public Connection {
 public:
  StreamConnection(Endpoint endpoint, std::unique_ptr<detail::TlsContext> context,
                   std::unique_ptr<detail::Stream> stream)
      : endpoint_(std::move(endpoint)),
        peer_(endpoint_.toString()),
        context_(std::move(context)),
        stream_(std::move(stream)) {}

  ~StreamConnection() override {
    if (!broken_) stream_->shutdown();
  }

  /// Completes the handshake within `deadline` (at once for plain).
  Expected<void> handshake(Clock::time_point deadline, std::chrono::milliseconds timeout) {
    for (;;) {
      detail::IoResult step = stream_->handshake();
      if (step.status == IoStatus::Done) return {};
      if (step.status == IoStatus::Closed || step.status == IoStatus::Failed)
        return fail("cannot connect to " + peer_ + ": " + stream_->error());
      short events = step.status == IoStatus::WantRead ? POLLIN : POLLOUT;
      int revents = waitFor(stream_->fd(), events, deadline);
      if (revents < 0) return fail("cannot connect to " + peer_ + ": " + detail::errnoText(errno));
      if (revents == 0)
        return fail("timed out after " + std::to_string(timeout.count()) +
                    " ms in the TLS handshake with " + peer_);
    }
  }

  Expected<std::vector<std::uint8_t>> call(const Request& request,
                                           std::chrono::milliseconds timeout) override {
    auto replies = callMany(std::span<const Request>(&request, 1), timeout);
    return std::move(replies.front());
  }

  std::vector<Expected<std::vector<std::uint8_t>>> callMany(
      std::span<const Request> requests, std::chrono::milliseconds timeout) override;

  bool broken() const override { return broken_.has_value(); }
  const Endpoint& endpoint() const override { return endpoint_; }
  void setReplySpin(std::chrono::microseconds spin) override { spin_ = std::max(spin, std::chrono::microseconds{0}); }

 private:
  /// Marks the connection broken with `message` and returns it as an error.
  Error breakWith(std::string message) {
    if (!broken_) broken_ = Error{std::move(message)};
    return *broken_;
  }

  Endpoint endpoint_;
  std::string peer_;
  std::unique_ptr<detail::TlsContext> context_;  // outlives stream_
  std::unique_ptr<detail::Stream> stream_;
  ReplyParser parser_;
  std::optional<Error> broken_;
  std::chrono::microseconds spin_{0};
};

std::vector<Expected<std::vector<std::uint8_t>>> StreamConnection::callMany(
    std::span<const Request> requests, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::vector<Expected<std::vector<std::uint8_t>>> results(requests.size());
  if (broken_) {
    for (auto& r : results) r = std::unexpected(*broken_);
    return results;
  }
  // Encode everything up front; a request that cannot be encoded gets its
  // error and is not sent (the connection stays usable).
  std::vector<std::uint8_t> out;
  std::vector<std::size_t> awaiting;  // indices of sent requests, in order
  for (std::size_t i = 0; i < requests.size(); ++i) {
    auto bytes = encodeRequest(requests[i]);
    if (!bytes) {
      results[i] = std::unexpected(bytes.error());
      continue;
    }
    out.insert(out.end(), bytes->begin(), bytes->end());
    awaiting.push_back(i);
  }

  std::size_t written = 0;
  std::size_t answered = 0;
  bool mayRead = false;  // a reply cannot be there before the request left
  std::uint8_t buffer[16384];
  std::optional<Error> failure;
  while (!failure && answered < awaiting.size()) {
    bool progressed = false;
    short events = 0;
    if (written < out.size()) {
      auto result = stream_->write(std::span(out).subspan(written));
      if (result.status == IoStatus::Done) {
        written += result.bytes;
        progressed = true;
      } else if (result.status == IoStatus::WantRead || result.status == IoStatus::WantWrite) {
        events |= result.status == IoStatus::WantRead ? POLLIN : POLLOUT;
      } else {
        failure = breakWith("cannot send request to " + peer_ + ": " +
                            (stream_->error().empty() ? "connection closed" : stream_->error()));
        break;
      }
    }
    if (mayRead || stream_->hasBuffered()) {
      auto result = stream_->read(buffer);
      if (result.status == IoStatus::Done) {
        progressed = true;
        std::span<const std::uint8_t> input(buffer, result.bytes);
        while (!input.empty() && !failure) {
          auto reply = parser_.feed(input);
          if (!reply) {
            failure = breakWith("malformed reply from " + peer_ + ": " + reply.error().message);
          } else if (*reply) {
            if (answered == awaiting.size()) {
              failure = breakWith(peer_ + " sent a reply nobody asked for");
            } else {
              results[awaiting[answered++]] = std::move(**reply);
            }
          } else {
            break;
          }
        }
      } else if (result.status == IoStatus::WantRead || result.status == IoStatus::WantWrite) {
        mayRead = false;
        events |= result.status == IoStatus::WantRead ? POLLIN : POLLOUT;
      } else if (result.status == IoStatus::Closed) {
        failure = breakWith(peer_ + " closed the connection without a reply");
      } else {
        failure = breakWith("cannot read reply from " + peer_ + ": " + stream_->error());
      }
    }
    if (progressed || failure) continue;
    events |= POLLIN;
    int revents = 0;
    // Only the reply is missing: it may be microseconds away (setReplySpin).
    if (spin_.count() > 0 && events == POLLIN)
      revents = detail::pollWithoutSleeping(stream_->fd(), events, Clock::now() + spin_);
    if (revents == 0) revents = waitFor(stream_->fd(), events, deadline);
    if (revents < 0) {
      failure = breakWith("cannot talk to " + peer_ + ": " + detail::errnoText(errno));
    } else if (revents == 0) {
      failure = breakWith("timed out after " + std::to_string(timeout.count()) + " ms " +
                          (written < out.size() ? "sending request to " : "waiting for reply from ") +
                          peer_);
    } else if (revents & (POLLIN | POLLHUP | POLLERR)) {
      mayRead = true;
    }
  }
  if (failure)
    for (std::size_t i = answered; i < awaiting.size(); ++i)
      results[awaiting[i]] = std::unexpected(*failure);
  return results;
}

}  // namespace

Expected<std::unique_ptr<Connection>> Connection::open(const Endpoint& server,
                                                       const Security& security,
                                                       std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const std::string peer = server.toString();
  std::unique_ptr<detail::TlsContext> context;
  if (security.mode == SecurityMode::Tls) {
    auto created = detail::TlsContext::create(detail::TlsRole::Client, security);
    if (!created) return fail("cannot connect to " + peer + ": " + created.error().message);
    context = std::move(*created);
  }
  auto addresses = detail::resolve(server.host, server.port, false);
  if (!addresses) return fail("cannot connect to " + peer + ": " + addresses.error().message);
  Error last{"cannot connect to " + peer + ": no usable address"};
  ScopedFd fd;
  for (const addrinfo* a = addresses->get(); a != nullptr && !fd.valid(); a = a->ai_next) {
    auto connected = connectOne(*a, deadline);
    if (connected) {
      fd = std::move(*connected);
    } else {
      last = Error{"cannot connect to " + peer + ": " + connected.error().message};
      if (connected.error().message == "timed out")
        last = Error{"timed out after " + std::to_string(timeout.count()) + " ms connecting to " +
                     peer};
      if (remainingMs(deadline) == 0) break;
    }
  }
  if (!fd.valid()) return std::unexpected(last);

  std::unique_ptr<detail::Stream> stream;
  if (context) {
    auto tls = detail::TlsStream::create(std::move(fd), *context);
    if (!tls) return fail("cannot connect to " + peer + ": " + tls.error().message);
    stream = std::move(*tls);
  } else {
    stream = std::make_unique<detail::PlainStream>(std::move(fd));
  }
  auto connection =
      std::make_unique<StreamConnection>(server, std::move(context), std::move(stream));
  if (auto done = connection->handshake(deadline, timeout); !done)
    return std::unexpected(done.error());
  return connection;
}

}  // namespace mpidbg::ccs
