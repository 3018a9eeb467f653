#pragma once

// A Server driven by its own thread (pollOnce in a loop until stopped), with
// its log lines collected; shared by the TLS, Connection and async tests.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ccs/transport/Server.hpp"
#include "mpidbg/ScopedFd.hpp"

namespace mpidbg::ccs::test {

using Bytes = std::vector<std::uint8_t>;

/// A running server. Configure handlers before start(); the destructor stops
/// the thread, then destroys the server.
struct RunningServer {
  std::mutex mutex;
  std::vector<std::string> lines;
  std::unique_ptr<Server> server;
  std::atomic<bool> stop{false};
  std::thread thread;

  explicit RunningServer(ServerOptions options = {}) {
    options.log = [this](const std::string& line) {
      std::lock_guard lock(mutex);
      lines.push_back(line);
    };
    auto created = Server::create(std::move(options));
    REQUIRE(created.has_value());
    server = std::move(*created);
    server->addHandler("echo", [](const Request& r) -> HandlerResult { return r.data; });
  }
  void start() {
    thread = std::thread([this] {
      while (!stop) server->pollOnce(std::chrono::milliseconds(10));
    });
  }
  /// Stops the poll thread (the server stays).
  void halt() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
  ~RunningServer() { halt(); }
  /// Server calls from the test thread: pauses the poll thread around `f`
  /// (the Server is not thread-safe), then resumes it.
  template <typename F>
  auto paused(F&& f) {
    halt();
    struct Resume {
      RunningServer& t;
      ~Resume() {
        t.stop = false;
        t.start();
      }
    } resume{*this};
    return f(*server);
  }
  /// Polls on the test thread until `done(server)` or `wait` passed.
  template <typename F>
  bool pollUntil(F&& done, std::chrono::milliseconds wait = std::chrono::milliseconds(2000)) {
    return paused([&](Server& s) {
      auto deadline = std::chrono::steady_clock::now() + wait;
      while (!done(s) && std::chrono::steady_clock::now() < deadline)
        s.pollOnce(std::chrono::milliseconds(5));
      return done(s);
    });
  }

  bool logged(const std::string& text) {
    std::lock_guard lock(mutex);
    for (const auto& line : lines)
      if (line.find(text) != std::string::npos) return true;
    return false;
  }
  Endpoint endpoint() const { return server->endpoint(); }
};

/// A request to `handler` on PE `pe`.
inline Request request(std::string handler, Bytes data = {}, std::int32_t pe = 0) {
  Request r;
  r.pe = pe;
  r.handler = std::move(handler);
  r.data = std::move(data);
  return r;
}

inline Bytes bytes(std::string_view text) { return Bytes(text.begin(), text.end()); }

/// A raw blocking TCP connection to `endpoint` (IPv4 loopback), for tests
/// that send bytes no client would.
inline mpidbg::ScopedFd rawConnect(const Endpoint& endpoint) {
  mpidbg::ScopedFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(endpoint.port);
  ::inet_pton(AF_INET, endpoint.host.c_str(), &address.sin_addr);
  REQUIRE(::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  return fd;
}

/// A 32-byte session key derived from `seed` (tests only).
inline Bytes testKey(std::uint8_t seed) {
  Bytes key(32);
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(seed * 31 + i);
  return key;
}

/// TLS security with `key` and the default identity.
inline Security tls(Bytes key, std::string identity = "mpidbg-session") {
  return Security{SecurityMode::Tls, std::move(key), std::move(identity)};
}

/// Server options for a TLS server with `key`.
inline ServerOptions tlsOptions(Bytes key) {
  ServerOptions options;
  options.security = tls(std::move(key));
  return options;
}

}  // namespace mpidbg::ccs::test
