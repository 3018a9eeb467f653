#include "SyntheticScale.hpp"

#include <sys/mman.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <new>

#include "BenchStats.hpp"
#include "EndpointHost.hpp"
#include "HostProcess.hpp"
#include "ccs/proto/RankProtocol.hpp"
#include "debugger/core/Job.hpp"
#include "debugger/core/RankChannels.hpp"
#include "debugger/core/StatusReport.hpp"

namespace mpidbg::bench {
namespace proto = ccs::proto;
namespace {

/// An int shared with forked children (MAP_SHARED): the sweep pollers' switch.
class SharedFlag {
 public:
  SharedFlag() {
    void* page = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    flag_ = page == MAP_FAILED ? &local_ : new (page) std::atomic<int>(0);
  }
  ~SharedFlag() {
    if (flag_ != &local_) ::munmap(flag_, 4096);
  }
  SharedFlag(const SharedFlag&) = delete;
  SharedFlag& operator=(const SharedFlag&) = delete;
  std::atomic<int>* get() { return flag_; }

 private:
  std::atomic<int> local_{0};
  std::atomic<int>* flag_;
};

/// Thread ids this system can still hand out: pid_max minus the tasks that
/// exist now (/proc/loadavg's "running/total").
long freeThreadIds() {
  long pidMax = 32768, total = 0;
  std::ifstream("/proc/sys/kernel/pid_max") >> pidMax;
  std::ifstream loadavg("/proc/loadavg");
  std::string a, b, c, tasks;
  loadavg >> a >> b >> c >> tasks;
  if (auto slash = tasks.find('/'); slash != std::string::npos)
    total = std::stol(tasks.substr(slash + 1));
  return pidMax - total;
}

/// The status every emulated rank reports, rendered as `status` renders it.
std::string expectedStatus(long n) {
  return "[0-" + std::to_string(n - 2) +
         "] blocked in MPI_Allreduce (call 1 on MPI_COMM_WORLD)\n[" + std::to_string(n - 1) +
         "] blocked in MPI_Recv(source=0, tag=42, comm=MPI_COMM_WORLD)\n";
}

/// One broadcast as RuntimeRanks::gather and Debugger::views make it, then
/// renderStatus.
struct Broadcast {
  double treeMs = 0, frontEndMs = 0, cpuMs = 0;
  std::size_t bytes = 0;
  std::size_t missing = 0;  ///< ranks the tree reported missing
  std::string problem;
};

/// `active` (the sweep pollers' switch) is on from the request until the
/// tree's reply is in, not while the front end merges.
Broadcast broadcastStatus(core::RankChannels& channels, const std::vector<core::RankInfo>& job,
                          const SyntheticOptions& options, std::atomic<int>* active) {
  Broadcast b;
  const double cpu = processCpuMs();
  const auto start = Clock::now();
  active->store(1);
  ccs::ForwardRequest request;
  request.deadline = options.deadline;
  request.fanOut = options.fanOut;
  request.inner.pe = ccs::kBroadcastPe;
  request.inner.handler = std::string(proto::kStatusHandler);
  for (const auto& info : job)
    request.table.push_back(ccs::PeerEntry{info.rank, info.endpoint.host, info.endpoint.port});
  auto reply = channels.forward(job.front(), request);
  active->store(0);
  const auto treeDone = Clock::now();
  std::vector<core::RankView> views;
  for (const auto& info : job) views.push_back(core::RankView{info, std::nullopt, {}, std::nullopt});
  std::string text;
  if (!reply) {
    b.problem = "broadcast failed: " + reply.error().message;
  } else if (reply->error) {
    b.problem = "broadcast not merged: " + *reply->error;
  } else {
    b.bytes = reply->payload.size();
    auto decoded = proto::decodeRankStatuses(std::string_view(
        reinterpret_cast<const char*>(reply->payload.data()), reply->payload.size()));
    if (!decoded) {
      b.problem = "bad status reply: " + decoded.error().message;
    } else {
      std::map<int, proto::RankStatus> byRank;
      for (auto& s : *decoded) byRank[s.rank] = std::move(s);
      for (auto& v : views)
        if (auto it = byRank.find(v.info.rank); it != byRank.end())
          v.status = std::move(it->second);
    }
    b.missing = reply->missing.size();
    if (!reply->missing.empty() && b.problem.empty())
      b.problem = std::to_string(reply->missing.size()) + " ranks missing, the first rank " +
                  std::to_string(reply->missing.front().pe) + ": " + reply->missing.front().reason;
    text = core::renderStatus(views, std::chrono::milliseconds(1000));
  }
  const auto end = Clock::now();
  b.treeMs = ms(treeDone - start);
  b.frontEndMs = ms(end - treeDone);
  b.cpuMs = processCpuMs() - cpu;
  const long n = static_cast<long>(job.size());
  if (b.problem.empty() && text != expectedStatus(n)) b.problem = "unexpected status:\n" + text;
  return b;
}

SyntheticRow measureSize(const SyntheticOptions& options, long n) {
  SyntheticRow row;
  row.ranks = n;
  row.hosts = (static_cast<std::size_t>(n) + options.perHost - 1) / options.perHost;
  const long pollers = options.pollers;
  if (pollers == 0 && 2 * n + 2000 > freeThreadIds()) {
    row.note = "a poll thread per endpoint needs about " + std::to_string(2 * n) +
               " thread ids; the system has " + std::to_string(freeThreadIds()) +
               " free (kernel.pid_max): use sweeping pollers (--pollers 1)";
    return row;
  }
  row.polling = pollers == 0 ? "thread per endpoint"
                             : std::to_string(pollers) + " sweeping poller(s) per host";

  ccs::Security security{ccs::SecurityMode::Tls, std::vector<std::uint8_t>(32, 0x5a),
                         "mpidbg-session"};
  SharedFlag active;
  std::vector<std::unique_ptr<HostProcess>> hosts;
  std::vector<int> parentFds;
  for (std::size_t h = 0; h < row.hosts; ++h) {
    HostOptions host;
    host.firstRank = static_cast<std::int32_t>(h * options.perHost);
    host.count =
        static_cast<std::int32_t>(std::min<long>(long(options.perHost), n - host.firstRank));
    host.worldSize = static_cast<std::int32_t>(n);
    host.bindAddress = "127.0.0." + std::to_string(2 + h);  // one loopback address per "node"
    host.security = security;
    host.pollers = static_cast<std::size_t>(pollers);
    host.active = active.get();
    auto spawned = HostProcess::spawn(host, parentFds);
    if (!spawned) {
      row.note = spawned.error().message;
      return row;
    }
    for (int fd : (*spawned)->parentFds()) parentFds.push_back(fd);
    hosts.push_back(std::move(*spawned));
  }
  std::vector<core::RankInfo> job;
  for (auto& host : hosts) {
    auto peers = host->readPeers();
    if (!peers) {
      row.note = "host process " + std::to_string(host->pid()) + ": " + peers.error().message;
      return row;
    }
    for (const auto& p : *peers) {
      core::RankInfo info;
      info.rank = p.pe;
      info.host = p.host;
      info.endpoint = p.endpoint();
      job.push_back(std::move(info));
    }
  }

  resetPeakResident();
  core::RankChannels channels(security);
  std::vector<double> total, tree, frontEnd, cpu;
  double hostsCpuBefore = 0, hostsCpuAfter = 0;
  for (long i = -2; i < options.repeat; ++i) {
    if (i == 0)
      for (auto& h : hosts) hostsCpuBefore += readCpuMs(h->pid()).value_or(0);
    const Broadcast b = broadcastStatus(channels, job, options, active.get());
    if (i == -2) row.firstMs = b.treeMs + b.frontEndMs;
    if (i < 0) {
      // The untimed ones open the tree's connections: a rank missing there
      // (a TLS handshake slower than the forwarder's connect timeout) is
      // reported, not failed, as long as the timed broadcasts are complete.
      if (!b.problem.empty())
        row.note += (row.note.empty() ? "" : "; ") + std::string("untimed broadcast ") +
                    std::to_string(i + 3) + ": " + b.problem;
      continue;
    }
    if (!b.problem.empty())
      row.failures.push_back("broadcast " + std::to_string(i + 1) + ": " + b.problem);
    total.push_back(b.treeMs + b.frontEndMs);
    tree.push_back(b.treeMs);
    frontEnd.push_back(b.frontEndMs);
    cpu.push_back(b.cpuMs);
    row.replyBytes = b.bytes;
  }
  for (auto& h : hosts) hostsCpuAfter += readCpuMs(h->pid()).value_or(0);
  row.measured = true;
  row.broadcastMs = median(total);
  row.treeMs = median(tree);
  row.frontEndMs = median(frontEnd);
  row.frontEndCpuMs = median(cpu);
  row.hostsCpuMs =
      options.repeat > 0 ? (hostsCpuAfter - hostsCpuBefore) / double(options.repeat) : 0;
  if (auto fe = readResident()) row.frontEnd = *fe;
  for (auto& h : hosts) row.hostsRssKiB += readResident(h->pid()).value_or(ResidentKiB{}).rss;
  channels.clear();
  for (auto& h : hosts) h->requestStop();
  return row;
}

}  // namespace

std::vector<SyntheticRow> runSynthetic(const SyntheticOptions& options) {
  std::vector<SyntheticRow> rows;
  for (long n : options.sizes) {
    if (n < 2) continue;
    rows.push_back(measureSize(options, n));
    const SyntheticRow& r = rows.back();
    std::printf("  %ld emulated ranks (%zu host processes, %s): broadcast %.1f ms%s%s\n", n,
                r.hosts, r.polling.c_str(), r.broadcastMs, r.note.empty() ? "" : "; ",
                r.note.c_str());
    for (const auto& f : r.failures) std::printf("    FAILED %s\n", f.c_str());
    std::fflush(stdout);
  }
  return rows;
}

void printSyntheticTable(const std::vector<SyntheticRow>& rows) {
  std::printf(
      "\nSynthetic: one status broadcast through the forwarding tree and the front end's merge\n"
      "(ms are medians; CPU per broadcast; memory after the broadcasts)\n");
  std::printf("%7s %5s %10s %9s %8s %10s %9s %10s %9s %8s %8s %10s %10s  %s\n", "ranks", "hosts",
              "broadcast", "tree", "FE part", "first", "FE CPU", "ranks CPU", "reply KB", "FE RSS",
              "FE HWM", "hosts RSS", "KiB/endpt", "polling");
  const SyntheticRow* previous = nullptr;
  for (const auto& r : rows) {
    if (!r.measured) {
      std::printf("%7ld  not measured: %s\n", r.ranks, r.note.c_str());
      continue;
    }
    std::printf(
        "%7ld %5zu %10.1f %9.1f %8.1f %10.1f %9.1f %10.1f %9.0f %8.1f %8.1f %10.1f %10.1f  %s\n",
        r.ranks, r.hosts, r.broadcastMs, r.treeMs, r.frontEndMs, r.firstMs, r.frontEndCpuMs,
        r.hostsCpuMs, double(r.replyBytes) / 1024, r.frontEnd.rss / 1024, r.frontEnd.hwm / 1024,
        r.hostsRssKiB / 1024, r.hostsRssKiB / double(r.ranks), r.polling.c_str());
    if (!r.note.empty()) std::printf("%7s note: %s\n", "", r.note.c_str());
    if (previous)
      std::printf("%7s growth per doubling from %ld: broadcast %.2f, front-end CPU %.2f\n", "",
                  previous->ranks,
                  growthPerDoubling(double(previous->ranks), previous->broadcastMs, double(r.ranks),
                                    r.broadcastMs),
                  growthPerDoubling(double(previous->ranks), previous->frontEndCpuMs,
                                    double(r.ranks), r.frontEndCpuMs));
    previous = &r;
  }
  std::printf(
      "(FE = this process, the front end; memory in MiB except KiB/endpt = host processes' RSS "
      "per emulated rank)\n");
}

}  // namespace mpidbg::bench
