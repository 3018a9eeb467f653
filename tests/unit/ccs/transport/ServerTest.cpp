// Server and Client over real loopback sockets.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <thread>

#include "tests/unit/ccs/ServerHarness.hpp"
#include "ccs/transport/Client.hpp"
#include "ccs/transport/Server.hpp"

#include "tests/unit/ccs/ServerHarness.hpp"

using namespace mpidbg::ccs;
using namespace std::chrono_literals;
using mpidbg::ccs::test::request;
using Bytes = std::vector<std::uint8_t>;

namespace {

/// Collects the server's log lines from any thread.
struct LogSink {
  std::mutex mutex;
  std::vector<std::string> lines;
  bool contains(const std::string& text) {
    std::lock_guard lock(mutex);
    for (const auto& line : lines)
      if (line.find(text) != std::string::npos) return true;
    return false;
  }
};

/// A server with an echo, a failing and a silent handler, optionally driven by
/// its own thread calling pollOnce until destroyed.
struct TestServer {
  LogSink log;
  std::unique_ptr<Server> server;
  std::atomic<bool> stop{false};
  std::thread thread;

  explicit TestServer(ServerOptions options = {}) {
    options.log = [this](const std::string& line) {
      std::lock_guard lock(log.mutex);
      log.lines.push_back(line);
    };
    auto created = Server::create(std::move(options));
    REQUIRE(created.has_value());
    server = std::move(*created);
    server->addHandler("echo", [](const Request& r) -> HandlerResult { return r.data; });
    server->addHandler("fail", [](const Request&) -> HandlerResult {
      return mpidbg::fail("this handler always fails");
    });
    server->addHandler("silent", [](const Request&) -> HandlerResult { return std::nullopt; });
  }
  void start() {
    thread = std::thread([this] {
      while (!stop) server->pollOnce(10ms);
    });
  }
  /// Single-threaded tests: a few poll rounds.
  void spin(int rounds = 5) {
    for (int i = 0; i < rounds; ++i) server->pollOnce(5ms);
  }
  ~TestServer() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
};

void sendBytes(int fd, const Bytes& bytes) {
  REQUIRE(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(bytes.size()));
}

/// Reads what arrives within `wait`; `closed` tells whether EOF (or reset) was seen.
Bytes readFor(int fd, std::chrono::milliseconds wait, bool& closed, std::size_t want = SIZE_MAX) {
  Bytes out;
  closed = false;
  auto deadline = std::chrono::steady_clock::now() + wait;
  while (out.size() < want && std::chrono::steady_clock::now() < deadline) {
    pollfd entry{fd, POLLIN, 0};
    if (::poll(&entry, 1, 10) <= 0) continue;
    std::uint8_t buffer[4096];
    ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
    if (got <= 0) {
      closed = true;
      break;
    }
    out.insert(out.end(), buffer, buffer + got);
  }
  return out;
}

}  // namespace

TEST_CASE("server answers an echo request", "[ccs][server]") {
  TestServer t;
  t.start();
  auto reply = Client::call(t.server->endpoint(), request("echo", {1, 2, 3}), 2000ms);
  REQUIRE(reply.has_value());
  CHECK(*reply == Bytes{1, 2, 3});
}

TEST_CASE("unknown handler gets an empty reply", "[ccs][server]") {
  TestServer t;
  t.start();
  auto reply = Client::call(t.server->endpoint(), request("no_such_handler"), 2000ms);
  REQUIRE(reply.has_value());
  CHECK(reply->empty());
  CHECK(t.log.contains("no_such_handler"));
}

TEST_CASE("handler error gets an empty reply and the server keeps serving", "[ccs][server]") {
  TestServer t;
  t.start();
  auto failed = Client::call(t.server->endpoint(), request("fail", {9}), 2000ms);
  REQUIRE(failed.has_value());
  CHECK(failed->empty());
  CHECK(t.log.contains("this handler always fails"));
  auto echo = Client::call(t.server->endpoint(), request("echo", {7}), 2000ms);
  REQUIRE(echo.has_value());
  CHECK(*echo == Bytes{7});
}

