// Load on one CCS server (issue 10): LoadOptions::clients concurrent clients
// send LoadOptions::requests well-formed requests, one per connection
// (Charm++'s plain mode), while stalling, flooding and unread peers misbehave
// beside them. With --pid, the server's fd count and VmRSS are sampled after
// a warm-up and again once the load is over and the server has closed what
// it should. Prints a summary; exits 1 when a well-formed request failed,
// the fd count did not come back to its start, a hostile connection was left
// open by the server or the server could not be sampled; 2 on bad usage.
//
// Usage: ccs_load --help
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "HostilePeers.hpp"
#include "LoadOptions.hpp"
#include "ProcessProbe.hpp"
#include "RequestLoad.hpp"

using namespace mpidbg;
using namespace mpidbg::load;
using namespace std::chrono_literals;

namespace {

void printFailures(const LoadTally& tally) {
  if (tally.failures.empty()) {
    std::printf("errors: none\n");
    return;
  }
  for (const auto& [kind, entry] : tally.failures)
    std::printf("errors: %s %zu (first: %s)\n", kind.c_str(), entry.count,
                entry.firstMessage.c_str());
}

void printHostile(const LoadOptions& options, const HostileTally& h) {
  if (options.stallers)
    std::printf("stallers: %zu peers, %zu connections, %zu closed by the server, %zu held open\n",
                options.stallers, h.stalls, h.stallsClosedByServer,
                h.stalls - h.stallsClosedByServer);
  if (options.flooders) {
    std::size_t total = 0;
    std::string kinds;
    for (const auto& [kind, count] : h.floods) {
      total += count;
      kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(count);
    }
    std::printf(
        "flooders: %zu peers, %zu connections (%s), %zu closed by the server, %zu held open\n",
        options.flooders, total, kinds.c_str(), h.floodsClosedByServer, h.floodsNotClosed);
  }
  if (options.unread)
    std::printf(
        "unread: %zu peers, %zu connections, %zu request bytes taken, %zu closed by the "
        "server, %zu held open\n",
        options.unread, h.unreadConnections, h.unreadBytesSent, h.unreadClosedByServer,
        h.unreadConnections - h.unreadClosedByServer);
  if (h.connectFailures)
    std::printf("hostile connect failures: %zu (first: %s)\n", h.connectFailures,
                h.firstConnectFailure.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto parsed = parseLoadOptions(args);
  if (!parsed) {
    std::fprintf(stderr, "ccs_load: error: %s\n%s", parsed.error().message.c_str(),
                 loadUsage().c_str());
    return 2;
  }
  if (!*parsed) {
    std::printf("%s", loadUsage().c_str());
    return 0;
  }
  const LoadOptions& options = **parsed;
  std::string handlers;
  for (const auto& h : options.handlers) handlers += (handlers.empty() ? "" : ",") + h;
  std::printf("ccs_load: %s, handler %s, pe %d, %zu clients, one request per connection\n",
              options.server.toString().c_str(), handlers.c_str(), options.pe, options.clients);
  std::fflush(stdout);
  std::vector<std::string> problems;

  RequestLoad load(options);
  LoadTally warmup;
  if (options.warmup > 0) {
    warmup = load.run(options.warmup);
    std::printf("warm-up: %zu requests, %zu ok, %zu failed\n", options.warmup, warmup.ok,
                warmup.failed);
  }
  std::optional<ProcessSample> before;
  if (options.pid) {
    auto sample = sampleWhenSettled(*options.pid, std::nullopt, 2s);
    if (!sample)
      problems.push_back("cannot sample the server: " + sample.error().message);
    else
      before = *sample;
  }

  LoadTally tally;
  HostileTally hostile;
  {
    HostilePeers peers(options);
    if (options.stallers + options.flooders + options.unread > 0)
      std::this_thread::sleep_for(200ms);  // the stalls are in place before the load starts
    tally = load.run(options.requests);
    hostile = peers.finish(options.settle);
  }
  // Of the counted requests only.
  const double p50 = tally.latencyQuantile(0.5), p99 = tally.latencyQuantile(0.99),
               p999 = tally.latencyQuantile(0.999), slowest = tally.latencyQuantile(1.0);
  const auto overOneSecond = static_cast<std::size_t>(std::count_if(
      tally.latencyMs.begin(), tally.latencyMs.end(), [](double ms) { return ms >= 1000; }));
  tally.merge(warmup);
  std::optional<ProcessSample> after;
  if (before) {
    auto sample = sampleWhenSettled(*options.pid, before->fds, options.settle);
    if (!sample)
      problems.push_back("cannot sample the server after the load: " + sample.error().message);
    else
      after = *sample;
  }

  const double seconds = tally.elapsed.count();
  std::printf("requests: %zu sent, %zu ok, %zu failed (warm-up included)\n",
              options.requests + options.warmup, tally.ok, tally.failed);
  printFailures(tally);
  std::printf("time: %.2f s for %zu requests, %.0f requests/s\n", seconds, options.requests,
              seconds > 0 ? static_cast<double>(options.requests) / seconds : 0.0);
  std::printf(
      "latency: p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms, %zu requests over 1 s "
      "(connect to reply)\n",
      p50, p99, p999, slowest, overOneSecond);
  printHostile(options, hostile);
  if (before && after) {
    std::printf("fds: %zu before, %zu after\n", before->fds, after->fds);
    std::printf("rss: %zu KiB before, %zu KiB after (%+lld KiB)\n", before->rssKiB, after->rssKiB,
                static_cast<long long>(after->rssKiB) - static_cast<long long>(before->rssKiB));
    if (after->fds > before->fds)
      problems.push_back("fds did not come back: " + std::to_string(before->fds) + " -> " +
                         std::to_string(after->fds));
  }
  if (tally.failed > 0)
    problems.push_back(std::to_string(tally.failed) + " well-formed requests failed");
  if (hostile.heldOpen() > 0)
    problems.push_back(std::to_string(hostile.heldOpen()) +
                       " hostile connections were not closed by the server");
  if (problems.empty()) {
    std::printf("result: ok\n");
    return 0;
  }
  std::string joined;
  for (const auto& p : problems) joined += (joined.empty() ? "" : "; ") + p;
  std::printf("result: FAILED (%s)\n", joined.c_str());
  return 1;
}
