// Time of the hang report (issue 5) for real deadlocked MPICH jobs of 16, 64
// and 128 ranks (oversubscribed on this machine), read two ways side by side
// in one run: (a) from the ranks' runtimes over CCS through the forwarding
// tree, (b) from memory through the mqs DLL (process_vm_readv, symbols from
// /proc/PID/maps), each followed by the verdict. Target: 64 ranks under 0.5 s
// either way.
//   hang_bench [--ranks 16,64,128] [--repeat 5] [--program PATH]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "debugger/core/Debugger.hpp"
#include "debugger/core/HangReport.hpp"
#include "debugger/core/mqs/QueueSources.hpp"

using namespace mpidbg;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<long> listArgument(int argc, char** argv, const char* name, std::vector<long> fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) != 0) continue;
    std::vector<long> out;
    std::stringstream in(argv[i + 1]);
    for (std::string item; std::getline(in, item, ',');) out.push_back(std::stol(item));
    return out;
  }
  return fallback;
}

std::string stringArgument(int argc, char** argv, const char* name, std::string fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return fallback;
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::filesystem::path selfDir() { return std::filesystem::read_symlink("/proc/self/exe").parent_path(); }

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("usage: hang_bench [--ranks 16,64,128] [--repeat 5] [--program PATH]\n");
      return 0;
    }
  const auto sizes = listArgument(argc, argv, "--ranks", {16, 64, 128});
  const long repeat = listArgument(argc, argv, "--repeat", {5}).at(0);
  bool frozen = false;
  for (int i = 1; i < argc; ++i) frozen = frozen || std::strcmp(argv[i], "--frozen") == 0;
  const std::string build = selfDir().parent_path().string();
  const std::string program = stringArgument(argc, argv, "--program", build + "/examples/hangs/coll_skip");

  std::printf("hang report of %s (every rank but the last in MPI_Allreduce, the last in MPI_Recv);\n"
              "medians of %ld alternating repetitions; each includes the verdict\n\n",
              program.c_str(), repeat);
  std::printf("%6s %10s %12s %14s %8s\n", "ranks", "ccs ms", "memory ms", "memory/ccs", "verdict");
  int failures = 0;
  for (long n : sizes) {
    core::RouteSettings routing = core::Debugger::defaultRouting();
    routing.requestTimeout = std::chrono::seconds(20);
    core::Debugger debugger([](const std::string&) {}, routing);
    core::LaunchOptions options;
    options.argv = {"mpiexec.mpich", "-n", std::to_string(n), program};
    options.runtimePath = build + "/lib/libmpidbg-rt.so";
    options.stopAtInit = frozen;
    options.registerTimeout = std::chrono::seconds(300);
    if (auto launched = debugger.session().launch(options, {}, {}); !launched) {
      std::fprintf(stderr, "launch of %ld ranks failed: %s\n", n, launched.error().message.c_str());
      return 2;
    }
    if (!debugger.waitSettled(std::chrono::seconds(300), std::chrono::milliseconds(500), {})) {
      std::fprintf(stderr, "%ld ranks did not settle\n", n);
      return 2;
    }
    std::vector<std::pair<int, pid_t>> pids;
    for (const auto& r : debugger.session().job().snapshot()) pids.emplace_back(r.rank, r.pid);

    std::vector<double> viaCcs, viaMemory;
    std::string verdictCcs, verdictMemory;
    for (long i = 0; i < repeat; ++i) {
      for (int pass = 0; pass < 2; ++pass) {
        const bool memoryFirst = (i % 2) == 1;
        const bool memory = (pass == 0) == memoryFirst;
        const auto start = Clock::now();
        core::HangInput input;
        if (memory) {
          input = debugger.queueStatesFromMemory();  // what `hang --memory` does
        } else {
          input = debugger.queueStates();
        }
        const auto verdict = core::analyzeHang(input);
        (memory ? viaMemory : viaCcs).push_back(ms(Clock::now() - start));
        const std::string summary = verdict.cycles.empty() ? "no cycle" : "cycle of " + std::to_string(verdict.cycles[0].size());
        (memory ? verdictMemory : verdictCcs) = summary + (input.unreadable.empty() ? "" : " (unreadable ranks)");
      }
    }
    std::vector<double> statusOnly;
    for (long i = 0; i < repeat; ++i) {
      const auto start = Clock::now();
      (void)debugger.views();
      statusOnly.push_back(ms(Clock::now() - start));
    }
    std::printf("       (status of every rank over CCS, for scale: %.1f ms)\n", median(statusOnly));
    const double c = median(viaCcs), m = median(viaMemory);
    std::printf("%6ld %10.1f %12.1f %14.2f %8s\n", n, c, m, c > 0 ? m / c : 0.0, verdictCcs.c_str());
    if (verdictCcs != verdictMemory || verdictCcs != "cycle of 2") {
      std::printf("       verdicts differ or wrong: ccs '%s', memory '%s'\n", verdictCcs.c_str(), verdictMemory.c_str());
      ++failures;
    }
    debugger.session().kill();
  }
  return failures == 0 ? 0 : 1;
}
