// How mpidbg scales (issue 9), in two modes:
//
// Real: MPICH jobs of examples/hangs/coll_skip (every rank but the last in
// MPI_Allreduce, the last in MPI_Recv) of 16, 64, 128 and 256 ranks,
// oversubscribed on this machine, launched under core::Debugger with the
// runtime preloaded. Per size: launch until every rank registered and froze
// at MPI_Init's end; `status` while frozen; continue until every rank blocks;
// then `status`, `collectives` and `where` through the forwarding tree, with
// the core calls the commands make (debugger/cli); the front end's memory
// (this process) and each rank's, compared with the same job launched
// without the runtime. Targets (reported, never asserted): each doubling
// adds under 30 % latency, status at 256 ranks under 0.3 s, the runtime's
// memory under 8 MiB per rank.
//
// Synthetic (--synthetic 4096,16384): emulated runtime endpoints in a few
// forked host processes (SyntheticScale.hpp), one status broadcast through
// the tree and the front end's merge, per size.
//
//   scale_bench [--ranks 16,64,128,256] [--repeat 3] [--no-baseline]
//               [--program PATH] [--runtime PATH] [--launch-timeout S]
//   scale_bench --synthetic 4096,16384 [--repeat 10] [--pollers 1|0|N]
//               [--per-host 2048] [--fan-out 4]
// Exit code: 0 when every command gave the expected result, 1 when one did
// not (a wrong or missing answer), 2 when a job could not be launched or
// did not settle.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "RealScale.hpp"
#include "SyntheticScale.hpp"

using namespace mpidbg::bench;

namespace {

/// The value following option `name`, or nullptr.
const char* option(int argc, char** argv, const char* name) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return nullptr;
}

bool flag(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return true;
  return false;
}

/// "16,64,128" as numbers; `fallback` when absent.
std::vector<long> numbers(const char* text, std::vector<long> fallback) {
  if (!text) return fallback;
  std::vector<long> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stol(item));
  return out;
}

long number(const char* text, long fallback) { return text ? std::stol(text) : fallback; }

void usage() {
  std::printf(
      "usage: scale_bench [--ranks 16,64,128,256] [--repeat 3] [--no-baseline]\n"
      "                   [--program PATH] [--runtime PATH] [--launch-timeout SECONDS]\n"
      "       scale_bench --synthetic 4096,16384 [--repeat 10] [--pollers 1|0|N]\n"
      "                   [--per-host 2048] [--fan-out 4]\n");
}

int runSyntheticMode(int argc, char** argv) {
  SyntheticOptions o;
  o.sizes = numbers(option(argc, argv, "--synthetic"), o.sizes);
  o.repeat = std::max(1L, number(option(argc, argv, "--repeat"), o.repeat));
  o.perHost =
      static_cast<std::size_t>(std::max(1L, number(option(argc, argv, "--per-host"), 2048)));
  o.fanOut = static_cast<std::size_t>(std::max(1L, number(option(argc, argv, "--fan-out"), 4)));
  o.pollers = std::max(0L, number(option(argc, argv, "--pollers"), o.pollers));
  std::printf(
      "synthetic: %zu endpoints per host process (TLS CCS server + the runtime's forwarder),\n"
      "status broadcast with fan-out %zu, %ld timed broadcasts after 2 untimed\n\n",
      o.perHost, o.fanOut, o.repeat);
  const auto rows = runSynthetic(o);
  printSyntheticTable(rows);
  bool wrong = false, unmeasured = false;
  for (const auto& r : rows) {
    wrong = wrong || !r.failures.empty();
    unmeasured = unmeasured || !r.measured;
  }
  return wrong ? 1 : unmeasured ? 2 : 0;
}

int runRealMode(int argc, char** argv) {
  const std::filesystem::path build =
      std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path();
  RealOptions o;
  o.sizes = numbers(option(argc, argv, "--ranks"), o.sizes);
  o.repeat = std::max(1L, number(option(argc, argv, "--repeat"), o.repeat));
  o.baseline = !flag(argc, argv, "--no-baseline");
  o.program = option(argc, argv, "--program") ? option(argc, argv, "--program")
                                              : (build / "examples/hangs/coll_skip").string();
  o.runtimePath = option(argc, argv, "--runtime") ? option(argc, argv, "--runtime")
                                                  : (build / "lib/libmpidbg-rt.so").string();
  o.launchTimeout = std::chrono::seconds(number(option(argc, argv, "--launch-timeout"), 600));
  std::printf(
      "real jobs: mpiexec.mpich -n N %s under core::Debugger with %s;\n"
      "medians of %ld rotated rounds after one untimed round%s\n\n",
      o.program.c_str(), o.runtimePath.c_str(), o.repeat,
      o.baseline ? "; memory baseline: the same job without the runtime" : "");
  const auto rows = runRealJobs(o);
  printRealTables(rows);
  bool wrong = false, unmeasured = false;
  for (const auto& r : rows) {
    wrong = wrong || !r.failures.empty();
    unmeasured = unmeasured || !r.measured;
  }
  return wrong ? 1 : unmeasured ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (flag(argc, argv, "--help")) {
    usage();
    return 0;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  return option(argc, argv, "--synthetic") ? runSyntheticMode(argc, argv) : runRealMode(argc, argv);
}
