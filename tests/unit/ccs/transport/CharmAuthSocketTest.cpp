// The Server in Charm++'s SHA-1 authenticated mode over real loopback sockets:
// the official C client's captured session replayed byte for byte (capture
// 10), a plain request refused (08e), our CharmAuthClient against it, and
// the Charm++ listener beside a TLS one (Server::addCharmListener).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <catch2/catch.hpp>
#include <atomic>
#include <deque>
#include <thread>

#include "tests/unit/ccs/ServerHarness.hpp"
#include "tests/unit/ccs/Transcript.hpp"
#include "tests/unit/ccs/CharmTestKeys.hpp"
#include "ccs/transport/CharmAuthClient.hpp"
#include "ccs/transport/CharmAuthServer.hpp"
#include "ccs/transport/Client.hpp"
#include "ccs/transport/Connection.hpp"
#include "ccs/transport/Frame.hpp"
#include "mpidbg/ScopedFd.hpp"

using namespace mpidbg::ccs;
using mpidbg::ccs::test::kKey;
using namespace mpidbg::ccs::test;
using namespace std::chrono_literals;
using Bytes = std::vector<std::uint8_t>;

namespace {

/// Server randomness that yields the captured s2 and salt values in order.
CharmRandomSource scripted(std::deque<std::uint32_t> values) {
  auto queue = std::make_shared<std::deque<std::uint32_t>>(std::move(values));
  return [queue]() -> mpidbg::Expected<std::uint32_t> {
    if (queue->empty()) return mpidbg::fail("scripted random source exhausted");
    const std::uint32_t v = queue->front();
    queue->pop_front();
    return v;
  };
}

/// Connects to `port`, sends `bytes`, half-closes nothing, and reads until
/// the server closes (at most 5 s).
Bytes exchange(std::uint16_t port, const Bytes& bytes) {
  mpidbg::ScopedFd fd = rawConnect(Endpoint{"127.0.0.1", port});
  REQUIRE(::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()));
  Bytes got;
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    std::uint8_t buf[4096];
    const ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n <= 0) return got;  // closed (EOF or reset)
    got.insert(got.end(), buf, buf + n);
  }
  FAIL("the server did not close the connection within 5 s");
  return got;
}

}  // namespace

TEST_CASE("Server accepts Charm++'s own C client: capture 10 replayed over sockets",
          "[ccs][charm-auth]") {
  auto transcript = readTranscript("10_official_c_client_secure_session.txt");
  REQUIRE(transcript.ok);
  CharmKeyTable keys;
  keys.keys[0] = kKey;
  ServerOptions options;
  options.charmAuth = std::make_shared<CharmAuthServerState>(keys, scripted({0x8fc48810, 0x02803b11}));
  RunningServer running(options);
  // Handlers answer with the captured reply data (after the 20-byte hash and length).
  auto captured = [&](std::size_t i) {
    const Bytes& s = transcript.connections[i].server;
    return Bytes(s.begin() + 24, s.end());
  };
  running.server->addHandler("ccs_getinfo", [&](const Request&) -> HandlerResult { return captured(1); });
  std::size_t pingIndex = 2;
  running.server->addHandler("ping", [&](const Request&) -> HandlerResult { return captured(pingIndex++); });
  // The pings were addressed to PEs 0 and 1 of the captured job: this one
  // server plays every PE.
  Server* server = running.server.get();
  server->setRoutingHook([server](const Request& r, Responder responder) {
    server->invokeLocal(r, std::move(responder));
  });
  running.start();
  for (std::size_t i = 0; i < transcript.connections.size(); ++i) {
    INFO("connection " << i + 1);
    CHECK(exchange(running.server->endpoint().port, transcript.connections[i].client) ==
          transcript.connections[i].server);
  }
}

TEST_CASE("Server in Charm++ SHA-1 mode refuses plain requests (08e)", "[ccs][charm-auth]") {
  CharmKeyTable keys;
  keys.keys[0] = kKey;
  ServerOptions options;
  options.charmAuth = std::make_shared<CharmAuthServerState>(keys);
  RunningServer running(options);
  running.start();
  auto conn = readTranscript("08e_secure_server_plain_request_denied.txt");
  REQUIRE(conn.ok);
  CHECK(exchange(running.server->endpoint().port, conn.connections.at(0).client).empty());
  // Our plain client sees a close without a reply, and the server goes on.
  auto reply = Client::call(running.server->endpoint(), request("echo", bytes("x")), 2000ms);
  REQUIRE_FALSE(reply.has_value());
  CHECK_THAT(reply.error().message, Catch::Contains("without a reply"));
}

TEST_CASE("CharmAuthClient and the Server in SHA-1 mode talk", "[ccs][charm-auth]") {
  CharmKeyTable keys;
  keys.keys[0] = kKey;
  ServerOptions options;
  options.charmAuth = std::make_shared<CharmAuthServerState>(keys);
  RunningServer running(options);
  running.start();
  const Endpoint at = running.server->endpoint();
  auto session = CharmAuthClient::handshake(at, 0, kKey, 2000ms);
  REQUIRE(session.has_value());
  for (int i = 0; i < 3; ++i) {
    auto reply = CharmAuthClient::call(at, *session, request("echo", bytes("hello")), 2000ms);
    REQUIRE(reply.has_value());
    CHECK(*reply == bytes("hello"));
  }
  CharmKey wrong = kKey;
  wrong[0] ^= 0xff;
  auto refused = CharmAuthClient::handshake(at, 0, wrong, 2000ms);
  CHECK_FALSE(refused.has_value());
  // A replayed salt is refused; the real session still works afterwards.
  CharmSession stale = *session;
  stale.salt -= 1;
  CHECK_FALSE(CharmAuthClient::call(at, stale, request("echo", bytes("again")), 2000ms).has_value());
  auto after = CharmAuthClient::call(at, *session, request("echo", bytes("after")), 2000ms);
  REQUIRE(after.has_value());
  CHECK(*after == bytes("after"));
}

