// Deferred replies (Responder), the routing hook, invokeLocal and flood
// limits of the Server.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <condition_variable>
#include <optional>

#include "tests/unit/ccs/ServerHarness.hpp"
#include "ccs/transport/Client.hpp"
#include "ccs/transport/Connection.hpp"

using namespace mpidbg::ccs;
using namespace mpidbg::ccs::test;
using namespace std::chrono_literals;

namespace {

/// Responders parked by a handler, answered later by the test.
struct Parking {
  std::mutex mutex;
  std::condition_variable arrived;
  std::vector<Responder> responders;

  AsyncHandler handler() {
    return [this](const Request&, Responder responder) {
      std::lock_guard lock(mutex);
      responders.push_back(std::move(responder));
      arrived.notify_all();
    };
  }
  /// Waits until `n` requests are parked; false on timeout.
  bool waitFor(std::size_t n) {
    std::unique_lock lock(mutex);
    return arrived.wait_for(lock, 5s, [&] { return responders.size() >= n; });
  }
  Responder take(std::size_t i) {
    std::lock_guard lock(mutex);
    return std::move(responders.at(i));
  }
};

std::unique_ptr<Connection> openTls(RunningServer& t, std::uint8_t seed) {
  auto connection = Connection::open(t.endpoint(), tls(testKey(seed)), 2000ms);
  REQUIRE(connection.has_value());
  return std::move(*connection);
}

}  // namespace

TEST_CASE("a deferred reply is sent from another thread", "[ccs][server][async]") {
  RunningServer t(tlsOptions(testKey(1)));
  t.server->addAsyncHandler("later", [](const Request& r, Responder responder) {
    std::thread([data = r.data, responder = std::move(responder)]() mutable {
      std::this_thread::sleep_for(20ms);
      responder.reply(data);
      responder.reply(Bytes{9});  // ignored
    }).detach();
  });
  t.start();
  auto connection = openTls(t, 1);
  auto reply = connection->call(request("later", {4, 2}), 2000ms);
  REQUIRE(reply.has_value());
  CHECK(*reply == Bytes{4, 2});
  // And in Charm++'s plain mode: one reply, then the connection closes.
  RunningServer plain;
  plain.server->addAsyncHandler("later", [](const Request&, Responder responder) {
    std::thread([responder = std::move(responder)]() mutable { responder.reply({7}); }).detach();
  });
  plain.start();
  auto plainReply = Client::call(plain.endpoint(), request("later"), 2000ms);
  REQUIRE(plainReply.has_value());
  CHECK(*plainReply == Bytes{7});
}

TEST_CASE("replies keep request order when an earlier request is deferred",
          "[ccs][server][async]") {
  RunningServer t(tlsOptions(testKey(2)));
  Parking parking;
  t.server->addAsyncHandler("park", parking.handler());
  t.start();
  auto connection = openTls(t, 2);
  std::thread answerer([&] {
    REQUIRE(parking.waitFor(2));
    std::this_thread::sleep_for(50ms);  // echo is long answered by now
    parking.take(1).reply(bytes("second park"));
    parking.take(0).reply(bytes("first park"));
  });
  std::vector<Request> requests{request("park"), request("echo", bytes("echo 1")),
                                request("park"), request("echo", bytes("echo 2"))};
  auto replies = connection->callMany(requests, 5000ms);
  answerer.join();
  std::vector<Bytes> want{bytes("first park"), bytes("echo 1"), bytes("second park"),
                          bytes("echo 2")};
  for (std::size_t i = 0; i < want.size(); ++i) {
    REQUIRE(replies[i].has_value());
    CHECK(*replies[i] == want[i]);
  }
}

TEST_CASE("a Responder dropped unanswered sends an empty reply", "[ccs][server][async]") {
  RunningServer t(tlsOptions(testKey(3)));
  t.server->addAsyncHandler("drop", [](const Request&, Responder) {});
  t.server->addAsyncHandler("throw", [](const Request&, Responder) {
    throw std::runtime_error("async handler failed");
  });
  t.start();
  auto connection = openTls(t, 3);
  for (const char* name : {"drop", "throw"}) {
    auto reply = connection->call(request(name, {1}), 2000ms);
    REQUIRE(reply.has_value());
    CHECK(reply->empty());
  }
  CHECK(t.logged("async handler failed"));
  auto echo = connection->call(request("echo", {5}), 2000ms);
  REQUIRE(echo.has_value());
  CHECK(*echo == Bytes{5});
}

TEST_CASE("noReply leaves a plain connection open and silent", "[ccs][server][async]") {
  RunningServer t;
  t.server->addAsyncHandler("freeze", [](const Request&, Responder r) { r.noReply(); });
  t.start();
  auto reply = Client::call(t.endpoint(), request("freeze"), 200ms);
  REQUIRE_FALSE(reply.has_value());
  CHECK_THAT(reply.error().message, Catch::Contains("timed out"));
}

