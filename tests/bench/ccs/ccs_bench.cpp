// CCS round-trip micro-benchmark, in one process: a server thread per mode
// and one client. Compares (a) Charm++'s plain mode, one connection per
// request (Client::call), with (b) mpidbg's TLS 1.3 PSK persistent
// connection (Connection::call) and (c) Charm++'s SHA-1 mode; (d) and (e)
// are (b) and (a) with a client that polls for up to 50 µs before it sleeps
// (Connection::setReplySpin, Client::call's spin), as the front end's
// single-reply waits do. The modes run interleaved in rounds so that
// machine noise hits them alike. Prints p50/p99 round trip (µs), requests/s
// and the ratios.
//
// Usage: ccs_bench [--requests N] [--rounds R] [--bytes B]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ccs/transport/Client.hpp"
#include "ccs/transport/CharmAuthClient.hpp"
#include "ccs/transport/CharmAuthServer.hpp"
#include "ccs/transport/Connection.hpp"
#include "ccs/transport/Server.hpp"

using namespace mpidbg::ccs;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

/// A server polled by its own thread until destroyed.
struct ServerThread {
  std::unique_ptr<Server> server;
  std::atomic<bool> stop{false};
  std::thread thread;

  explicit ServerThread(ServerOptions options) {
    options.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    auto created = Server::create(std::move(options));
    if (!created) {
      std::fprintf(stderr, "ccs_bench: %s\n", created.error().message.c_str());
      return;
    }
    server = std::move(*created);
    server->addHandler("echo", [](const Request& r) -> HandlerResult { return r.data; });
    thread = std::thread([this] {
      while (!stop) server->pollOnce(100ms);
    });
  }
  ~ServerThread() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
};

/// Latencies (ns) and busy time of one mode across all rounds.
struct Samples {
  const char* name;
  std::vector<double> latencyUs;
  Clock::duration busy{};
  std::size_t errors = 0;
  std::string firstError;

  double percentile(double p) {
    if (latencyUs.empty()) return 0;
    std::sort(latencyUs.begin(), latencyUs.end());
    auto index = static_cast<std::size_t>(p * static_cast<double>(latencyUs.size() - 1));
    return latencyUs[index];
  }
  double perSecond() const {
    double seconds = std::chrono::duration<double>(busy).count();
    return seconds > 0 ? static_cast<double>(latencyUs.size()) / seconds : 0;
  }
};

/// Runs `count` calls of `call` and records each round trip.
template <typename Call>
void runRound(Samples& samples, std::size_t count, Call&& call) {
  auto roundStart = Clock::now();
  for (std::size_t i = 0; i < count; ++i) {
    auto start = Clock::now();
    auto reply = call();
    auto took = Clock::now() - start;
    if (!reply) {
      if (samples.errors++ == 0) samples.firstError = reply.error().message;
      continue;
    }
    samples.latencyUs.push_back(std::chrono::duration<double, std::micro>(took).count());
  }
  samples.busy += Clock::now() - roundStart;
}

std::size_t argument(int argc, char** argv, const char* name, std::size_t fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::strtoull(argv[i + 1], nullptr, 10);
  return fallback;
}