TEST_CASE("CharmAuthClient::send: a request without waiting for its reply (mpidbg-ccs --no-reply)", "[ccs][charm-auth]") {
  CharmKeyTable keys;
  keys.keys[0] = kKey;
  ServerOptions options;
  options.charmAuth = std::make_shared<CharmAuthServerState>(keys);
  RunningServer running(options);
  std::atomic<bool> arrived{false};
  running.server->addHandler("quiet", [&arrived](const Request& r) -> HandlerResult {
    arrived = r.data == bytes("unanswered");
    return r.data;
  });
  running.start();
  const Endpoint at = running.server->endpoint();
  auto session = CharmAuthClient::handshake(at, 0, kKey, 2000ms);
  REQUIRE(session.has_value());
  const auto salt = session->salt;
  REQUIRE(CharmAuthClient::send(at, *session, request("quiet", bytes("unanswered")), 2000ms).has_value());
  CHECK(session->salt == salt + 1);  // the request used its salt, as call does
  // The server authenticated and ran it although the client never read.
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (!arrived && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(10ms);
  CHECK(arrived);
}

TEST_CASE("A TLS server's Charm++ listener: SHA-1 one-shot requests beside persistent TLS, other PEs routed",
          "[ccs][charm-auth]") {
  const Bytes sessionKey = testKey(7);
  ServerOptions options;
  options.security = tls(sessionKey);
  options.pe = 0;
  RunningServer running(options);
  running.server->addHandler("echo", [](const Request& r) -> HandlerResult { return r.data; });
  std::atomic<int> routedPe{-100};
  running.server->setRoutingHook([&routedPe](const Request& r, Responder responder) {
    routedPe = r.pe;
    responder.reply(bytes("routed"));
  });
  CharmKeyTable keys;
  keys.keys[0] = kKey;
  auto charm = running.server->addCharmListener("127.0.0.1", 0, std::make_shared<CharmAuthServerState>(keys));
  REQUIRE(charm.has_value());
  CHECK(charm->port != running.server->endpoint().port);
  running.start();

  // Charm++'s SHA-1 mode on the new listener, one request per connection.
  auto session = CharmAuthClient::handshake(*charm, 0, kKey, 2000ms);
  REQUIRE(session.has_value());
  auto echoed = CharmAuthClient::call(*charm, *session, request("echo", bytes("hi")), 2000ms);
  REQUIRE(echoed.has_value());
  CHECK(*echoed == bytes("hi"));
  // A request for another PE goes to the routing hook, as on the main listener.
  auto routed = CharmAuthClient::call(*charm, *session, request("echo", bytes("x"), 3), 2000ms);
  REQUIRE(routed.has_value());
  CHECK(*routed == bytes("routed"));
  CHECK(routedPe == 3);
  // Plain requests are refused there (a level-0 key), as Charm++ refuses them.
  auto frame = encodeRequest(request("echo", bytes("plain")));
  REQUIRE(frame.has_value());
  CHECK(exchange(static_cast<std::uint16_t>(charm->port), *frame).empty());
  // The main listener still speaks TLS, persistently.
  auto connection = Connection::open(running.server->endpoint(), tls(sessionKey), 2000ms);
  REQUIRE(connection.has_value());
  for (const char* text : {"one", "two"}) {
    auto reply = (*connection)->call(request("echo", bytes(text)), 2000ms);
    REQUIRE(reply.has_value());
    CHECK(*reply == bytes(text));
  }
}

TEST_CASE("A plain Charm++ listener answers once and closes, as Charm++ does", "[ccs][charm-auth]") {
  ServerOptions options;
  options.security = tls(testKey(9));
  RunningServer running(options);
  running.server->addHandler("echo", [](const Request& r) -> HandlerResult { return r.data; });
  auto charm = running.server->addCharmListener("127.0.0.1", 0, nullptr);
  REQUIRE(charm.has_value());
  running.start();
  auto frame = encodeRequest(request("echo", bytes("abc")));
  REQUIRE(frame.has_value());
  // Two requests on one connection: the reply to the first, then the close.
  Bytes twice = *frame;
  twice.insert(twice.end(), frame->begin(), frame->end());
  CHECK(exchange(static_cast<std::uint16_t>(charm->port), twice) == Bytes({0, 0, 0, 3, 'a', 'b', 'c'}));
  // A port in use is an error naming it.
  auto busy = running.server->addCharmListener("127.0.0.1", charm->port, nullptr);
  REQUIRE_FALSE(busy.has_value());
  CHECK_THAT(busy.error().message, Catch::Contains("cannot listen on 127.0.0.1 port " + std::to_string(charm->port)));
}
