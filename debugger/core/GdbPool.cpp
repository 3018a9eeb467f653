#include "debugger/core/GdbPool.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

#include "ccs/proto/GdbServerProtocol.hpp"
#include "debugger/core/GdbFrameScript.hpp"
#include "debugger/core/RankRouter.hpp"
#include "debugger/gdbmi/Session.hpp"
#include "debugger/gdbmi/Value.hpp"

namespace mpidbg::core {

namespace {
/// Appended to the Error of a rank whose gdb died.
constexpr std::string_view kFreshGdbNote = " (a fresh gdb attaches on the next command)";

/// True for gdb's line-stepping commands (`next`, `step`, `until` without a
/// location, their abbreviations, with or without a count), which gdb runs
/// in the innermost frame whatever frame is selected.
bool isLineStep(std::string_view command) {
  while (!command.empty() && command.front() == ' ') command.remove_prefix(1);
  const std::string_view word = command.substr(0, command.find(' '));
  const std::string_view rest = word.size() < command.size() ? command.substr(word.size()) : std::string_view{};
  const bool onlyCount = rest.find_first_not_of(" 0123456789") == std::string_view::npos;
  if (word == "until" || word == "u") return rest.find_first_not_of(' ') == std::string_view::npos;
  return (word == "next" || word == "n" || word == "step" || word == "s") && onlyCount;
}

/// Runs the line step `command` from the frame gdb has selected, as a user
/// who sees that frame means it: when it is not the innermost (gdb landed
/// in the application above the runtime's and MPI's frames), first
/// `finish`es the frame below it, so that the step starts in the selected
/// function; the output of both is returned.
Expected<std::string> stepFromSelectedFrame(gdbmi::Session& session, const std::string& command,
                                            std::chrono::milliseconds timeout) {
  std::string text;
  auto frame = session.command("-stack-info-frame", timeout);
  const gdbmi::Value* selected = frame && !frame->isError() ? frame->results.get("frame") : nullptr;
  const gdbmi::Value* levelValue = selected ? selected->get("level") : nullptr;
  const std::string* level = levelValue ? levelValue->asString() : nullptr;
  if (level && *level != "0") {
    const int below = std::stoi(*level) - 1;
    if (auto chosen = session.command("-stack-select-frame " + std::to_string(below), timeout);
        !chosen || chosen->isError())
      return session.consoleUntilStopped(command, timeout, timeout);
    auto finished = session.consoleUntilStopped("finish", timeout, timeout);
    if (!finished) return finished;
    text = std::move(*finished);
    // Interrupted before the frame returned: the step is not made.
    if (text.find(gdbmi::Session::kInterruptedNote) != std::string::npos) return text;
  }
  auto stepped = session.consoleUntilStopped(command, timeout, timeout);
  if (!stepped) return stepped;
  return text + *stepped;
}
}  // namespace

GdbPool::GdbPool(Job& job) : job_(job) {}

void GdbPool::dropDead(int rank) {
  std::lock_guard lock(mutex_);
  sessions_.erase(rank);
  job_.setHeldByGdb(rank, false);
}

GdbPool::~GdbPool() { closeAll(); }

Expected<gdbmi::Session*> GdbPool::sessionFor(int rank) {
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(rank);
    if (it != sessions_.end()) {
      if (it->second->alive()) return it->second.get();
      // gdb died since the last command: say so once, whatever the timing of
      // its death; the next use attaches a fresh gdb.
      Error gone = it->second->exitReason();
      sessions_.erase(it);
      job_.setHeldByGdb(rank, false);
      gone.message += kFreshGdbNote;
      return std::unexpected(std::move(gone));
    }
  }
  const auto info = job_.rank(rank);
  // A rank gdb cannot attach to, said as every request to ranks says it
  // (RankRouter::refusal). Held by gdb is what this pool is for, and a rank
  // without a runtime is a process gdb attaches to like any other.
  if (!info) return std::unexpected(RankRouter::refusedError(rank, RankRouter::refusal(RankReach::NotRegistered, {})));
  std::unique_ptr<gdbmi::Session> kept;  // a gdb release() detached
  {
    std::lock_guard lock(mutex_);
    if (auto it = released_.find(rank); it != released_.end()) {
      kept = std::move(it->second);
      released_.erase(it);
    }
  }
  if (RankRouter::reachOf(*info) == RankReach::Ended)
    return std::unexpected(RankRouter::refusedError(rank, RankRouter::refusal(RankReach::Ended, *info)));
  if (kept && kept->alive()) {
    if (auto attached = attachLocal(*kept, *info); !attached) return std::unexpected(attached.error());
    (void)kept->console(kSelectUserFrameCommand, commandTimeout);
    std::lock_guard lock(mutex_);
    auto* raw = kept.get();
    sessions_[rank] = std::move(kept);
    return raw;
  }
  auto remote = isRemote(*info);
  if (!remote) return std::unexpected(remote.error());
  gdbmi::SessionOptions options;
  options.gdbPath = gdbPath;
  auto session = gdbmi::Session::start(options);
  if (!session) return std::unexpected(session.error());
  // Lands gdb in the application's frame after every stop and folds the
  // runtime's frames (GdbFrameScript.hpp). A gdb without Python works on,
  // at frame 0 as plain gdb would be.
  const bool hasScript = (*session)->console(gdbFrameScriptCommand(), commandTimeout).has_value();
  if (*remote) {
    if (auto attached = attachRemote(**session, *info); !attached) {
      job_.setHeldByGdb(rank, false);
      return std::unexpected(attached.error());
    }
  } else if (auto attached = attachLocal(**session, *info); !attached) {
    return std::unexpected(attached.error());
  }
  // The attach stop may come before the script's stop hook sees it.
  if (hasScript) (void)(*session)->console(kSelectUserFrameCommand, commandTimeout);
  std::lock_guard lock(mutex_);
  if (*remote) remote_.insert(rank);
  auto* raw = session->get();
  sessions_[rank] = std::move(*session);
  return raw;
}