TEST_CASE("requests for other PEs get an empty reply", "[ccs][server]") {
  ServerOptions options;
  options.pe = 3;
  TestServer t(options);
  t.start();
  for (std::int32_t pe : {0, -1}) {
    auto reply = Client::call(t.server->endpoint(), request("echo", {1}, pe), 2000ms);
    REQUIRE(reply.has_value());
    CHECK(reply->empty());
  }
  Request multicast = request("echo", {1}, -2);
  multicast.multicastPes = {3, 4};
  auto reply = Client::call(t.server->endpoint(), multicast, 2000ms);
  REQUIRE(reply.has_value());
  CHECK(reply->empty());
  auto mine = Client::call(t.server->endpoint(), request("echo", {1}, 3), 2000ms);
  REQUIRE(mine.has_value());
  CHECK(*mine == Bytes{1});
}

TEST_CASE("a stalled partial header does not delay other clients", "[ccs][server]") {
  ServerOptions options;
  options.idleTimeout = 1500ms;
  TestServer t(options);
  t.start();
  // Ten bytes of a ccs_getinfo header, as in capture 09f, then silence.
  mpidbg::ScopedFd stalled = test::rawConnect(t.server->endpoint());
  sendBytes(stalled.get(), Bytes{0, 0, 0, 0, 0, 0, 0, 0, 'c', 'c'});

  auto started = std::chrono::steady_clock::now();
  auto reply = Client::call(t.server->endpoint(), request("echo", {5}), 2000ms);
  auto took = std::chrono::steady_clock::now() - started;
  REQUIRE(reply.has_value());
  CHECK(*reply == Bytes{5});
  CHECK(took < 1000ms);  // well under the idle timeout

  // The idle timeout then closes the stalled connection with no reply.
  bool closed = false;
  Bytes got = readFor(stalled.get(), 5000ms, closed);
  CHECK(got.empty());
  CHECK(closed);
  CHECK(t.log.contains("idle"));
}

TEST_CASE("a malformed stream closes only its own connection", "[ccs][server]") {
  TestServer t;
  t.start();
  mpidbg::ScopedFd bad = test::rawConnect(t.server->endpoint());
  sendBytes(bad.get(), Bytes{'G', 'E', 'T', ' '});
  bool closed = false;
  CHECK(readFor(bad.get(), 2000ms, closed).empty());
  CHECK(closed);
  CHECK(t.log.contains("0x47"));
  auto reply = Client::call(t.server->endpoint(), request("echo", {1}), 2000ms);
  REQUIRE(reply.has_value());
}

TEST_CASE("persistent mode serves two requests on one connection", "[ccs][server]") {
  ServerOptions options;
  options.persistent = true;
  TestServer t(options);
  t.start();
  mpidbg::ScopedFd fd = test::rawConnect(t.server->endpoint());
  auto a = encodeRequest(request("echo", {1, 2}));
  auto b = encodeRequest(request("echo", {3}));
  REQUIRE((a && b));
  Bytes both = *a;
  both.insert(both.end(), b->begin(), b->end());
  sendBytes(fd.get(), both);
  Bytes want = encodeReply(Bytes{1, 2});
  Bytes second = encodeReply(Bytes{3});
  want.insert(want.end(), second.begin(), second.end());
  bool closed = false;
  CHECK(readFor(fd.get(), 2000ms, closed, want.size()) == want);
  CHECK_FALSE(closed);
  // And a third request later on the same connection.
  sendBytes(fd.get(), *b);
  CHECK(readFor(fd.get(), 2000ms, closed, second.size()) == second);
}

TEST_CASE("plain mode closes after one reply", "[ccs][server]") {
  TestServer t;
  mpidbg::ScopedFd fd = test::rawConnect(t.server->endpoint());
  auto a = encodeRequest(request("echo", {4}));
  REQUIRE(a.has_value());
  sendBytes(fd.get(), *a);
  t.spin();
  bool closed = false;
  CHECK(readFor(fd.get(), 500ms, closed) == encodeReply(Bytes{4}));
  CHECK(closed);
  t.spin();
  CHECK(t.server->connectionCount() == 0);
}

