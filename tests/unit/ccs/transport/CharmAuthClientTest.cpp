// CharmAuthClient's blocking calls against a loopback server thread that runs
// CharmAuthServer, one TCP connection per exchange as Charm++ does.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <catch2/catch.hpp>
#include <thread>

#include "tests/unit/ccs/CharmTestKeys.hpp"
#include "ccs/transport/CharmAuthClient.hpp"
#include "ccs/transport/CharmAuthServer.hpp"
#include "mpidbg/ScopedFd.hpp"

using namespace mpidbg::ccs;
using mpidbg::ccs::test::kKey;
using mpidbg::ScopedFd;

namespace {

using Bytes = std::vector<std::uint8_t>;
using namespace std::chrono_literals;

/// A loopback listening socket on an ephemeral port.
ScopedFd listenLoopback(std::uint16_t& port) {
  ScopedFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  REQUIRE(fd.valid());
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  REQUIRE(::listen(fd.get(), 8) == 0);
  socklen_t length = sizeof address;
  REQUIRE(::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &length) == 0);
  port = ntohs(address.sin_port);
  return fd;
}

void writeAll(int fd, const Bytes& bytes) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    ssize_t sent = ::send(fd, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
    if (sent <= 0) return;
    at += static_cast<std::size_t>(sent);
  }
}

/// Serves SHA-1 connections until the listener is shut down (or idle for 5 s). The handler answers
/// with the request's data reversed.
void serve(int listenFd, std::shared_ptr<CharmAuthServerState> state) {
  for (;;) {
    pollfd entry{listenFd, POLLIN, 0};
    if (::poll(&entry, 1, 5000) <= 0) return;
    ScopedFd conn(::accept(listenFd, nullptr, nullptr));
    if (!conn.valid()) return;
    CharmAuthServer server(state);
    std::uint8_t buffer[4096];
    for (;;) {
      ssize_t got = ::recv(conn.get(), buffer, sizeof buffer, 0);
      if (got <= 0) break;
      auto step = server.feed(std::span<const std::uint8_t>(buffer, static_cast<std::size_t>(got)));
      writeAll(conn.get(), step.send);
      if (step.request) {
        Bytes data(step.request->data.rbegin(), step.request->data.rend());
        if (auto frame = server.replyFrame(data)) writeAll(conn.get(), *frame);
        break;
      }
      if (step.closeAfterSend) break;
    }
  }
}

}  // namespace

TEST_CASE("blocking handshake and calls over loopback", "[ccs][charm-auth]") {
  std::uint16_t port = 0;
  ScopedFd listener = listenLoopback(port);
  CharmKeyTable keys;
  keys.keys[0] = kKey;
  auto state = std::make_shared<CharmAuthServerState>(keys);
  std::thread thread(serve, listener.get(), state);
  Endpoint endpoint{"127.0.0.1", port};

  auto session = CharmAuthClient::handshake(endpoint, 0, kKey, 5s);
  REQUIRE(session.has_value());
  CHECK(session->clientId == 0);
  std::uint32_t firstSalt = session->salt;
  CharmSession stale = *session;

  Request request{0, {}, "echo", {'a', 'b', 'c'}};
  auto reply = CharmAuthClient::call(endpoint, *session, request, 5s);
  REQUIRE(reply.has_value());
  CHECK(*reply == Bytes{'c', 'b', 'a'});
  reply = CharmAuthClient::call(endpoint, *session, request, 5s);
  CHECK(reply.has_value());
  CHECK(session->salt == firstSalt + 2);
  CHECK(state->expectedSalt(0) == firstSalt + 2);

  // A replay with the first salt is closed without a reply.
  auto replay = CharmAuthClient::call(endpoint, stale, request, 5s);
  REQUIRE_FALSE(replay.has_value());
  CHECK_THAT(replay.error().message, Catch::Contains("127.0.0.1:" + std::to_string(port)));
  CHECK_THAT(replay.error().message, Catch::Contains("without a reply"));

  CharmKey wrong = kKey;
  wrong[0] ^= 1;
  auto rejected = CharmAuthClient::handshake(endpoint, 0, wrong, 5s);
  REQUIRE_FALSE(rejected.has_value());
  CHECK_THAT(rejected.error().message, Catch::Contains("rejected the handshake"));

  auto noKey = CharmAuthClient::handshake(endpoint, 3, kKey, 5s);
  REQUIRE_FALSE(noKey.has_value());
  CHECK_THAT(noKey.error().message, Catch::Contains("no key for security level 3"));

  auto bad = CharmAuthClient::call(endpoint, *session, Request{0, {}, "", {}}, 5s);
  REQUIRE_FALSE(bad.has_value());
  CHECK_THAT(bad.error().message, Catch::Contains("empty handler name"));
  CHECK(session->salt == firstSalt + 2);  // nothing was sent

  ::shutdown(listener.get(), SHUT_RDWR);  // wakes the server thread
  thread.join();
  CHECK(state->clientCount() == 1);
}

TEST_CASE("blocking handshake times out on a silent server", "[ccs][charm-auth]") {
  std::uint16_t port = 0;
  ScopedFd listener = listenLoopback(port);  // never accepts: connect succeeds, nothing answers
  auto started = std::chrono::steady_clock::now();
  auto session = CharmAuthClient::handshake(Endpoint{"127.0.0.1", port}, 0, kKey, 200ms);
  REQUIRE_FALSE(session.has_value());
  CHECK_THAT(session.error().message, Catch::Contains("timed out after 200 ms"));
  CHECK(std::chrono::steady_clock::now() - started < 3s);
}