Expected<void> GdbPool::attachLocal(gdbmi::Session& session, const RankInfo& info) {
  // Mark the rank held before attaching: its CCS thread stops with it.
  job_.setHeldByGdb(info.rank, true);
  if (auto attached = session.attach(info.pid, attachTimeout); !attached) {
    job_.setHeldByGdb(info.rank, false);
    return fail("gdb could not attach to rank " + std::to_string(info.rank) + " (pid " +
                std::to_string(info.pid) + "): " + attached.error().message);
  }
  return {};
}

Expected<bool> GdbPool::isRemote(const RankInfo& info) {
  const char* value = std::getenv("MPIDBG_GDB_REMOTE");
  const std::string_view mode = value && *value ? value : "auto";
  if (mode == "always") return true;
  if (mode == "never") return false;
  if (mode != "auto")
    return fail("bad MPIDBG_GDB_REMOTE '" + std::string(mode) + "' (expected auto, always or never)");
  return !isThisHost(info.host);
}

Expected<void> GdbPool::attachRemote(gdbmi::Session& session, const RankInfo& info) {
  const std::string who = "rank " + std::to_string(info.rank) + " (pid " + std::to_string(info.pid) +
                          ") on host " + info.host;
  if (!rankCall) return fail("gdb could not attach to " + who + ": no connection to its runtime");
  ccs::proto::GdbServerRequest request;
  request.connectTimeoutMs = static_cast<std::uint32_t>(attachTimeout.count());
  const std::string data = ccs::proto::encode(request);
  // The runtime answers once gdbserver listens (at most about 10 s).
  auto bytes = rankCall(info, ccs::proto::kGdbServerHandler,
                        std::vector<std::uint8_t>(data.begin(), data.end()), attachTimeout);
  if (!bytes)
    return fail("cannot start gdbserver for " + who + ": its runtime did not answer: " + bytes.error().message);
  auto reply = ccs::proto::decodeGdbServerReply(
      std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  if (!reply) return fail("cannot start gdbserver for " + who + ": " + reply.error().message);
  if (!reply->error.empty()) return fail("cannot start gdbserver for " + who + ": " + reply->error);
  // A wildcard-bound runtime leaves the host to us: where its CCS server is.
  const std::string host = reply->host.empty() ? info.endpoint.host : reply->host;
  // From here the rank may stop at any moment: its CCS thread goes with it.
  job_.setHeldByGdb(info.rank, true);
  const std::string through = " through gdbserver at " + host + ":" + std::to_string(reply->port);
  if (auto connected = session.connectRemote(host, reply->port, attachTimeout); !connected)
    return fail("gdb could not attach to " + who + through + ": " + connected.error().message);
  if (auto attached = session.attach(reply->pid, attachTimeout); !attached)
    return fail("gdb could not attach to " + who + through + ": " + attached.error().message);
  return {};
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
        // An execution command (continue, next ...) returns with the stop.
        auto text = isLineStep(command) ? stepFromSelectedFrame(**session, command, commandTimeout)
                                        : (*session)->consoleUntilStopped(command, commandTimeout, commandTimeout);
        if (!text && (!(*session)->alive() || (*session)->targetRunning())) {
          // Dead, or its rank would not stop: ending gdb lets the rank run.
          dropDead(rank);
          text.error().message += kFreshGdbNote;
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
    if (released_.erase(rank)) {  // already detached: only its gdb ends
      results.emplace(rank, Expected<void>{});
      continue;
    }
    auto it = sessions_.find(rank);
    if (it == sessions_.end()) continue;
    results.emplace(rank, it->second->detach(commandTimeout));
    sessions_.erase(it);  // ends gdb; a failed detach still releases on gdb's exit
    job_.setHeldByGdb(rank, false);
  }
  return results;
}

void GdbPool::release(const RankSet& ranks) {
  std::lock_guard lock(mutex_);
  for (int rank : ranks) {
    auto it = sessions_.find(rank);
    if (it == sessions_.end()) continue;
    std::unique_ptr<gdbmi::Session> session = std::move(it->second);
    sessions_.erase(it);
    const bool detached = session->alive() && session->detach(commandTimeout).has_value();
    if (detached && !remote_.count(rank)) released_[rank] = std::move(session);
    session.reset();  // otherwise gdb ends here, and the rank runs on with it
    job_.setHeldByGdb(rank, false);
  }
}

namespace {

/// Runs `job(rank)` for every rank of `ranks` on up to 8 threads and collects
/// the results by rank; `progress(done, total)` after each, under a lock.
template <typename T, typename Job>
std::map<int, T> forEachRank(const RankSet& ranks, const Job& job,
                             const std::function<void(int, int)>& progress) {
  const std::vector<int> targets = ranks.toVector();
  std::map<int, T> results;
  std::mutex resultsMutex;
  std::atomic<std::size_t> next{0};
  int done = 0;
  auto worker = [&] {
    for (std::size_t i = next++; i < targets.size(); i = next++) {
      T out = job(targets[i]);
      std::lock_guard lock(resultsMutex);
      results.emplace(targets[i], std::move(out));
      ++done;
      if (progress) progress(done, static_cast<int>(targets.size()));
    }
  };
  std::vector<std::thread> workers;
  const std::size_t n = std::min<std::size_t>(8, targets.size());
  for (std::size_t i = 0; i < n; ++i) workers.emplace_back(worker);
  for (auto& t : workers) t.join();
  return results;
}

}  // namespace

std::map<int, Expected<bool>> GdbPool::attach(const RankSet& ranks,
                                              const std::function<void(int, int)>& progress) {
  return forEachRank<Expected<bool>>(
      ranks,
      [this](int rank) -> Expected<bool> {
        {
          std::lock_guard lock(mutex_);
          auto it = sessions_.find(rank);
          if (it != sessions_.end()) {
            if (it->second->alive()) return false;
            sessions_.erase(it);  // an explicit attach replaces a dead gdb
            job_.setHeldByGdb(rank, false);
          }
        }
        auto session = sessionFor(rank);
        if (!session) return std::unexpected(session.error());
        return true;
      },
      progress);
}

std::map<int, Expected<gdbmi::Reply>> GdbPool::mi(const RankSet& ranks, const std::string& miCommand,
                                                  const std::function<void(int, int)>& progress) {
  return forEachRank<Expected<gdbmi::Reply>>(
      ranks,
      [this, &miCommand](int rank) -> Expected<gdbmi::Reply> {
        auto session = sessionFor(rank);
        if (!session) return std::unexpected(session.error());
        auto reply = (*session)->command(miCommand, commandTimeout);
        if (!(*session)->alive()) {
          // gdb is gone (killed, crashed, or ended by the command itself).
          dropDead(rank);
          if (!reply) reply.error().message += kFreshGdbNote;
        }
        return reply;
      },
      progress);
}

RankSet GdbPool::attached() const {
  std::lock_guard lock(mutex_);
  RankSet set;
  for (const auto& [rank, session] : sessions_) set.insert(rank);
  return set;
}

void GdbPool::closeAll() {
  std::map<int, std::unique_ptr<gdbmi::Session>> sessions, released;
  {
    std::lock_guard lock(mutex_);
    sessions.swap(sessions_);
    released.swap(released_);
  }
  for (auto& [rank, session] : sessions) job_.setHeldByGdb(rank, false);
  sessions.clear();  // each destructor detaches and ends its gdb
  released.clear();
}

}  // namespace mpidbg::core
