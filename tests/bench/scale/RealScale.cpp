#include "RealScale.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <thread>

#include "BenchStats.hpp"
#include "CollSkipChecks.hpp"
#include "PlainJob.hpp"
#include "debugger/core/CollectiveReport.hpp"
#include "debugger/core/Debugger.hpp"
#include "debugger/core/StackQuery.hpp"
#include "debugger/core/stacks/StackRender.hpp"
#include "debugger/core/stacks/Symbolizer.hpp"

namespace mpidbg::bench {
namespace stacks = core::stacks;
namespace {

/// The `blockedAfter` of the commands' default settings (cli/Commands.hpp).
constexpr std::chrono::milliseconds kBlockedAfter{1000};

/// One timed command: wall time, this process's CPU time, and what was wrong
/// with its result ("" when right).
struct Timed {
  double ms = 0;
  double cpuMs = 0;
  std::string problem;
};

/// Runs `body` (which returns the problem text) and times it.
template <typename Body>
Timed timed(Body&& body) {
  const double cpu = processCpuMs();
  const auto start = Clock::now();
  Timed t;
  t.problem = body();
  t.ms = ms(Clock::now() - start);
  t.cpuMs = processCpuMs() - cpu;
  return t;
}

/// `status`: what doStatus does (cli/JobCommands.cpp) but the JSON.
Timed runStatus(core::Debugger& debugger, long n, bool frozen) {
  return timed([&] {
    const auto views = debugger.views();
    const std::string text = core::renderStatus(views, kBlockedAfter);
    if (text.empty()) return std::string("status rendered nothing");
    return frozen ? checkFrozen(views, n) : checkBlocked(views, n);
  });
}

/// `collectives`: what doCollectives does (cli/QueueCommands.cpp) but the JSON.
Timed runCollectives(core::Debugger& debugger, long n) {
  return timed([&] {
    const auto views = debugger.views();
    const core::HangInput input = debugger.queueStates();
    const auto states = core::commStatesOf(input);
    const std::string text = core::renderCollectives(views, states, kBlockedAfter);
    if (text.find("MPI_Allreduce") == std::string::npos)
      return "collectives does not name MPI_Allreduce:\n" + text;
    if (auto problem = checkBlocked(views, n); !problem.empty()) return problem;
    return checkCollectives(input, states, n);
  });
}

/// `where`: what doWhere does (cli/StackCommands.cpp), a fresh Symbolizer
/// each time as each command makes one.
Timed runWhere(core::Debugger& debugger, long n) {
  return timed([&] {
    const core::StackInput input = debugger.stacks();
    stacks::Symbolizer symbolizer;
    const stacks::StackTree tree = core::buildStackTree(input, stacks::NodeKey::Function,
                                                        core::StackDepth::ToMpiCall, symbolizer);
    return checkWhere(stacks::renderLeaves(tree), n, input.viaGdb.size(), input.failed.size());
  });
}

/// CPU seconds per second the processes `pids` use together over `window`.
double coresUsed(const std::vector<pid_t>& pids, std::chrono::milliseconds window) {
  auto total = [&] {
    double sum = 0;
    for (pid_t pid : pids) sum += readCpuMs(pid).value_or(0);
    return sum;
  };
  const double before = total();
  const auto start = Clock::now();
  std::this_thread::sleep_for(window);
  const double after = total();
  return (after - before) / ms(Clock::now() - start);
}

/// The rank processes of the job, by rank.
std::vector<pid_t> rankPids(core::Debugger& debugger) {
  auto ranks = debugger.session().job().snapshot();
  std::sort(ranks.begin(), ranks.end(),
            [](const auto& a, const auto& b) { return a.rank < b.rank; });
  std::vector<pid_t> pids;
  for (const auto& r : ranks) pids.push_back(r.pid);
  return pids;
}

/// Medians over `pids` of their smaps_rollup totals.
RankMemory rankMemory(const std::vector<pid_t>& pids) {
  std::vector<double> rss, pss, anon;
  for (pid_t pid : pids)
    if (auto m = readRollup(pid)) {
      rss.push_back(m->rss);
      pss.push_back(m->pss);
      anon.push_back(m->anon);
    }
  RankMemory out;
  out.processes = rss.size();
  out.total = {median(rss), median(pss), median(anon)};
  return out;
}

/// The files `with` maps that `without` does not: libraries, not the
/// per-job shared memory segments (/dev/shm/..., deleted once mapped) whose
/// names differ from job to job.
std::set<std::string> onlyIn(const std::map<std::string, MappingKiB>& with,
                             const std::map<std::string, MappingKiB>& without) {
  std::set<std::string> out;
  for (const auto& [path, kib] : with)
    if (!without.contains(path) && !path.starts_with("/dev/") && !path.ends_with(" (deleted)"))
      out.insert(path);
  return out;
}

/// The plain job's memory, and its rank 0's file mappings; sets row.note on failure.
std::optional<RankMemory> measureBaseline(const RealOptions& options, long n, RealRow& row,
                                          std::map<std::string, MappingKiB>& files) {
  auto job = PlainJob::start({"mpiexec.mpich", "-n", std::to_string(n), options.program});
  if (!job) {
    row.note += "no baseline: " + job.error().message + "; ";
    return std::nullopt;
  }
  const std::string name = std::filesystem::path(options.program).filename().string();
  auto pids = (*job)->waitSteady(name, static_cast<std::size_t>(n), std::chrono::seconds(2),
                                 options.baselineTimeout);
  if (!pids) {
    row.note += "no baseline: " + pids.error().message + "; ";
    return std::nullopt;
  }
  files = readFileMappings(pids->front());
  return rankMemory(*pids);
}

/// Records a command's outcome in `row`.
void note(RealRow& row, const char* what, const Timed& t) {
  if (!t.problem.empty()) row.failures.push_back(std::string(what) + ": " + t.problem);
}

RealRow measureJob(const RealOptions& options, long n) {
  RealRow row;
  row.ranks = n;
  resetPeakResident();
  core::RouteSettings routing = core::Debugger::defaultRouting();
  routing.requestTimeout = std::chrono::seconds(30);
  core::Debugger debugger([](const std::string&) {}, routing);
  core::LaunchOptions launch;
  launch.argv = {"mpiexec.mpich", "-n", std::to_string(n), options.program};
  launch.runtimePath = options.runtimePath;
  launch.stopAtInit = true;
  launch.registerTimeout = options.launchTimeout;
  auto start = Clock::now();
  if (auto launched = debugger.session().launch(launch, {}, {}); !launched) {
    row.note = "launch failed: " + launched.error().message;
    return row;
  }
  row.launchMs = ms(Clock::now() - start);

  // The first status opens the connections to the tree: untimed; retried
  // once, as the last rank may still be on its way to freezing.
  if (Timed first = runStatus(debugger, n, true); !first.problem.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    note(row, "status (frozen)", runStatus(debugger, n, true));
  }
  std::vector<double> frozen;
  for (long i = 0; i < options.repeat; ++i) {
    const Timed t = runStatus(debugger, n, true);
    note(row, "status (frozen)", t);
    frozen.push_back(t.ms);
  }
  row.frozenStatusMs = median(frozen);
  const std::vector<pid_t> pids = rankPids(debugger);
  row.frozenCores = coresUsed(pids, std::chrono::seconds(2));

  core::RankSet all;
  for (long r = 0; r < n; ++r) all.insert(static_cast<int>(r));
  start = Clock::now();
  if (auto problems = debugger.continueRanks(all); !problems.empty())
    row.failures.push_back("continue: rank " + std::to_string(problems.begin()->first) + " " +
                           problems.begin()->second);
  if (!debugger.waitSettled(options.launchTimeout, std::chrono::milliseconds(500), {})) {
    row.note = "the ranks did not all block in MPI";
    return row;
  }
  row.settleMs = ms(Clock::now() - start);
  row.measured = true;
  row.blockedCores = coresUsed(pids, std::chrono::seconds(2));

  // One untimed round (first stack capture, first symbolization), then
  // `repeat` rounds with the order rotated.
  std::vector<double> status, collectives, where, statusCpu, collectivesCpu, whereCpu;
  for (long i = -1; i < options.repeat; ++i) {
    for (int k = 0; k < 3; ++k) {
      const int which = static_cast<int>((k + std::max(0L, i)) % 3);
      Timed t = which == 0   ? runStatus(debugger, n, false)
                : which == 1 ? runCollectives(debugger, n)
                             : runWhere(debugger, n);
      const char* name = which == 0 ? "status" : which == 1 ? "collectives" : "where";
      note(row, name, t);
      if (i < 0) continue;
      (which == 0 ? status : which == 1 ? collectives : where).push_back(t.ms);
      (which == 0 ? statusCpu : which == 1 ? collectivesCpu : whereCpu).push_back(t.cpuMs);
    }
  }
  row.statusMs = median(status);
  row.collectivesMs = median(collectives);
  row.whereMs = median(where);
  row.statusCpuMs = median(statusCpu);
  row.collectivesCpuMs = median(collectivesCpu);
  row.whereCpuMs = median(whereCpu);
  if (auto fe = readResident()) row.frontEnd = *fe;

  row.withRuntime = rankMemory(pids);
  const auto withFiles =
      pids.empty() ? std::map<std::string, MappingKiB>{} : readFileMappings(pids.front());
  std::vector<std::map<std::string, MappingKiB>> perRankFiles;
  for (pid_t pid : pids) perRankFiles.push_back(readFileMappings(pid));
  debugger.session().kill();

  if (!options.baseline) return row;
  std::map<std::string, MappingKiB> withoutFiles;
  row.withoutRuntime = measureBaseline(options, n, row, withoutFiles);
  if (!row.withoutRuntime) return row;
  const std::set<std::string> runtimeOnly = onlyIn(withFiles, withoutFiles);
  row.runtimeFilePaths.assign(runtimeOnly.begin(), runtimeOnly.end());
  std::vector<double> rss, pss;
  for (const auto& files : perRankFiles) {
    const MappingKiB sum = sumPaths(files, runtimeOnly);
    rss.push_back(sum.rss);
    pss.push_back(sum.pss);
  }
  row.runtimeFiles = MappingKiB{median(rss), median(pss), 0};
  return row;
}

}  // namespace

std::vector<RealRow> runRealJobs(const RealOptions& options) {
  std::vector<RealRow> rows;
  for (long n : options.sizes) {
    rows.push_back(measureJob(options, n));
    const RealRow& r = rows.back();
    std::printf(
        "  %ld ranks: launch %.0f ms, status %.1f ms, collectives %.1f ms, where %.1f ms%s%s\n", n,
        r.launchMs, r.statusMs, r.collectivesMs, r.whereMs, r.note.empty() ? "" : "; ",
        r.note.c_str());
    for (const auto& f : r.failures) std::printf("    FAILED %s\n", f.c_str());
    std::fflush(stdout);
  }
  return rows;
}

}  // namespace mpidbg::bench
