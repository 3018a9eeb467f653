// Client threads sending one request per connection until a total is reached.
#include "RequestLoad.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "ccs/transport/Client.hpp"

namespace mpidbg::load {
namespace {

void note(LoadTally& tally, const std::string& kind, const std::string& message) {
  ++tally.failed;
  FailureKind& entry = tally.failures[kind];
  if (entry.count++ == 0) entry.firstMessage = message;
}

}  // namespace

void LoadTally::merge(const LoadTally& other) {
  ok += other.ok;
  failed += other.failed;
  for (const auto& [kind, entry] : other.failures) {
    FailureKind& mine = failures[kind];
    if (mine.count == 0) mine.firstMessage = entry.firstMessage;
    mine.count += entry.count;
  }
  latencyMs.insert(latencyMs.end(), other.latencyMs.begin(), other.latencyMs.end());
}

double LoadTally::latencyQuantile(double p) {
  if (latencyMs.empty()) return 0;
  std::sort(latencyMs.begin(), latencyMs.end());
  const auto last = static_cast<double>(latencyMs.size() - 1);
  return latencyMs[static_cast<std::size_t>(std::clamp(p, 0.0, 1.0) * last)];
}

std::string failureKind(const std::string& message) {
  // The wording of ccs::Client::call and ccs/transport/BlockingIo.cpp.
  static const std::pair<const char*, const char*> kinds[] = {
      {"timed out", "timeout"},
      {"cannot connect", "connect"},
      {"cannot send", "send"},
      {"cannot read", "read"},
      {"closed the connection without a reply", "closed without reply"},
      {"malformed reply", "malformed reply"},
  };
  for (const auto& [text, kind] : kinds)
    if (message.find(text) != std::string::npos) return kind;
  return "other";
}

RequestLoad::RequestLoad(const LoadOptions& options) : options_(options) {}

LoadTally RequestLoad::run(std::size_t total) const {
  std::vector<ccs::Request> requests;
  for (const std::string& handler : options_.handlers) {
    ccs::Request request;
    request.pe = options_.pe;
    request.handler = handler;
    requests.push_back(std::move(request));
  }
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  LoadTally tally;
  auto client = [&] {
    LoadTally mine;
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < total;) {
      const ccs::Request& request = requests[i % requests.size()];
      const auto sent = std::chrono::steady_clock::now();
      auto reply = ccs::Client::call(options_.server, request, options_.timeout);
      mine.latencyMs.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - sent)
              .count());
      if (!reply) {
        note(mine, failureKind(reply.error().message), reply.error().message);
      } else if (reply->empty()) {
        note(mine, "empty reply", "empty reply from handler '" + request.handler + "'");
      } else if (!options_.expect.empty() &&
                 std::string_view(reinterpret_cast<const char*>(reply->data()), reply->size())
                         .find(options_.expect) == std::string_view::npos) {
        note(mine, "unexpected reply",
             "reply from handler '" + request.handler + "' without '" + options_.expect + "'");
      } else {
        ++mine.ok;
      }
    }
    std::lock_guard lock(mutex);
    tally.merge(mine);
  };
  const auto start = std::chrono::steady_clock::now();
  {
    std::vector<std::jthread> threads;
    const std::size_t count = std::min(options_.clients, total);
    threads.reserve(count);
    for (std::size_t t = 0; t < count; ++t) threads.emplace_back(client);
  }
  tally.elapsed = std::chrono::steady_clock::now() - start;
  return tally;
}

}  // namespace mpidbg::load
