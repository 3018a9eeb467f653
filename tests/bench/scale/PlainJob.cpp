#include "PlainJob.hpp"

#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "ProcMemory.hpp"

extern char** environ;

namespace mpidbg::bench {
namespace {

/// The parent pid and command name of `pid` from /proc/PID/stat.
std::optional<std::pair<pid_t, std::string>> parentAndName(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  std::istringstream rest(text.substr(close + 2));
  std::string state;
  pid_t parent = 0;
  if (!(rest >> state >> parent)) return std::nullopt;
  return std::make_pair(parent, text.substr(open + 1, close - open - 1));
}

/// The environment without LD_PRELOAD and MPIDBG_* (as "NAME=VALUE" strings).
std::vector<std::string> plainEnvironment() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    if (entry.starts_with("LD_PRELOAD=") || entry.starts_with("MPIDBG_")) continue;
    out.emplace_back(entry);
  }
  return out;
}

}  // namespace

std::vector<pid_t> descendantsNamed(pid_t root, std::string_view name) {
  const std::string wanted(name.substr(0, 15));
  std::multimap<pid_t, pid_t> children;
  std::map<pid_t, std::string> names;
  if (DIR* dir = ::opendir("/proc")) {
    while (dirent* entry = ::readdir(dir)) {
      char* end = nullptr;
      const long pid = std::strtol(entry->d_name, &end, 10);
      if (*end != '\0' || pid <= 0) continue;
      if (auto info = parentAndName(static_cast<pid_t>(pid))) {
        children.emplace(info->first, static_cast<pid_t>(pid));
        names[static_cast<pid_t>(pid)] = info->second;
      }
    }
    ::closedir(dir);
  }
  std::vector<pid_t> out, pending{root};
  while (!pending.empty()) {
    const pid_t parent = pending.back();
    pending.pop_back();
    auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      if (names[it->second] == wanted) out.push_back(it->second);
      pending.push_back(it->second);
    }
  }
  return out;
}

Expected<std::unique_ptr<PlainJob>> PlainJob::start(const std::vector<std::string>& argv) {
  if (argv.empty()) return fail("no launcher command given");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> env = plainEnvironment();
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], nullptr, &attr, args.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return fail("cannot start " + argv[0] + ": " + std::strerror(rc));
  return std::unique_ptr<PlainJob>(new PlainJob(pid));
}

PlainJob::~PlainJob() {
  ::kill(-launcher_, SIGKILL);
  // Ranks found since (Hydra keeps them in the group, but be sure).
  for (pid_t rank : ranks_) ::kill(rank, SIGKILL);
  int status = 0;
  if (!reaped_) ::waitpid(launcher_, &status, 0);
}

Expected<std::vector<pid_t>> PlainJob::waitSteady(std::string_view name, std::size_t count,
                                                  std::chrono::milliseconds window,
                                                  std::chrono::milliseconds timeout) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  // Per rank: (cpu ms, rss KiB) at the start of the current window.
  std::map<pid_t, std::pair<double, double>> windowStart;
  auto windowBegan = Clock::now();
  std::size_t found = 0;
  while (Clock::now() < deadline) {
    int status = 0;
    if (::waitpid(launcher_, &status, WNOHANG) == launcher_) {
      reaped_ = true;
      return fail("the launcher ended before the job was steady");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    ranks_ = descendantsNamed(launcher_, name);
    found = ranks_.size();
    if (found != count) {
      windowStart.clear();
      continue;
    }
    std::map<pid_t, std::pair<double, double>> now;
    for (pid_t pid : ranks_) {
      const auto cpu = readCpuMs(pid);
      const auto resident = readResident(pid);
      if (cpu && resident) now[pid] = {*cpu, resident->rss};
    }
    if (now.size() != count || windowStart.size() != count ||
        std::any_of(now.begin(), now.end(),
                    [&](const auto& e) { return !windowStart.contains(e.first); })) {
      windowStart = now;
      windowBegan = Clock::now();
      continue;
    }
    if (Clock::now() - windowBegan < window) continue;
    bool allBusy = true;
    double before = 0, after = 0;
    for (const auto& [pid, sample] : now) {
      allBusy = allBusy && sample.first > windowStart[pid].first;
      before += windowStart[pid].second;
      after += sample.second;
    }
    if (allBusy && before > 0 && std::abs(after - before) < 0.01 * before) return ranks_;
    windowStart = now;
    windowBegan = Clock::now();
  }
  return fail("the job was not steady within " + std::to_string(timeout.count() / 1000) + " s (" +
              std::to_string(found) + " of " + std::to_string(count) + " ranks found)");
}

}  // namespace mpidbg::bench
