// Time of `where` (issue 6) for real MPICH jobs stuck in a collective, side
// by side with the common practice it replaces: `gdb -p PID -batch -ex bt`
// per rank, one after the other and two at a time. The job is
// examples/hangs/coll_skip (every rank but the last in MPI_Allreduce, the
// last in MPI_Recv) launched under core::Debugger with the runtime preloaded;
// once every rank is blocked, the methods are timed alternately:
//   where     Debugger::stacks + buildStackTree + renderLeaves, a fresh
//             Symbolizer each time (a user's first `where`); "warm" reuses
//             one Symbolizer that has seen the job once
//   serial    gdb -nx -q -batch -p PID -ex bt for each rank in turn
//   parallel  the same, two gdbs at a time
// Target: `where` at least 50x faster than serial gdb; 16 ranks under 1 s,
// 64 under 2 s. The job's MPIDBG_IDLE_WAIT is set from --idle-wait (each
// value is a separate job), so both blocked ranks that sleep (auto: on when
// oversubscribed) and ranks that busy-poll (0) are shown.
//   stacks_bench [--ranks 16,64] [--repeat 3] [--gdb-repeat 1] [--gdb-ranks K]
//                [--idle-wait auto,0] [--program PATH]
// Exit code: 0 when `where` named the expected calls and every gdb printed a
// frame, 1 otherwise, 2 when a job could not be launched or did not settle.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "GdbBaseline.hpp"
#include "../scale/CollSkipChecks.hpp"
#include "debugger/core/Debugger.hpp"
#include "debugger/core/StackQuery.hpp"
#include "debugger/core/stacks/StackRender.hpp"
#include "debugger/core/stacks/Symbolizer.hpp"

using namespace mpidbg;
namespace stacks = core::stacks;
using Clock = std::chrono::steady_clock;

namespace {

/// The items of the comma-separated option `name` ("--ranks 16,64"), or `fallback`.
std::vector<std::string> listArgument(int argc, char** argv, const char* name,
                                      std::vector<std::string> fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) != 0) continue;
    std::vector<std::string> out;
    std::stringstream in(argv[i + 1]);
    for (std::string item; std::getline(in, item, ',');) out.push_back(item);
    return out;
  }
  return fallback;
}

/// The number given to option `name`, or `fallback`.
long numberArgument(int argc, char** argv, const char* name, long fallback) {
  return std::stol(listArgument(argc, argv, name, {std::to_string(fallback)}).at(0));
}

/// `d` in milliseconds.
double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

/// The median of `v` (the upper one for an even count; 0 when empty).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// The directory of this executable (BUILD/bin).
std::filesystem::path selfDir() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path();
}

/// One timed `where` and what it printed.
struct WhereRun {
  double ms = 0;
  std::string text;        ///< renderLeaves' output
  std::size_t viaGdb = 0;  ///< ranks the runtime could not answer for (read by gdb instead)
  std::size_t failed = 0;  ///< ranks with no stacks at all
};

/// What the `where` command does for all ranks (cli/StackCommands.cpp),
/// symbolizing with `symbolizer`.
WhereRun timeWhere(core::Debugger& debugger, stacks::Symbolizer& symbolizer) {
  WhereRun run;
  const auto start = Clock::now();
  const core::StackInput input = debugger.stacks();
  const stacks::StackTree tree = core::buildStackTree(input, stacks::NodeKey::Function,
                                                      core::StackDepth::ToMpiCall, symbolizer);
  run.text = stacks::renderLeaves(tree);
  run.ms = ms(Clock::now() - start);
  run.viaGdb = input.viaGdb.size();
  run.failed = input.failed.size();
  return run;
}

/// `where` with a Symbolizer made (and destroyed) inside the timed region.
WhereRun timeColdWhere(core::Debugger& debugger) {
  const auto start = Clock::now();
  WhereRun run;
  {
    stacks::Symbolizer symbolizer;
    run = timeWhere(debugger, symbolizer);
  }
  run.ms = ms(Clock::now() - start);
  return run;
}

/// `k` pids of `pids` spread evenly from the first to the last (all when k
/// is 0 or at least their number).
std::vector<pid_t> sample(const std::vector<pid_t>& pids, long k) {
  if (k <= 0 || static_cast<std::size_t>(k) >= pids.size()) return pids;
  if (k == 1) return {pids.back()};
  std::vector<pid_t> out;
  for (long i = 0; i < k; ++i)
    out.push_back(pids[static_cast<std::size_t>(i * (long(pids.size()) - 1) / (k - 1))]);
  return out;
}

