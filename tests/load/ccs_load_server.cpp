// A small CCS server for load runs under valgrind (tests/load/valgrind-server):
// ccs::Server on loopback with handlers shaped like the runtime's, one
// answering at once (mpidbg/status: a text record built per request), one
// echoing, one answered later from a worker thread through a Responder
// (load/async), so the cross-thread reply path is exercised too. Persistent
// plain connections by default, as the runtime serves under --ccs-plain.
// Runs until SIGTERM or SIGINT, then destroys the server and exits 0.
//
// Usage: ccs_load_server [--pe N (0)] [--port P (0: any)] [--one-shot]
//                        [--idle-timeout MS (10000)]
// Prints "ccs_load_server: listening on HOST:PORT" once it accepts.
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "ccs/transport/Server.hpp"

using namespace mpidbg::ccs;
using namespace std::chrono_literals;

namespace {

volatile std::sig_atomic_t stopRequested = 0;
void onSignal(int) { stopRequested = 1; }

/// Answers queued requests from its own thread, as the runtime's forwarder
/// workers do.
class AsyncWorker {
 public:
  /// Starts the thread; every answer names PE `pe`.
  explicit AsyncWorker(std::int32_t pe)
      : rank_("rank=" + std::to_string(pe) + "\n"),
        thread_([this](std::stop_token stop) { run(stop); }) {}
  ~AsyncWorker() {
    thread_.request_stop();
    wake_.notify_all();
  }
  /// Queues `request`; its answer goes out through `responder` later.
  void submit(const Request& request, Responder responder) {
    {
      std::lock_guard lock(mutex_);
      queue_.emplace_back(request.data, std::move(responder));
    }
    wake_.notify_one();
  }

 private:
  void run(std::stop_token stop) {
    std::unique_lock lock(mutex_);
    while (!stop.stop_requested()) {
      wake_.wait(lock, [&] { return stop.stop_requested() || !queue_.empty(); });
      while (!queue_.empty()) {
        auto [data, responder] = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        std::string text = rank_ + "async=1\nbytes=" + std::to_string(data.size()) + "\n";
        responder.reply(std::vector<std::uint8_t>(text.begin(), text.end()));
        lock.lock();
      }
    }
  }

  const std::string rank_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::pair<std::vector<std::uint8_t>, Responder>> queue_;
  std::jthread thread_;  // last: started once the rest exists
};

long option(int argc, char** argv, const char* name, long fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::strtol(argv[i + 1], nullptr, 10);
  return fallback;
}

bool flag(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (flag(argc, argv, "--help")) {
    std::printf("usage: ccs_load_server [--pe N] [--port P] [--one-shot] [--idle-timeout MS]\n");
    return 0;
  }
  std::signal(SIGTERM, onSignal);
  std::signal(SIGINT, onSignal);
  std::size_t logLines = 0;
  std::string firstLog;
  ServerOptions options;
  options.pe = static_cast<std::int32_t>(option(argc, argv, "--pe", 0));
  options.port = static_cast<std::uint16_t>(option(argc, argv, "--port", 0));
  options.persistent = !flag(argc, argv, "--one-shot");
  options.idleTimeout = std::chrono::milliseconds(option(argc, argv, "--idle-timeout", 10000));
  options.log = [&](const std::string& line) {
    if (logLines++ == 0) firstLog = line;
  };
  std::size_t served = 0;
  AsyncWorker worker(options.pe);
  {
    auto created = Server::create(options);
    if (!created) {
      std::fprintf(stderr, "ccs_load_server: %s\n", created.error().message.c_str());
      return 1;
    }
    std::unique_ptr<Server> server = std::move(*created);
    const std::string rank = "rank=" + std::to_string(options.pe) + "\n";
    server->addHandler("mpidbg/status", [&](const Request&) -> HandlerResult {
      std::string text = rank + "state=running\nserved=" + std::to_string(++served) + "\n";
      return std::vector<std::uint8_t>(text.begin(), text.end());
    });
    server->addHandler("load/echo", [&](const Request& r) -> HandlerResult {
      ++served;
      std::vector<std::uint8_t> reply(rank.begin(), rank.end());
      reply.insert(reply.end(), r.data.begin(), r.data.end());
      return reply;
    });
    server->addAsyncHandler("load/async", [&](const Request& r, Responder responder) {
      ++served;
      worker.submit(r, std::move(responder));
    });
    std::printf("ccs_load_server: listening on %s\n", server->endpoint().toString().c_str());
    std::fflush(stdout);
    while (!stopRequested) server->pollOnce(100ms);
    std::printf("ccs_load_server: served %zu requests, %zu connections open at exit\n", served,
                server->connectionCount());
  }
  std::printf("ccs_load_server: %zu log lines%s%s\n", logLines, logLines ? ", first: " : "",
              firstLog.c_str());
  return 0;
}
