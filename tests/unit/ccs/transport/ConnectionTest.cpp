// Persistent client connections (plain and TLS): many sequential requests,
// pipelining with replies in order, errors and the broken state.
#include "tests/unit/ccs/ServerHarness.hpp"
#include "ccs/transport/Connection.hpp"

using namespace mpidbg::ccs;
using namespace mpidbg::ccs::test;
using namespace std::chrono_literals;

namespace {

/// Both modes of a persistent connection, as table rows.
struct Mode {
  const char* name;
  ServerOptions server;
  Security client;
};

std::vector<Mode> modes() {
  ServerOptions plain;
  plain.persistent = true;
  return {Mode{"tls", tlsOptions(testKey(7)), tls(testKey(7))},
          Mode{"plain", plain, Security{SecurityMode::Plain, {}, ""}}};
}

Bytes numbered(std::size_t i) { return bytes("request " + std::to_string(i)); }

}  // namespace

TEST_CASE("a persistent connection serves 1000 sequential requests", "[ccs][connection]") {
  for (const Mode& mode : modes()) {
    INFO(mode.name);
    RunningServer t(mode.server);
    t.start();
    auto connection = Connection::open(t.endpoint(), mode.client, 2000ms);
    REQUIRE(connection.has_value());
    for (std::size_t i = 0; i < 1000; ++i) {
      auto reply = (*connection)->call(request("echo", numbered(i)), 2000ms);
      REQUIRE(reply.has_value());
      REQUIRE(*reply == numbered(i));
    }
    CHECK(t.paused([](Server& s) { return s.connectionCount(); }) == 1);
  }
}

TEST_CASE("callMany pipelines 100 requests and returns replies in order", "[ccs][connection]") {
  for (const Mode& mode : modes()) {
    INFO(mode.name);
    RunningServer t(mode.server);
    t.start();
    auto connection = Connection::open(t.endpoint(), mode.client, 2000ms);
    REQUIRE(connection.has_value());
    std::vector<Request> requests;
    for (std::size_t i = 0; i < 100; ++i) requests.push_back(request("echo", numbered(i)));
    auto replies = (*connection)->callMany(requests, 5000ms);
    REQUIRE(replies.size() == 100);
    for (std::size_t i = 0; i < 100; ++i) {
      REQUIRE(replies[i].has_value());
      CHECK(*replies[i] == numbered(i));
    }
  }
}

TEST_CASE("callMany with megabytes in flight does not deadlock", "[ccs][connection]") {
  RunningServer t(tlsOptions(testKey(8)));
  t.start();
  auto connection = Connection::open(t.endpoint(), tls(testKey(8)), 2000ms);
  REQUIRE(connection.has_value());
  std::vector<Request> requests(40, request("echo", Bytes(500000, 0x5a)));
  auto replies = (*connection)->callMany(requests, 20000ms);
  for (auto& reply : replies) {
    REQUIRE(reply.has_value());
    CHECK(reply->size() == 500000);
  }
}

TEST_CASE("a request that cannot be encoded fails alone", "[ccs][connection]") {
  RunningServer t(tlsOptions(testKey(9)));
  t.start();
  auto connection = Connection::open(t.endpoint(), tls(testKey(9)), 2000ms);
  REQUIRE(connection.has_value());
  std::vector<Request> requests{request("echo", {1}), request(""), request("echo", {3})};
  auto replies = (*connection)->callMany(requests, 2000ms);
  REQUIRE(replies[0].has_value());
  CHECK(*replies[0] == Bytes{1});
  REQUIRE_FALSE(replies[1].has_value());
  CHECK_THAT(replies[1].error().message, Catch::Contains("empty handler"));
  REQUIRE(replies[2].has_value());
  CHECK(*replies[2] == Bytes{3});
  CHECK_FALSE((*connection)->broken());
}