/// The medians of one job.
struct Row {
  std::string idleWait;
  long ranks = 0;
  double whereMs = 0, warmMs = 0, serialS = 0, parallelS = 0, oneGdbS = 0;
  std::size_t gdbRanks = 0;  ///< ranks gdb was run on (scaled to `ranks` when fewer)
};

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf(
          "usage: stacks_bench [--ranks 16,64] [--repeat 3] [--gdb-repeat 1] [--gdb-ranks K]\n"
          "                    [--idle-wait auto,0] [--program PATH]\n");
      return 0;
    }
  std::vector<long> sizes;
  for (const auto& s : listArgument(argc, argv, "--ranks", {"16", "64"}))
    sizes.push_back(std::stol(s));
  const long repeat = std::max(1L, numberArgument(argc, argv, "--repeat", 3));
  const long gdbRepeat = std::max(1L, numberArgument(argc, argv, "--gdb-repeat", 1));
  const long gdbRanks = numberArgument(argc, argv, "--gdb-ranks", 0);
  const auto idleModes = listArgument(argc, argv, "--idle-wait", {"auto", "0"});
  const std::string build = selfDir().parent_path().string();
  std::string program = build + "/examples/hangs/coll_skip";
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--program") == 0) program = argv[i + 1];

  std::printf(
      "`where` versus gdb -p PID -batch -ex bt per rank, on %s\n"
      "(every rank but the last in MPI_Allreduce, the last in MPI_Recv); where: median of %ld,\n"
      "gdb: median of %ld pass(es), alternating\n\n",
      program.c_str(), repeat, gdbRepeat);
  int failures = 0;
  std::vector<Row> rows;
  for (const auto& mode : idleModes) {
    ::setenv("MPIDBG_IDLE_WAIT", mode.c_str(), 1);  // the launcher passes the environment on
    for (long n : sizes) {
      core::RouteSettings routing = core::Debugger::defaultRouting();
      routing.requestTimeout = std::chrono::seconds(20);
      core::Debugger debugger([](const std::string&) {}, routing);
      core::LaunchOptions options;
      options.argv = {"mpiexec.mpich", "-n", std::to_string(n), program};
      options.runtimePath = build + "/lib/libmpidbg-rt.so";
      options.stopAtInit = false;  // run straight into the hang
      options.registerTimeout = std::chrono::seconds(300);
      if (auto launched = debugger.session().launch(options, {}, {}); !launched) {
        std::fprintf(stderr, "launch of %ld ranks failed: %s\n", n,
                     launched.error().message.c_str());
        return 2;
      }
      if (!debugger.waitSettled(std::chrono::seconds(300), std::chrono::milliseconds(500), {})) {
        std::fprintf(stderr, "%ld ranks did not settle\n", n);
        return 2;
      }
      std::vector<pid_t> pids;
      auto ranks = debugger.session().job().snapshot();
      std::sort(ranks.begin(), ranks.end(),
                [](const auto& a, const auto& b) { return a.rank < b.rank; });
      for (const auto& r : ranks) pids.push_back(r.pid);
      const std::vector<pid_t> gdbPids = sample(pids, gdbRanks);

      stacks::Symbolizer warm;
      (void)timeWhere(debugger, warm);  // primes `warm`; not timed
      std::vector<double> cold, warmMs, serial, parallel, oneGdb;
      const long rounds = std::max(repeat, gdbRepeat);
      for (long i = 0; i < rounds; ++i) {
        const bool gdbFirst = (i % 2) == 1;
        for (int pass = 0; pass < 2; ++pass) {
          if ((pass == 0) != gdbFirst) {
            if (i >= repeat) continue;
            const WhereRun c = timeColdWhere(debugger);
            const WhereRun w = timeWhere(debugger, warm);
            cold.push_back(c.ms);
            warmMs.push_back(w.ms);
            for (const WhereRun* r : {&c, &w}) {
              if (bench::checkWhere(r->text, n, r->viaGdb, r->failed).empty()) continue;
              std::printf(
                  "  %ld ranks, idle-wait %s: unexpected `where` (%zu via gdb, %zu failed):\n%s", n,
                  mode.c_str(), r->viaGdb, r->failed, r->text.c_str());
              ++failures;
            }
          } else {
            if (i >= gdbRepeat) continue;
            for (int k = 0; k < 2; ++k) {
              const int workers =
                  ((k == 0) == (i % 2 == 0)) ? 1 : 2;  // serial first in even rounds
              const bench::GdbPass p = bench::runGdbPass(gdbPids, workers);
              (workers == 1 ? serial : parallel).push_back(p.seconds);
              if (workers == 1)
                for (const auto& run : p.runs) oneGdb.push_back(run.seconds);
              for (const auto& run : p.runs)
                if (!run.error.empty()) {
                  std::printf("  gdb on pid %d: %s\n", run.pid, run.error.c_str());
                  ++failures;
                }
            }
          }
        }
      }
      const double scale = double(pids.size()) / double(gdbPids.size());
      rows.push_back({mode, n, median(cold), median(warmMs), median(serial) * scale,
                      median(parallel) * scale, median(oneGdb), gdbPids.size()});
      const Row& r = rows.back();
      std::printf(
          "  idle-wait %s, %ld ranks: where %.1f ms (warm %.1f), serial gdb %.1f s, 2 parallel "
          "%.1f s%s\n",
          mode.c_str(), n, r.whereMs, r.warmMs, r.serialS, r.parallelS,
          r.gdbRanks < pids.size()
              ? (" (gdb extrapolated from " + std::to_string(r.gdbRanks) + " ranks)").c_str()
              : "");
      std::fflush(stdout);
      debugger.session().kill();
    }
  }

  std::printf("\n%-9s %5s %9s %9s %10s %10s %8s %13s %15s  %s\n", "idle-wait", "ranks", "where ms",
              "warm ms", "serial s", "2-par s", "1 gdb s", "serial/where", "parallel/where",
              "gdb measured on");
  for (const Row& r : rows) {
    const std::string on = r.gdbRanks < static_cast<std::size_t>(r.ranks)
                               ? "extrapolated from " + std::to_string(r.gdbRanks) + " ranks"
                               : "all ranks";
    std::printf("%-9s %5ld %9.1f %9.1f %10.1f %10.1f %8.2f %12.0fx %14.0fx  %s\n",
                r.idleWait.c_str(), r.ranks, r.whereMs, r.warmMs, r.serialS, r.parallelS, r.oneGdbS,
                r.whereMs > 0 ? r.serialS * 1000 / r.whereMs : 0.0,
                r.whereMs > 0 ? r.parallelS * 1000 / r.whereMs : 0.0, on.c_str());
  }
  return failures == 0 ? 0 : 1;
}