TEST_CASE("a handler with no reply leaves the connection open and silent", "[ccs][server]") {
  TestServer t;
  mpidbg::ScopedFd fd = test::rawConnect(t.server->endpoint());
  auto a = encodeRequest(request("silent", {0}));
  REQUIRE(a.has_value());
  sendBytes(fd.get(), *a);
  t.spin();
  bool closed = false;
  CHECK(readFor(fd.get(), 100ms, closed).empty());
  CHECK_FALSE(closed);
  CHECK(t.server->connectionCount() == 1);
  fd.reset();
  t.spin();
  CHECK(t.server->connectionCount() == 0);
}

TEST_CASE("watch callbacks fire in the poll loop", "[ccs][server]") {
  TestServer t;
  int pipeFds[2];
  REQUIRE(::pipe(pipeFds) == 0);
  mpidbg::ScopedFd readEnd(pipeFds[0]);
  mpidbg::ScopedFd writeEnd(pipeFds[1]);
  int fired = 0;
  t.server->watch(readEnd.get(), [&](short revents) {
    ++fired;
    CHECK((revents & POLLIN) != 0);
    char byte;
    CHECK(::read(readEnd.get(), &byte, 1) == 1);
    // Callbacks may change the tables they are called from.
    t.server->unwatch(readEnd.get());
    t.server->addHandler("late", [](const Request&) -> HandlerResult { return Bytes{1}; });
  });
  t.spin(2);
  CHECK(fired == 0);
  REQUIRE(::write(writeEnd.get(), "x", 1) == 1);
  t.spin(2);
  CHECK(fired == 1);
  REQUIRE(::write(writeEnd.get(), "y", 1) == 1);
  t.spin(2);
  CHECK(fired == 1);  // unwatched
}

TEST_CASE("client errors name the endpoint and the cause", "[ccs][client]") {
  SECTION("connection refused") {
    Endpoint closedPort;
    {
      auto s = Server::create({});
      REQUIRE(s.has_value());
      closedPort = (*s)->endpoint();
    }
    auto reply = Client::call(closedPort, request("echo"), 2000ms);
    REQUIRE_FALSE(reply.has_value());
    CHECK(reply.error().message ==
          "cannot connect to " + closedPort.toString() + ": Connection refused");
  }
  SECTION("timeout while the handler stays silent") {
    TestServer t;
    t.start();
    auto reply = Client::call(t.server->endpoint(), request("silent"), 200ms);
    REQUIRE_FALSE(reply.has_value());
    CHECK(reply.error().message ==
          "timed out after 200 ms waiting for reply from " + t.server->endpoint().toString());
    // send() does not wait for the reply.
    CHECK(Client::send(t.server->endpoint(), request("silent"), 2000ms).has_value());
  }
  SECTION("server closes without a reply") {
    ServerOptions options;
    options.maxRequestBytes = 4;
    TestServer t(options);
    t.start();
    auto reply = Client::call(t.server->endpoint(), request("echo", Bytes(5, 1)), 2000ms);
    REQUIRE_FALSE(reply.has_value());
    CHECK_THAT(reply.error().message, Catch::Contains(t.server->endpoint().toString()));
    CHECK(t.log.contains("over the limit"));
  }
  SECTION("bad request is refused before connecting") {
    auto reply = Client::call(Endpoint{"127.0.0.1", 1}, request(""), 2000ms);
    REQUIRE_FALSE(reply.has_value());
    CHECK_THAT(reply.error().message, Catch::Contains("empty handler"));
  }
  SECTION("unknown host") {
    auto reply = Client::call(Endpoint{"no-such-host.invalid", 4100}, request("echo"), 2000ms);
    REQUIRE_FALSE(reply.has_value());
    CHECK_THAT(reply.error().message, Catch::Contains("no-such-host.invalid"));
  }
}

TEST_CASE("server creation errors", "[ccs][server]") {
  auto first = Server::create({});
  REQUIRE(first.has_value());
  ServerOptions same;
  same.port = (*first)->endpoint().port;
  auto second = Server::create(same);
  REQUIRE_FALSE(second.has_value());
  CHECK_THAT(second.error().message, Catch::Contains("in use"));
  ServerOptions bad;
  bad.bindAddress = "not an address";
  CHECK_FALSE(Server::create(bad).has_value());
}
