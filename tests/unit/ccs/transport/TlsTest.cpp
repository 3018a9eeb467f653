// TLS 1.3 external-PSK mode (ccs.md "mpidbg's own mode") over real loopback
// sockets: round trip, wrong keys and identities, plain peers, stalled
// handshakes.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include "tests/unit/ccs/ServerHarness.hpp"
#include "ccs/transport/Client.hpp"
#include "ccs/transport/Connection.hpp"

using namespace mpidbg::ccs;
using namespace mpidbg::ccs::test;
using namespace std::chrono_literals;

namespace {

/// True when the peer closes `fd` within `wait` (bytes before the close are ignored).
bool closedWithin(int fd, std::chrono::milliseconds wait) {
  auto deadline = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd entry{fd, POLLIN, 0};
    if (::poll(&entry, 1, 10) <= 0) continue;
    std::uint8_t buffer[4096];
    if (::recv(fd, buffer, sizeof buffer, 0) <= 0) return true;
  }
  return false;
}

void checkGoodClient(RunningServer& t, const Bytes& key) {
  auto good = Connection::open(t.endpoint(), tls(key), 2000ms);
  REQUIRE(good.has_value());
  auto reply = (*good)->call(request("echo", bytes("still serving")), 2000ms);
  REQUIRE(reply.has_value());
  CHECK(*reply == bytes("still serving"));
}

}  // namespace

TEST_CASE("TLS round trip with the session key", "[ccs][tls]") {
  RunningServer t(tlsOptions(testKey(1)));
  t.start();
  auto connection = Connection::open(t.endpoint(), tls(testKey(1)), 2000ms);
  REQUIRE(connection.has_value());
  for (Bytes data : {Bytes{}, Bytes{1, 2, 3}, Bytes(100000, 0xab)}) {
    auto reply = (*connection)->call(request("echo", data), 2000ms);
    REQUIRE(reply.has_value());
    CHECK(*reply == data);
  }
  CHECK_FALSE((*connection)->broken());
  CHECK((*connection)->endpoint().port == t.endpoint().port);
}

TEST_CASE("TLS with a wrong key or identity fails the handshake cleanly", "[ccs][tls]") {
  RunningServer t(tlsOptions(testKey(1)));
  t.start();
  struct Row {
    const char* what;
    Security security;
  };
  for (const Row& row : {Row{"wrong key", tls(testKey(2))},
                         Row{"wrong identity", tls(testKey(1), "someone-else")}}) {
    INFO(row.what);
    auto refused = Connection::open(t.endpoint(), row.security, 2000ms);
    REQUIRE_FALSE(refused.has_value());
    CHECK_THAT(refused.error().message, Catch::Contains(t.endpoint().toString()) &&
                                            Catch::Contains("TLS handshake failed") &&
                                            Catch::Contains("session key"));
    checkGoodClient(t, testKey(1));
  }
  CHECK(t.logged("TLS handshake failed"));
}

TEST_CASE("a plain client against a TLS server is refused and others are served", "[ccs][tls]") {
  RunningServer t(tlsOptions(testKey(3)));
  t.start();
  auto plain = Client::call(t.endpoint(), request("echo", {1}), 2000ms);
  REQUIRE_FALSE(plain.has_value());
  CHECK_THAT(plain.error().message, Catch::Contains(t.endpoint().toString()));
  auto persistent = Connection::open(t.endpoint(), Security{SecurityMode::Plain, {}, ""}, 2000ms);
  REQUIRE(persistent.has_value());  // TCP connects; the first call is refused
  CHECK_FALSE((*persistent)->call(request("echo", {1}), 2000ms).has_value());
  CHECK((*persistent)->broken());
  CHECK(t.logged("TLS handshake failed"));
  checkGoodClient(t, testKey(3));
}

TEST_CASE("a TLS client against a plain server fails with a clear error", "[ccs][tls]") {
  ServerOptions options;
  options.persistent = true;
  RunningServer t(options);
  t.start();
  auto refused = Connection::open(t.endpoint(), tls(testKey(1)), 2000ms);
  REQUIRE_FALSE(refused.has_value());
  CHECK_THAT(refused.error().message, Catch::Contains("TLS handshake failed"));
  CHECK(t.logged("malformed request"));  // 0x16 0x03 0x01 0x.. read as a length
}

TEST_CASE("a client stalled mid-TLS-handshake does not delay another", "[ccs][tls]") {
  ServerOptions options = tlsOptions(testKey(4));
  options.idleTimeout = 1500ms;
  RunningServer t(options);
  t.start();
  // The first bytes of a TLS record header, then silence.
  mpidbg::ScopedFd stalled = rawConnect(t.endpoint());
  const std::uint8_t partial[] = {0x16, 0x03, 0x01};
  REQUIRE(::send(stalled.get(), partial, sizeof partial, MSG_NOSIGNAL) == 3);
  mpidbg::ScopedFd silent = rawConnect(t.endpoint());  // connects, sends nothing

  auto started = std::chrono::steady_clock::now();
  checkGoodClient(t, testKey(4));
  CHECK(std::chrono::steady_clock::now() - started < 1000ms);

  CHECK(closedWithin(stalled.get(), 5000ms));
  CHECK(closedWithin(silent.get(), 5000ms));
  CHECK(t.logged("TLS handshake idle"));
}

TEST_CASE("TLS set-up errors", "[ccs][tls]") {
  auto server = Server::create(tlsOptions(Bytes(5, 1)));
  REQUIRE_FALSE(server.has_value());
  CHECK_THAT(server.error().message, Catch::Contains("32-byte session key"));
  auto client = Connection::open(Endpoint{"127.0.0.1", 1}, tls(Bytes{}), 500ms);
  REQUIRE_FALSE(client.has_value());
  CHECK_THAT(client.error().message,
             Catch::Contains("127.0.0.1:1") && Catch::Contains("32-byte session key"));
}
