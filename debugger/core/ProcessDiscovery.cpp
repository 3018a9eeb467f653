// Finding the ranks of a job mpidbg did not launch: the launcher's process
// tree and the ranks' environments (Hydra, Open MPI), or Slurm's own list.
#include "debugger/core/ProcessDiscovery.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "debugger/core/Mpir.hpp"
#include "debugger/gdbmi/ChildProcess.hpp"

namespace mpidbg::core {

namespace {

std::optional<int> toInt(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// Parent pid of every process, from /proc/PID/stat (the field after the
/// parenthesised command, which may itself hold spaces and parentheses).
std::multimap<pid_t, pid_t> childrenByParent() {
  std::multimap<pid_t, pid_t> children;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    const auto pid = toInt(name);
    if (!pid) continue;
    const std::string stat = readWholeFile("/proc/" + name + "/stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 1));
    std::string state;
    long parent = 0;
    if (fields >> state >> parent) children.emplace(static_cast<pid_t>(parent), *pid);
  }
  return children;
}

/// Fills `rank.executable` (/proc/PID/exe) and `rank.hasRuntime` (libmpidbg-rt
/// in its maps) for the process `rank.pid`.
void describeProcess(FoundRank& rank) {
  const std::string dir = "/proc/" + std::to_string(rank.pid);
  std::error_code ec;
  rank.executable = std::filesystem::read_symlink(dir + "/exe", ec).string();
  rank.hasRuntime = readWholeFile(dir + "/maps").find("libmpidbg-rt") != std::string::npos;
}

/// True when process `pid` exists (its /proc directory does).
bool processExists(pid_t pid) {
  struct stat st {};
  return pid > 0 && ::stat(("/proc/" + std::to_string(pid)).c_str(), &st) == 0;
}

/// The rank of live process `pid`, with its executable and whether the
/// runtime is loaded; nullopt when its environment names none. Sets
/// `unreadable` when the environment could not be read.
std::optional<FoundRank> rankOfProcess(pid_t pid, bool& unreadable) {
  const std::string dir = "/proc/" + std::to_string(pid);
  std::ifstream in(dir + "/environ", std::ios::binary);
  if (!in) {
    unreadable = true;
    return std::nullopt;
  }
  const std::string environ((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto found = rankFromEnvironment(environ);
  if (!found) return std::nullopt;
  found->pid = pid;
  describeProcess(*found);
  return found;
}

}  // namespace

std::optional<std::string_view> environmentVariable(std::string_view environ, std::string_view name) {
  while (!environ.empty()) {
    const auto end = environ.find('\0');
    const std::string_view entry = environ.substr(0, end);
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=')
      return entry.substr(name.size() + 1);
    if (end == std::string_view::npos) break;
    environ.remove_prefix(end + 1);
  }
  return std::nullopt;
}

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::optional<FoundRank> rankFromEnvironment(std::string_view environ) {
  struct Scheme {
    std::string_view rank;
    std::vector<std::string_view> sizes;
  };
  static const Scheme kSchemes[] = {
      {"PMI_RANK", {"PMI_SIZE"}},
      {"OMPI_COMM_WORLD_RANK", {"OMPI_COMM_WORLD_SIZE"}},
      {"PMIX_RANK", {"OMPI_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"}},
      {"SLURM_PROCID", {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"}},
  };
  for (const Scheme& scheme : kSchemes) {
    const auto rankText = environmentVariable(environ, scheme.rank);
    if (!rankText) continue;
    const auto rank = toInt(*rankText);
    if (!rank || *rank < 0) continue;
    FoundRank found;
    found.rank = *rank;
    for (std::string_view sizeName : scheme.sizes)
      if (const auto sizeText = environmentVariable(environ, sizeName))
        if (const auto size = toInt(*sizeText); size && *size > *rank) {
          found.size = *size;
          break;
        }
    return found;
  }
  return std::nullopt;
}

Expected<std::vector<FoundRank>> ranksUnderLauncher(pid_t launcher) {
  if (!processExists(launcher)) return fail("no process " + std::to_string(launcher));
  const auto children = childrenByParent();
  std::vector<FoundRank> ranks;
  std::map<int, pid_t> claimed;
  bool unreadable = false;
  // Breadth first from the launcher; a rank's descendants are its own.
  std::deque<pid_t> queue{launcher};
  while (!queue.empty()) {
    const pid_t pid = queue.front();
    queue.pop_front();
    if (pid != launcher) {
      if (auto found = rankOfProcess(pid, unreadable)) {
        if (auto [it, fresh] = claimed.emplace(found->rank, pid); !fresh)
          return fail("processes " + std::to_string(it->second) + " and " + std::to_string(pid) + " both say rank " +
                      std::to_string(found->rank) + ": two jobs under one launcher?");
        ranks.push_back(std::move(*found));
        continue;
      }
    }
    for (auto [it, end] = children.equal_range(pid); it != end; ++it) queue.push_back(it->second);
  }
  if (ranks.empty())
    return fail("no process under " + std::to_string(launcher) + " names an MPI rank in its environment (" +
                (unreadable ? std::string("some environments were unreadable: another user's job?")
                            : std::string("is it mpiexec or mpirun, with ranks on this host?")) +
                ")");
  std::sort(ranks.begin(), ranks.end(), [](const FoundRank& a, const FoundRank& b) { return a.rank < b.rank; });
  return ranks;
}

Expected<std::vector<FoundRank>> ranksFromMpir(pid_t launcher) {
  if (!processExists(launcher)) return fail("no process " + std::to_string(launcher));
  auto table = readMpirProctable(launcher);
  if (!table) return std::unexpected(table.error());
  const int size = static_cast<int>(table->size());
  std::vector<FoundRank> ranks;
  std::vector<std::string> hosts;
  for (int rank = 0; rank < size; ++rank) {
    const MpirProcess& entry = (*table)[static_cast<std::size_t>(rank)];
    if (std::find(hosts.begin(), hosts.end(), entry.host) == hosts.end()) hosts.push_back(entry.host);
    bool unreadable = false;
    auto found = rankOfProcess(entry.pid, unreadable);
    if (found && found->rank != rank) continue;  // another host's pid, here some other rank's
    if (!found) {
      // No rank in its environment: the same program, or not ours.
      FoundRank candidate;
      candidate.pid = entry.pid;
      describeProcess(candidate);
      if (candidate.executable.empty() || entry.executable.empty() ||
          std::filesystem::path(candidate.executable).filename() != std::filesystem::path(entry.executable).filename())
        continue;
      found = std::move(candidate);
    }
    found->rank = rank;
    found->size = size;
    found->node = entry.host;
    ranks.push_back(std::move(*found));
  }
  if (ranks.empty()) {
    std::string names;
    for (std::size_t i = 0; i < hosts.size() && i < 8; ++i) names += (i == 0 ? "" : ", ") + hosts[i];
    if (hosts.size() > 8) names += ", ...";
    return fail("the MPIR_proctable of pid " + std::to_string(launcher) + " lists " + std::to_string(size) +
                " ranks on " + names + ", none of them a process on this host");
  }
  return ranks;
}

Expected<std::pair<std::vector<FoundRank>, LauncherSource>> ranksOfLauncher(pid_t launcher) {
  if (!processExists(launcher)) return fail("no process " + std::to_string(launcher));
  auto fromMpir = ranksFromMpir(launcher);
  if (fromMpir) return std::pair{std::move(*fromMpir), LauncherSource::MpirProctable};
  auto fromTree = ranksUnderLauncher(launcher);
  if (fromTree) return std::pair{std::move(*fromTree), LauncherSource::ProcessTree};
  return fail(fromTree.error().message + "; and MPIR did not serve: " + fromMpir.error().message);
}

Expected<std::vector<FoundRank>> ranksOfSlurmStep(const std::string& step) {
  auto child = gdbmi::ChildProcess::spawn({"scontrol", "listpids", step}, "scontrol");
  if (!child) return std::unexpected(child.error());
  auto [out, err, timedOut] = child->readToEnd(std::chrono::seconds(20));
  if (timedOut) {
    child->kill();
    return fail("scontrol listpids " + step + " did not finish within 20 s");
  }
  child->waitExit(std::chrono::milliseconds(2000));
  std::vector<FoundRank> ranks;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    // PID JOBID STEPID LOCALID GLOBALID; "-" for the step's own processes.
    std::istringstream fields(line);
    std::string pidText, job, stepId, local, global;
    if (!(fields >> pidText >> job >> stepId >> local >> global)) continue;
    const auto pid = toInt(pidText);
    const auto rank = toInt(global);
    if (!pid || !rank) continue;  // the header, slurmstepd's own lines
    bool unreadable = false;
    auto found = rankOfProcess(*pid, unreadable);
    if (found && found->rank != *rank) continue;  // a task's own child
    if (!found) {
      found = FoundRank{};
      found->rank = *rank;
      found->pid = *pid;
    }
    if (std::any_of(ranks.begin(), ranks.end(), [&](const FoundRank& r) { return r.rank == *rank; })) continue;
    ranks.push_back(std::move(*found));
  }
  if (ranks.empty()) {
    std::string why = err;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    return fail("scontrol listpids " + step + " found no task on this node" + (why.empty() ? "" : ": " + why));
  }
  std::sort(ranks.begin(), ranks.end(), [](const FoundRank& a, const FoundRank& b) { return a.rank < b.rank; });
  return ranks;
}

std::pair<int, std::string> jobSizeOf(const std::vector<FoundRank>& ranks) {
  int highest = -1, size = 0;
  bool disagree = false;
  for (const FoundRank& r : ranks) {
    highest = std::max(highest, r.rank);
    if (r.size == 0) continue;
    if (size != 0 && r.size != size) disagree = true;
    size = std::max(size, r.size);
  }
  std::string note;
  if (disagree) note += " The ranks' environments disagree on the job's size; taking " + std::to_string(size) + ".";
  if (size == 0) size = highest + 1;
  size = std::max(size, highest + 1);
  if (static_cast<int>(ranks.size()) < size)
    note += " Found " + std::to_string(ranks.size()) + " of " + std::to_string(size) +
            " ranks on this host; the others are not attached.";
  return {size, note};
}

}  // namespace mpidbg::core
