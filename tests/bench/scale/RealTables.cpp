// The tables of scale_bench's real mode (declared in RealScale.hpp).
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>

#include "BenchStats.hpp"
#include "RealScale.hpp"

namespace mpidbg::bench {
namespace {

constexpr double kDoublingTarget = 1.30;    // each doubling adds under 30 % latency
constexpr double kStatus256TargetMs = 300;  // 256-rank status under 0.3 s
constexpr double kRankMemoryTargetMiB = 8;  // runtime memory under 8 MiB per rank

double mib(double kib) { return kib / 1024.0; }

/// "1.23" or "-" for NaN.
std::string factor(double f) {
  if (std::isnan(f)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", f);
  return text;
}

const char* verdict(bool met) { return met ? "met" : "NOT met"; }

}  // namespace

void printRealTables(const std::vector<RealRow>& rows) {
  std::printf(
      "\nLatency (medians; ms unless marked s; cores = CPU the ranks used while idle, of %u)\n",
      std::thread::hardware_concurrency());
  std::printf("%6s %9s %9s %14s %10s %14s %10s %13s %14s\n", "ranks", "launch s", "settle s",
              "status frozen", "status", "collectives", "where", "cores frozen", "cores blocked");
  for (const auto& r : rows) {
    if (r.launchMs <= 0) {
      std::printf("%6ld  not measured: %s\n", r.ranks, r.note.c_str());
      continue;
    }
    std::printf("%6ld %9.2f %9.2f %14.1f %10.1f %14.1f %10.1f %13.2f %14.2f\n", r.ranks,
                r.launchMs / 1000, r.settleMs / 1000, r.frozenStatusMs, r.statusMs, r.collectivesMs,
                r.whereMs, r.frozenCores, r.blockedCores);
  }

  std::printf("\nGrowth per doubling of the ranks, (t2/t1)^(1/log2(n2/n1)) (target < %.2f)\n",
              kDoublingTarget);
  std::printf("%12s %8s %14s %8s %12s %8s\n", "ranks", "launch", "status frozen", "status",
              "collectives", "where");
  double worst[5] = {0, 0, 0, 0, 0};
  const RealRow* previous = nullptr;
  for (const auto& r : rows) {
    if (!r.measured) continue;
    if (previous) {
      const double n1 = double(previous->ranks), n2 = double(r.ranks);
      const double g[5] = {growthPerDoubling(n1, previous->launchMs, n2, r.launchMs),
                           growthPerDoubling(n1, previous->frozenStatusMs, n2, r.frozenStatusMs),
                           growthPerDoubling(n1, previous->statusMs, n2, r.statusMs),
                           growthPerDoubling(n1, previous->collectivesMs, n2, r.collectivesMs),
                           growthPerDoubling(n1, previous->whereMs, n2, r.whereMs)};
      for (int i = 0; i < 5; ++i)
        if (!std::isnan(g[i])) worst[i] = std::max(worst[i], g[i]);
      const std::string span = std::to_string(previous->ranks) + "->" + std::to_string(r.ranks);
      std::printf("%12s %8s %14s %8s %12s %8s\n", span.c_str(), factor(g[0]).c_str(),
                  factor(g[1]).c_str(), factor(g[2]).c_str(), factor(g[3]).c_str(),
                  factor(g[4]).c_str());
    }
    previous = &r;
  }

  std::printf("\nMemory (MiB; per rank: medians over the ranks)\n");
  std::printf("%6s %7s %7s | %8s %7s %6s | %8s %7s %6s | %8s %7s %6s | %8s %8s\n", "ranks",
              "FE RSS", "FE HWM", "rank RSS", "without", "delta", "rank PSS", "without", "delta",
              "anon", "without", "delta", "rt libs", "rt libs");
  std::printf("%6s %7s %7s | %8s %7s %6s | %8s %7s %6s | %8s %7s %6s | %8s %8s\n", "", "", "", "",
              "", "", "", "", "", "", "", "", "RSS", "PSS");
  double worstPss = 0, worstRss = 0, worstAnon = 0;
  bool anyDelta = false;
  for (const auto& r : rows) {
    if (!r.measured) continue;
    const MappingKiB& w = r.withRuntime.total;
    if (r.withoutRuntime) {
      const MappingKiB& o = r.withoutRuntime->total;
      std::printf(
          "%6ld %7.1f %7.1f | %8.1f %7.1f %6.1f | %8.1f %7.1f %6.1f | %8.1f %7.1f %6.1f | %8.2f "
          "%8.2f\n",
          r.ranks, mib(r.frontEnd.rss), mib(r.frontEnd.hwm), mib(w.rss), mib(o.rss),
          mib(w.rss - o.rss), mib(w.pss), mib(o.pss), mib(w.pss - o.pss), mib(w.anon), mib(o.anon),
          mib(w.anon - o.anon), mib(r.runtimeFiles ? r.runtimeFiles->rss : 0),
          mib(r.runtimeFiles ? r.runtimeFiles->pss : 0));
      worstPss = std::max(worstPss, mib(w.pss - o.pss));
      worstRss = std::max(worstRss, mib(w.rss - o.rss));
      worstAnon = std::max(worstAnon, mib(w.anon - o.anon));
      anyDelta = true;
    } else {
      std::printf(
          "%6ld %7.1f %7.1f | %8.1f %7s %6s | %8.1f %7s %6s | %8.1f %7s %6s | %8s %8s  (%s)\n",
          r.ranks, mib(r.frontEnd.rss), mib(r.frontEnd.hwm), mib(w.rss), "-", "-", mib(w.pss), "-",
          "-", mib(w.anon), "-", "-", "-", "-", r.note.empty() ? "no baseline" : r.note.c_str());
    }
  }
  for (const auto& r : rows)
    if (!r.runtimeFilePaths.empty()) {
      std::printf("files mapped only with the runtime (%ld ranks):", r.ranks);
      for (const auto& p : r.runtimeFilePaths) std::printf(" %s", p.c_str());
      std::printf("\n");
      break;
    }

  std::printf("\nFront-end CPU per command (ms, this process, all threads)\n");
  std::printf("%6s %10s %12s %10s\n", "ranks", "status", "collectives", "where");
  for (const auto& r : rows)
    if (r.measured)
      std::printf("%6ld %10.1f %12.1f %10.1f\n", r.ranks, r.statusCpuMs, r.collectivesCpuMs,
                  r.whereCpuMs);

  std::printf("\nAgainst issue 9's targets (reported, not asserted):\n");
  const char* names[5] = {"launch", "status (frozen)", "status", "collectives", "where"};
  for (int i = 0; i < 5; ++i)
    if (worst[i] > 0)
      std::printf("  %-16s worst growth per doubling %.2f (< %.2f): %s\n", names[i], worst[i],
                  kDoublingTarget, verdict(worst[i] < kDoublingTarget));
  for (const auto& r : rows)
    if (r.ranks == 256 && r.measured)
      std::printf("  status at 256 ranks %.1f ms (< %.0f ms): %s\n", r.statusMs, kStatus256TargetMs,
                  verdict(r.statusMs < kStatus256TargetMs));
  if (anyDelta) {
    std::printf("  runtime memory per rank (< %.0f MiB), largest delta over the sizes:\n",
                kRankMemoryTargetMiB);
    std::printf("    PSS %.1f MiB (shared pages split among the ranks mapping them): %s\n",
                worstPss, verdict(worstPss < kRankMemoryTargetMiB));
    std::printf("    RSS %.1f MiB (shared library pages counted in full for every rank): %s\n",
                worstRss, verdict(worstRss < kRankMemoryTargetMiB));
    std::printf("    anonymous %.1f MiB (heap, thread stacks; private to the rank): %s\n",
                worstAnon, verdict(worstAnon < kRankMemoryTargetMiB));
  }
}

}  // namespace mpidbg::bench
