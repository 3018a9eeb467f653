// Broadcast latency through the forwarding tree versus the front end asking
// every rank itself, measured side by side in one run. Each "rank" is a real
// CCS server (TLS 1.3 with a session key, persistent connections) with the
// runtime's Forwarder installed, polled by its own thread: the emulation mode
// STAT uses to test scale without a big machine. The status handler returns a
// record the size of the runtime's.
//   tree_bench [--ranks 64,256] [--repeat 30] [--fan-out 4] [--parallel 16]
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ccs/transport/Connection.hpp"
#include "ccs/tree/Forwarder.hpp"
#include "ccs/transport/Server.hpp"

using namespace mpidbg::ccs;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

struct Rank {
  std::unique_ptr<Server> server;
  std::unique_ptr<Forwarder> forwarder;
  std::atomic<bool> stop{false};
  std::thread thread;
  ~Rank() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
};

/// A status record of the runtime's size (about 220 bytes) for PE `pe`.
std::vector<std::uint8_t> statusRecord(int pe) {
  std::string text = "rank=" + std::to_string(pe) +
                     "\nsize=256\nstate=in-mpi\nmpicalls=1234\ncall.function=MPI_Allreduce\n"
                     "call.peerrole=\ncall.peer=0\ncall.comm=1140850688\n"
                     "call.commname=MPI_COMM_WORLD\ncall.collcall=7\ncall.elapsedus=5123456\n"
                     "call.seq=1233\n--\n";
  return {text.begin(), text.end()};
}

std::vector<std::unique_ptr<Rank>> startRanks(std::size_t n, const Security& security) {
  std::vector<std::unique_ptr<Rank>> ranks;
  for (std::size_t i = 0; i < n; ++i) {
    auto rank = std::make_unique<Rank>();
    ServerOptions options;
    options.pe = static_cast<std::int32_t>(i);
    options.security = security;
    options.log = [](const std::string&) {};
    auto server = Server::create(std::move(options));
    if (!server) {
      std::fprintf(stderr, "tree_bench: %s\n", server.error().message.c_str());
      std::exit(1);
    }
    rank->server = std::move(*server);
    const int pe = static_cast<int>(i);
    rank->server->addHandler("mpidbg/status", [pe](const Request&) -> HandlerResult { return statusRecord(pe); });
    ForwarderOptions fo;
    fo.pe = pe;
    fo.security = security;
    fo.mergeTable.add("mpidbg/status", MergeRule::Concatenate);
    fo.maxThreads = kDefaultFanOut + 1;
    auto forwarder = Forwarder::install(*rank->server, std::move(fo));
    if (!forwarder) std::exit(1);
    rank->forwarder = std::move(*forwarder);
    Rank* r = rank.get();
    r->thread = std::thread([r] {
      while (!r->stop) r->server->pollOnce(50ms);
    });
    ranks.push_back(std::move(rank));
  }
  return ranks;
}

/// CPU time of the calling thread, in milliseconds.
double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::vector<std::size_t> listArgument(int argc, char** argv, const char* name, std::vector<std::size_t> fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) != 0) continue;
    std::vector<std::size_t> out;
    std::stringstream in(argv[i + 1]);
    for (std::string item; std::getline(in, item, ',');) out.push_back(std::strtoull(item.c_str(), nullptr, 10));
    return out;
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("usage: tree_bench [--ranks 64,256] [--repeat 30] [--fan-out 4] [--parallel 16]\n");
      return 0;
    }
  const auto sizes = listArgument(argc, argv, "--ranks", {64, 256});
  const std::size_t repeat = listArgument(argc, argv, "--repeat", {30}).at(0);
  const std::size_t fanOut = listArgument(argc, argv, "--fan-out", {kDefaultFanOut}).at(0);
  const std::size_t parallel = listArgument(argc, argv, "--parallel", {16}).at(0);
  Security security{SecurityMode::Tls, std::vector<std::uint8_t>(32, 0x5a), "mpidbg-session"};

  std::printf("one status request to every rank; TLS 1.3 PSK, persistent connections already open;\n"
              "tree fan-out %zu; direct = the front end's %zu parallel workers, one request per rank;\n"
              "medians of %zu alternating repetitions\n\n",
              fanOut, parallel, repeat);
  std::printf("%6s %10s %10s %12s %16s %16s %8s\n", "ranks", "tree ms", "direct ms", "direct/tree",
              "front-end CPU ms", "(tree / direct)", "errors");
  int failures = 0;
  for (std::size_t n : sizes) {
    auto ranks = startRanks(n, security);
    std::vector<PeerEntry> table;
    for (std::size_t i = 0; i < n; ++i)
      table.push_back(PeerEntry{static_cast<std::int32_t>(i), "127.0.0.1", ranks[i]->server->endpoint().port});
    // The front end's connections: one to the gateway, one per rank for direct.
    auto gateway = Connection::open(table[0].endpoint(), security, 5s);
    if (!gateway) return 1;
    std::vector<std::unique_ptr<Connection>> direct;
    for (const auto& p : table) {
      auto c = Connection::open(p.endpoint(), security, 5s);
      if (!c) return 1;
      direct.push_back(std::move(*c));
    }
    ForwardRequest request;
    request.deadline = 10s;
    request.fanOut = fanOut;
    request.inner.pe = -1;
    request.inner.handler = "mpidbg/status";
    request.table = table;
    Request single;
    single.handler = "mpidbg/status";

    std::vector<double> treeMs, directMs, treeCpu, directCpu;
    std::size_t errors = 0;
    for (std::size_t r = 0; r < repeat + 2; ++r) {  // two warm-up rounds build the tree's connections
      auto t0 = Clock::now();
      const double cpu0 = threadCpuMs();
      auto reply = callForward(**gateway, request);
      const double treeCpuMs = threadCpuMs() - cpu0;
      auto tree = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      if (!reply || reply->error || reply->answered != n) ++errors;

      t0 = Clock::now();
      std::atomic<std::size_t> next{0}, bad{0};
      std::atomic<long long> cpuUs{0};
      std::vector<std::thread> workers;
      for (std::size_t w = 0; w < std::min(parallel, n); ++w)
        workers.emplace_back([&] {
          const double start = threadCpuMs();
          for (std::size_t i = next++; i < n; i = next++) {
            Request req = single;
            req.pe = static_cast<std::int32_t>(i);
            if (!direct[i]->call(req, 10s)) ++bad;
          }
          cpuUs += static_cast<long long>((threadCpuMs() - start) * 1000);
        });
      for (auto& t : workers) t.join();
      auto all = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      errors += bad;
      if (r >= 2) {
        treeMs.push_back(tree);
        directMs.push_back(all);
        treeCpu.push_back(treeCpuMs);
        directCpu.push_back(static_cast<double>(cpuUs.load()) / 1000);
      }
    }
    const double t = median(treeMs), d = median(directMs);
    const double tc = median(treeCpu), dc = median(directCpu);
    char cpu[64];
    std::snprintf(cpu, sizeof cpu, "%.3f / %.3f", tc, dc);
    std::printf("%6zu %10.2f %10.2f %12.2f %16s %16.3f %8zu\n", n, t, d, t > 0 ? d / t : 0, cpu,
                dc > 0 ? tc / dc : 0, errors);
    if (errors) ++failures;
  }
  return failures == 0 ? 0 : 1;
}