TEST_CASE("the routing hook receives broadcasts, multicasts and other PEs",
          "[ccs][server][async]") {
  ServerOptions options = tlsOptions(testKey(4));
  options.pe = 0;
  RunningServer t(options);
  std::vector<std::int32_t> routed;  // server thread only, read after halt
  t.server->setRoutingHook([&](const Request& r, Responder responder) {
    routed.push_back(r.pe);
    if (r.pe == kBroadcastPe) {
      // The forwarding layer answers this PE's share locally.
      t.server->invokeLocal(r, std::move(responder));
      return;
    }
    responder.reply(bytes("routed " + std::to_string(r.pe)));
  });
  t.start();
  auto connection = openTls(t, 4);
  Request multicast = request("echo", {1}, -2);
  multicast.multicastPes = {3, 4};
  std::vector<Request> requests{request("echo", bytes("all"), kBroadcastPe), multicast,
                                request("echo", {1}, 5), request("echo", bytes("mine"), 0)};
  auto replies = connection->callMany(requests, 2000ms);
  std::vector<Bytes> want{bytes("all"), bytes("routed -2"), bytes("routed 5"), bytes("mine")};
  for (std::size_t i = 0; i < want.size(); ++i) {
    REQUIRE(replies[i].has_value());
    CHECK(*replies[i] == want[i]);
  }
  t.halt();
  CHECK(routed == std::vector<std::int32_t>{-1, -2, 5});
}

TEST_CASE("invokeLocal answers through the responder", "[ccs][server][async]") {
  RunningServer t;
  t.server->addHandler("fail", [](const Request&) -> HandlerResult {
    return mpidbg::fail("local failure");
  });
  t.server->addAsyncHandler("async", [](const Request& r, Responder responder) {
    responder.reply(r.data);
  });
  // "relay" stands in for the forwarding layer: it runs the handler named in
  // its data locally, on the server's thread.
  t.server->addAsyncHandler("relay", [&](const Request& r, Responder responder) {
    std::string name(r.data.begin(), r.data.end());
    t.server->invokeLocal(request(name, {1, 2}), std::move(responder));
  });
  t.start();
  struct Row {
    const char* handler;
    Bytes want;
  };
  for (const Row& row : {Row{"echo", {1, 2}}, Row{"async", {1, 2}}, Row{"fail", {}},
                         Row{"unknown", {}}}) {
    INFO(row.handler);
    auto reply = Client::call(t.endpoint(), request("relay", bytes(row.handler)), 2000ms);
    REQUIRE(reply.has_value());
    CHECK(*reply == row.want);
  }
  CHECK(t.logged("local failure"));
  CHECK(t.logged("unknown handler 'unknown'"));
}

TEST_CASE("a Responder outlives its connection and its server", "[ccs][server][async]") {
  Parking parking;
  {
    RunningServer t(tlsOptions(testKey(5)));
    t.server->addAsyncHandler("park", parking.handler());
    t.start();
    {
      auto connection = openTls(t, 5);
      auto reply = connection->call(request("park"), 100ms);  // times out, then closes
      CHECK_FALSE(reply.has_value());
    }
    REQUIRE(parking.waitFor(1));
    CHECK(t.pollUntil([](Server& s) { return s.connectionCount() == 0; }));
    parking.take(0).reply({1});  // its connection is gone: dropped

    auto connection = openTls(t, 5);
    std::vector<Request> two{request("park"), request("park")};
    auto replies = connection->callMany(two, 100ms);
    CHECK_FALSE(replies[0].has_value());
    REQUIRE(parking.waitFor(3));
    auto echo = openTls(t, 5)->call(request("echo", {3}), 2000ms);
    REQUIRE(echo.has_value());
    CHECK(*echo == Bytes{3});
  }  // server destroyed with two Responders outstanding
  std::thread([&] { parking.take(1).reply({2}); }).join();
  {
    Responder unanswered = parking.take(2);
    CHECK(unanswered.pending());
  }  // destroyed unanswered after the server: the empty reply goes nowhere
  Responder moved = parking.take(1);
  CHECK_FALSE(moved.pending());
}

TEST_CASE("a peer that does not read its replies is closed; others are served",
          "[ccs][server][async]") {
  ServerOptions options;
  options.persistent = true;
  options.idleTimeout = 2000ms;
  RunningServer t(options);
  t.server->addHandler("big", [](const Request&) -> HandlerResult { return Bytes(1 << 20, 1); });
  t.start();
  mpidbg::ScopedFd flooder(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(t.endpoint().port);
  ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  REQUIRE(::connect(flooder.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  auto one = encodeRequest(request("big"));
  REQUIRE(one.has_value());
  Bytes many;
  for (int i = 0; i < 200; ++i) many.insert(many.end(), one->begin(), one->end());
  REQUIRE(::send(flooder.get(), many.data(), many.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(many.size()));

  auto started = std::chrono::steady_clock::now();
  auto reply = Client::call(t.endpoint(), request("echo", {1}), 2000ms);
  REQUIRE(reply.has_value());
  CHECK(std::chrono::steady_clock::now() - started < 1000ms);  // not after the idle timeout
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!t.logged("reply not read") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  CHECK(t.logged("reply not read"));
}