TEST_CASE("connection errors name the endpoint and the cause", "[ccs][connection]") {
  SECTION("refused") {
    Endpoint closedPort;
    {
      auto s = Server::create({});
      REQUIRE(s.has_value());
      closedPort = (*s)->endpoint();
    }
    auto connection = Connection::open(closedPort, tls(testKey(1)), 2000ms);
    REQUIRE_FALSE(connection.has_value());
    CHECK(connection.error().message ==
          "cannot connect to " + closedPort.toString() + ": Connection refused");
  }
  SECTION("timeout breaks the connection; later calls fail at once") {
    RunningServer t(tlsOptions(testKey(1)));
    t.server->addHandler("silent", [](const Request&) -> HandlerResult { return std::nullopt; });
    t.start();
    auto connection = Connection::open(t.endpoint(), tls(testKey(1)), 2000ms);
    REQUIRE(connection.has_value());
    auto reply = (*connection)->call(request("silent"), 200ms);
    REQUIRE_FALSE(reply.has_value());
    CHECK(reply.error().message ==
          "timed out after 200 ms waiting for reply from " + t.endpoint().toString());
    CHECK((*connection)->broken());
    auto started = std::chrono::steady_clock::now();
    auto later = (*connection)->call(request("echo"), 2000ms);
    CHECK_FALSE(later.has_value());
    CHECK(std::chrono::steady_clock::now() - started < 100ms);
  }
  SECTION("server closes the connection") {
    ServerOptions options = tlsOptions(testKey(1));
    options.maxRequestBytes = 4;
    RunningServer t(options);
    t.start();
    auto connection = Connection::open(t.endpoint(), tls(testKey(1)), 2000ms);
    REQUIRE(connection.has_value());
    auto reply = (*connection)->call(request("echo", Bytes(5, 1)), 2000ms);
    REQUIRE_FALSE(reply.has_value());
    CHECK_THAT(reply.error().message, Catch::Contains(t.endpoint().toString()));
    CHECK((*connection)->broken());
    CHECK(t.logged("over the limit"));
  }
}

TEST_CASE("a connection that spins for its reply still gets slow replies and still times out",
          "[ccs][connection]") {
  for (const Mode& mode : modes()) {
    INFO(mode.name);
    RunningServer t(mode.server);
    // Answers after `data[0]` ms, from another thread; 255: never (the
    // responder is parked: one dropped unanswered sends an error reply).
    std::vector<Responder> parked;
    t.server->addAsyncHandler("after", [&parked](const Request& r, Responder responder) {
      const int ms = r.data.empty() ? 0 : r.data[0];
      if (ms == 255) {
        parked.push_back(std::move(responder));
        return;
      }
      std::thread([ms, data = r.data, responder = std::move(responder)]() mutable {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        responder.reply(data);
      }).detach();
    });
    t.start();
    auto connection = Connection::open(t.endpoint(), mode.client, 2000ms);
    REQUIRE(connection.has_value());
    (*connection)->setReplySpin(200us);
    // Within the spin (the echo), and long after it (30 ms: the sleeping wait).
    for (int i = 0; i < 50; ++i) {
      auto reply = (*connection)->call(request("echo", numbered(static_cast<std::size_t>(i))), 2000ms);
      REQUIRE(reply.has_value());
      CHECK(*reply == numbered(static_cast<std::size_t>(i)));
    }
    auto slow = (*connection)->call(request("after", Bytes{30, 1}), 2000ms);
    REQUIRE(slow.has_value());
    CHECK(*slow == Bytes{30, 1});
    // A reply that never comes: the deadline holds, spin or not.
    const auto started = std::chrono::steady_clock::now();
    auto never = (*connection)->call(request("after", Bytes{255}), 150ms);
    REQUIRE_FALSE(never.has_value());
    CHECK(never.error().message.find("timed out after 150 ms waiting for reply from") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - started < 1500ms);
    t.halt();
    parked.clear();
  }
}