void print(Samples& s) {
  std::printf("%-36s %9.1f %9.1f %11.0f", s.name, s.percentile(0.5), s.percentile(0.99),
              s.perSecond());
  if (s.errors) std::printf("   (%zu errors, first: %s)", s.errors, s.firstError.c_str());
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("usage: ccs_bench [--requests N (20000)] [--rounds R (20)] [--bytes B (16)]\n");
      return 0;
    }
  const std::size_t requests = argument(argc, argv, "--requests", 20000);
  const std::size_t rounds = std::max<std::size_t>(1, argument(argc, argv, "--rounds", 20));
  const std::size_t perRound = std::max<std::size_t>(1, requests / rounds);
  Request request;
  request.pe = 0;
  request.handler = "echo";
  request.data.assign(argument(argc, argv, "--bytes", 16), 0x42);

  // (a) Charm++ plain mode: one connection per request.
  ServerThread plain(ServerOptions{});
  // (b) mpidbg's mode: TLS 1.3 with the session key as PSK, persistent.
  Security security{SecurityMode::Tls, std::vector<std::uint8_t>(32), "mpidbg-session"};
  for (std::size_t i = 0; i < security.key.size(); ++i)
    security.key[i] = static_cast<std::uint8_t>(i * 7 + 1);
  ServerOptions tlsOptions;
  tlsOptions.security = security;
  ServerThread tls(tlsOptions);
  // (c) Charm++'s SHA-1 authenticated mode: one connection per request, a
  // salted SHA-1 over key and header each way.
  CharmKeyTable charmKeys;
  charmKeys.keys[0] = CharmKey{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  ServerOptions charmOptions;
  charmOptions.charmAuth = std::make_shared<CharmAuthServerState>(charmKeys);
  ServerThread charm(charmOptions);
  if (!plain.server || !tls.server || !charm.server) return 1;
  auto session = CharmAuthClient::handshake(charm.server->endpoint(), 0, charmKeys.keys[0], 2000ms);
  if (!session) {
    std::fprintf(stderr, "ccs_bench: %s\n", session.error().message.c_str());
    return 1;
  }
  const Endpoint charmEndpoint = charm.server->endpoint();

  auto connection = Connection::open(tls.server->endpoint(), security, 2000ms);
  if (!connection) {
    std::fprintf(stderr, "ccs_bench: %s\n", connection.error().message.c_str());
    return 1;
  }
  // (d) the same server on a second connection whose client polls for the
  // reply for up to 50 us before it sleeps (Connection::setReplySpin).
  auto spinning = Connection::open(tls.server->endpoint(), security, 2000ms);
  if (!spinning) {
    std::fprintf(stderr, "ccs_bench: %s\n", spinning.error().message.c_str());
    return 1;
  }
  (*spinning)->setReplySpin(std::chrono::microseconds(50));
  Samples a{"(a) plain, connection per request", {}, {}, 0, {}};
  Samples b{"(b) TLS 1.3 PSK, persistent", {}, {}, 0, {}};
  Samples c{"(c) Charm++ SHA-1, connection per req", {}, {}, 0, {}};
  Samples d{"(d) as (b), client spins 50 us", {}, {}, 0, {}};
  Samples e{"(e) as (a), client spins 50 us", {}, {}, 0, {}};
  e.latencyUs.reserve(requests);
  d.latencyUs.reserve(requests);
  a.latencyUs.reserve(requests);
  b.latencyUs.reserve(requests);
  c.latencyUs.reserve(requests);
  const Endpoint plainEndpoint = plain.server->endpoint();
  // Warm-up (page faults, lazy OpenSSL init), not recorded.
  for (int i = 0; i < 200; ++i) {
    (void)Client::call(plainEndpoint, request, 2000ms);
    (void)(*connection)->call(request, 2000ms);
    (void)CharmAuthClient::call(charmEndpoint, *session, request, 2000ms);
    (void)(*spinning)->call(request, 2000ms);
  }
  for (std::size_t r = 0; r < rounds; ++r) {
    runRound(a, perRound, [&] { return Client::call(plainEndpoint, request, 2000ms); });
    runRound(b, perRound, [&] { return (*connection)->call(request, 2000ms); });
    runRound(c, perRound, [&] { return CharmAuthClient::call(charmEndpoint, *session, request, 2000ms); });
    runRound(d, perRound, [&] { return (*spinning)->call(request, 2000ms); });
    runRound(e, perRound, [&] { return Client::call(plainEndpoint, request, 2000ms, std::chrono::microseconds(50)); });
  }

  std::printf("%zu requests per mode in %zu interleaved rounds, %zu data bytes each\n",
              perRound * rounds, rounds, request.data.size());
  std::printf("%-36s %9s %9s %11s\n", "mode", "p50 us", "p99 us", "requests/s");
  print(a);
  print(b);
  print(c);
  print(d);
  print(e);
  double a50 = a.percentile(0.5), b50 = b.percentile(0.5);
  std::printf("ratio (b)/(a): p50 %.2f, p99 %.2f, requests/s %.2f\n", a50 > 0 ? b50 / a50 : 0,
              a.percentile(0.99) > 0 ? b.percentile(0.99) / a.percentile(0.99) : 0,
              a.perSecond() > 0 ? b.perSecond() / a.perSecond() : 0);
  std::printf("ratio (c)/(a): p50 %.2f\n", a50 > 0 ? c.percentile(0.5) / a50 : 0);
  std::printf("ratio (d)/(b): p50 %.2f, p99 %.2f\n", b50 > 0 ? d.percentile(0.5) / b50 : 0,
              b.percentile(0.99) > 0 ? d.percentile(0.99) / b.percentile(0.99) : 0);
  std::printf("ratio (e)/(a): p50 %.2f, p99 %.2f\n", a50 > 0 ? e.percentile(0.5) / a50 : 0,
              a.percentile(0.99) > 0 ? e.percentile(0.99) / a.percentile(0.99) : 0);
  return a.errors + b.errors + c.errors + d.errors + e.errors == 0 ? 0 : 1;
}
