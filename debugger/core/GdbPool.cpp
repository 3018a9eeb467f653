#include "debugger/core/GdbPool.hpp"

#include <atomic>
#include <thread>

#include "debugger/gdbmi/Session.hpp"

namespace mpidbg::core {

GdbPool::GdbPool(Job& job) : job_(job) {}

GdbPool::~GdbPool() { closeAll(); }

Expected<gdbmi::Session*> GdbPool::sessionFor(int rank) {
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(rank);
    if (it != sessions_.end()) {
      if (it->second->alive()) return it->second.get();
      sessions_.erase(it);  // gdb died since: start afresh
      job_.setHeldByGdb(rank, false);
    }
  }
  const auto info = job_.rank(rank);
  if (!info) return fail("rank " + std::to_string(rank) + " has not registered");
  if (info->ended()) return fail("rank " + std::to_string(rank) + " has " + info->describeEnd());
  gdbmi::SessionOptions options;
  options.gdbPath = gdbPath;
  auto session = gdbmi::Session::start(options);
  if (!session) return std::unexpected(session.error());
  // Mark the rank held before attaching: its CCS thread stops with it.
  job_.setHeldByGdb(rank, true);
  if (auto attached = (*session)->attach(info->pid, attachTimeout); !attached) {
    job_.setHeldByGdb(rank, false);
    return fail("gdb could not attach to rank " + std::to_string(rank) + " (pid " +
                std::to_string(info->pid) + "): " + attached.error().message);
  }
  std::lock_guard lock(mutex_);
  auto* raw = session->get();
  sessions_[rank] = std::move(*session);
  return raw;
}

std::map<int, Expected<std::string>> GdbPool::run(const RankSet& ranks, const std::string& command,
                                                  const std::function<void(int, int)>& progress) {
  const std::vector<int> targets = ranks.toVector();
  std::map<int, Expected<std::string>> results;
  std::mutex resultsMutex;
  std::atomic<std::size_t> next{0};
  std::atomic<int> done{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < targets.size(); i = next++) {
      const int rank = targets[i];
      Expected<std::string> out = [&]() -> Expected<std::string> {
        auto session = sessionFor(rank);
        if (!session) return std::unexpected(session.error());
        auto text = (*session)->console(command, commandTimeout);
        if (!text && !(*session)->alive()) {
          std::lock_guard lock(mutex_);
          sessions_.erase(rank);
          job_.setHeldByGdb(rank, false);
        }
        return text;
      }();
      const int finished = ++done;
      std::lock_guard lock(resultsMutex);
      results.emplace(rank, std::move(out));
      if (progress) progress(finished, static_cast<int>(targets.size()));
    }
  };
  std::vector<std::thread> workers;
  const std::size_t n = std::min<std::size_t>(8, targets.size());
  for (std::size_t i = 0; i < n; ++i) workers.emplace_back(worker);
  for (auto& t : workers) t.join();
  return results;
}

std::map<int, Expected<void>> GdbPool::detach(const RankSet& ranks) {
  std::map<int, Expected<void>> results;
  std::lock_guard lock(mutex_);
  for (int rank : ranks) {
    auto it = sessions_.find(rank);
    if (it == sessions_.end()) continue;
    results.emplace(rank, it->second->detach(commandTimeout));
    sessions_.erase(it);  // ends gdb; a failed detach still releases on gdb's exit
    job_.setHeldByGdb(rank, false);
  }
  return results;
}

RankSet GdbPool::attached() const {
  std::lock_guard lock(mutex_);
  RankSet set;
  for (const auto& [rank, session] : sessions_) set.insert(rank);
  return set;
}

void GdbPool::closeAll() {
  std::map<int, std::unique_ptr<gdbmi::Session>> sessions;
  {
    std::lock_guard lock(mutex_);
    sessions.swap(sessions_);
  }
  for (auto& [rank, session] : sessions) job_.setHeldByGdb(rank, false);
  sessions.clear();  // each destructor detaches and ends its gdb
}

}  // namespace mpidbg::core
