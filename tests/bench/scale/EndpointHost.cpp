#include "EndpointHost.hpp"

#include <chrono>
#include <system_error>

#include "ccs/proto/RankProtocol.hpp"

namespace mpidbg::bench {
namespace proto = ccs::proto;
using namespace std::chrono_literals;

std::string emulatedStatus(std::int32_t rank, std::int32_t worldSize) {
  proto::RankStatus status;
  status.rank = rank;
  status.size = worldSize;
  status.state = proto::RankState::InMpi;
  status.mpiCalls = 3;  // MPI_Init, MPI_Comm_rank, MPI_Comm_size before the hang
  proto::MpiCall call;
  call.comm = 0x44000000;  // MPICH's MPI_COMM_WORLD
  call.commName = "MPI_COMM_WORLD";
  call.elapsedUs = 5'000'000;
  call.seq = 4;
  if (rank == worldSize - 1) {
    call.function = "MPI_Recv";
    call.peerRole = "source";
    call.peer = 0;
    call.hasTag = true;
    call.tag = 42;
  } else {
    call.function = "MPI_Allreduce";
    call.collCall = 1;
  }
  status.call = call;
  return proto::encode(status) + "--\n";  // the separator the runtime adds (runtime/Handlers.cpp)
}

Expected<std::unique_ptr<EndpointHost>> EndpointHost::start(HostOptions options) {
  std::unique_ptr<EndpointHost> host(new EndpointHost(std::move(options)));
  const HostOptions& o = host->options_;
  host->endpoints_.reserve(static_cast<std::size_t>(o.count));
  for (std::int32_t i = 0; i < o.count; ++i) {
    const std::int32_t rank = o.firstRank + i;
    ccs::ServerOptions serverOptions;
    serverOptions.bindAddress = o.bindAddress;
    serverOptions.pe = rank;
    serverOptions.persistent = true;
    serverOptions.security = o.security;
    serverOptions.log = [](const std::string&) {};
    auto server = ccs::Server::create(std::move(serverOptions));
    if (!server)
      return fail("endpoint " + std::to_string(i) + " of " + std::to_string(o.count) + ": " +
                  server.error().message);
    const std::int32_t size = o.worldSize;
    // Built on each request, as the runtime builds its status.
    (*server)->addHandler(std::string(proto::kStatusHandler),
                          [rank, size](const ccs::Request&) -> ccs::HandlerResult {
                            const std::string text = emulatedStatus(rank, size);
                            return std::vector<std::uint8_t>(text.begin(), text.end());
                          });
    ccs::ForwarderOptions forwarderOptions;  // as runtime/Runtime.cpp installForwarder
    forwarderOptions.pe = rank;
    forwarderOptions.security = o.security;
    forwarderOptions.mergeTable.add(std::string(proto::kStatusHandler),
                                    ccs::MergeRule::Concatenate);
    forwarderOptions.maxThreads = ccs::kDefaultFanOut + 1;
    auto forwarder = ccs::Forwarder::install(**server, std::move(forwarderOptions));
    if (!forwarder)
      return fail("forwarder of endpoint " + std::to_string(i) + ": " + forwarder.error().message);
    host->endpoints_.push_back(Endpoint{std::move(*server), std::move(*forwarder)});
  }
  try {
    host->startPollers();
  } catch (const std::system_error& e) {
    return fail("cannot start the poll threads (" + std::to_string(host->threads_.size()) +
                " started): " + e.what());
  }
  return host;
}

void EndpointHost::startPollers() {
  if (options_.pollers == 0) {
    for (auto& e : endpoints_) {
      ccs::Server* server = e.server.get();
      threads_.emplace_back([this, server] {
        while (!stop_.load(std::memory_order_relaxed))
          server->pollOnce(100ms);  // the runtime's interval
      });
    }
    return;
  }
  for (std::size_t t = 0; t < options_.pollers; ++t)
    threads_.emplace_back([this, t] {
      while (!stop_.load(std::memory_order_relaxed)) {
        if (options_.active && options_.active->load(std::memory_order_relaxed) == 0) {
          std::this_thread::sleep_for(1ms);
          continue;
        }
        for (std::size_t i = t; i < endpoints_.size(); i += options_.pollers)
          endpoints_[i].server->pollOnce(0ms);
      }
    });
}

EndpointHost::~EndpointHost() {
  stop_ = true;
  for (auto& t : threads_) t.join();
  for (auto& e : endpoints_) e.forwarder.reset();  // before their servers
  endpoints_.clear();
}

std::vector<ccs::PeerEntry> EndpointHost::peers() const {
  std::vector<ccs::PeerEntry> out;
  std::int32_t rank = options_.firstRank;
  for (const auto& e : endpoints_) {
    const ccs::Endpoint bound = e.server->endpoint();
    out.push_back(ccs::PeerEntry{rank++, bound.host, bound.port});
  }
  return out;
}

}  // namespace mpidbg::bench
