#include "debugger/core/Job.hpp"

#include "ccs/proto/ThreadLevelProtocol.hpp"
#include "debugger/core/StackQuery.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>

namespace mpidbg::core {

bool isThisHost(std::string_view host) {
  if (host.empty() || host == "localhost") return true;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return true;  // nothing to compare with: assume this host
  auto shortName = [](std::string_view h) { return h.substr(0, h.find('.')); };
  return shortName(host) == shortName(name);
}

std::string RankInfo::describeEnd() const {
  switch (life) {
    case RankLife::Live: return {};
    case RankLife::Finalized: return "finalized";
    case RankLife::Exited: return "exited with code " + std::to_string(exitCode);
    case RankLife::Signaled:
      return "exited with signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
    case RankLife::Aborted:
      return abortText.empty() ? "called MPI_Abort(errorcode=" + std::to_string(exitCode) + ")"
                               : "called " + abortText;
    case RankLife::Lost: return "lost (its process ended without reporting an exit status)";
    case RankLife::Killed: return "killed by mpidbg";
  }
  return {};
}

std::string RankInfo::endedPhrase() const {
  return (life == RankLife::Lost || life == RankLife::Killed ? "was " : "has ") + describeEnd();
}

void Job::setNotifier(Notifier notifier) {
  std::lock_guard lock(mutex_);
  notifier_ = std::move(notifier);
}

void Job::markChanged() {
  ++changes_;
  changed_.notify_all();
}

void Job::notify(const std::string& line) {
  if (notifier_) notifier_(line);
}

Expected<void> Job::addRank(const ccs::proto::Registration& r) {
  std::lock_guard lock(mutex_);
  if (r.size <= 0 || r.rank < 0 || r.rank >= r.size)
    return fail("registration with rank " + std::to_string(r.rank) + " of size " +
                std::to_string(r.size) + " is invalid");
  if (size_ != 0 && r.size != size_)
    return fail("rank " + std::to_string(r.rank) + " registered with job size " +
                std::to_string(r.size) + ", others said " + std::to_string(size_));
  if (ranks_.count(r.rank) != 0)
    return fail("rank " + std::to_string(r.rank) + " registered twice");
  size_ = r.size;
  RankInfo info;
  info.rank = r.rank;
  info.host = r.host;
  info.pid = r.pid;
  // Where the rank's server is bound; a wildcard bind (MPIDBG_CCS_BIND=0.0.0.0)
  // answers on loopback too.
  const bool wildcard = r.address.empty() || r.address == "0.0.0.0" || r.address == "::";
  info.endpoint = ccs::Endpoint{wildcard ? std::string("127.0.0.1") : r.address, r.port};
  info.mpiLibrary = r.mpiLibrary;
  info.node = r.node;
  info.pmixNamespace = r.pmixNamespace;
  info.pmixRank = r.pmixRank;
  info.pmixPublished = r.pmixPublished;
  info.threadLevel = r.threadLevel;
  ranks_[r.rank] = std::move(info);
  markChanged();
  return {};
}

Expected<void> Job::addProcess(int rank, int size, pid_t pid, const std::string& host, const std::string& node) {
  ccs::proto::Registration r;
  r.rank = rank;
  r.size = size;
  r.pid = static_cast<std::int32_t>(pid);
  r.host = host;
  if (auto added = addRank(r); !added) return added;
  std::lock_guard lock(mutex_);
  RankInfo& info = ranks_[rank];
  info.noRuntime = true;
  info.node = node;
  info.endpoint = ccs::Endpoint{};
  return {};
}

void Job::applyEvent(int rank, const ccs::proto::Event& event) {
  std::lock_guard lock(mutex_);
  auto it = ranks_.find(rank);
  if (it == ranks_.end()) return;
  RankInfo& info = it->second;
  using Kind = ccs::proto::Event::Kind;
  // The event of a stop that a continue already released (a status reply
  // showed the stop before its event came): the stop is over.
  if ((event.kind == Kind::Breakpoint || event.kind == Kind::Stopped) && event.stop != 0 &&
      event.stop <= info.releasedStop)
    return;
  if (event.kind == Kind::Notice) {  // words, no change of state
    notify("[" + std::to_string(rank) + "] mpidbg-rt: " + event.text);
    return;
  }
  switch (event.kind) {
    case Kind::Notice: break;
    case Kind::Finalized:
      if (info.life == RankLife::Live) info.life = RankLife::Finalized;
      break;
    case Kind::Exited:
      if (info.life == RankLife::Live || info.life == RankLife::Finalized) {
        info.life = RankLife::Exited;
        info.exitCode = event.code;
        if (event.code != 0) notify("[" + std::to_string(rank) + "] " + info.describeEnd());
      }
      break;
    case Kind::Signal:
      info.life = RankLife::Signaled;
      info.signal = event.signal;
      notify("[" + std::to_string(rank) + "] " + info.describeEnd());
      break;
    case Kind::Abort:
      info.life = RankLife::Aborted;
      info.exitCode = event.code;
      info.abortText = event.text;
      notify("[" + std::to_string(rank) + "] " + info.describeEnd());
      break;
    case Kind::Breakpoint:
      notify("[" + std::to_string(rank) + "] hit breakpoint " + std::to_string(event.id) + ": " +
             event.where);
      break;
    case Kind::Violation:
      // The text is the whole notice: "MPI_THREAD_FUNNELED violated: ...".
    {
      const ViolationStacks stacks = renderViolationStacks(event.stacks);
      std::string line = "[" + std::to_string(rank) + "] " + event.text;
      if (!stacks.text.empty()) line += "\n" + stacks.text;
      // The join with mpidbg check: the sites of both threads' calls. A
      // concurrent-collective finding needs two threads inside MPI at once
      // (the level the violation needs, event.code, is MULTIPLE or above),
      // not only a call from another thread.
      const bool concurrent = event.code >= ccs::proto::kThreadLevelMultiple;
      std::set<std::size_t> matched;
      if (findings_)
        for (const std::string& site : stacks.sites)
          if (!site.empty())
            for (std::size_t i : findings_->at(site, true))
              if ((concurrent || findings_->findings[i].category != "mpidbg-concurrent-collective") &&
                  matched.insert(i).second) {
                const StaticFinding& f = findings_->findings[i];
                line += "\n    predicted by mpidbg check at " + f.site() + " [" + f.category + "]";
                predicted_[i].insert(rank);
              }
      notify(line);
      break;
    }
    case Kind::Stopped:
      // The text says why ("freeze", "step"); a freeze --now's place already
      // ends with it: "application code (freeze --now)".
      notify("[" + std::to_string(rank) + "] stopped at " + event.where +
             (event.text.empty() || event.where.ends_with("(" + event.text + ")") ? std::string()
                                                                                 : " (" + event.text + ")"));
      break;
  }
  if (event.kind == Kind::Breakpoint || event.kind == Kind::Stopped) {
    ++events_;
    if (event.stop != 0) {
      info.lastStop = std::max(info.lastStop, event.stop);
      info.eventStop = std::max(info.eventStop, event.stop);
    }
  }
  markChanged();
}

void Job::sawStop(int rank, std::uint32_t stop) {
  std::lock_guard lock(mutex_);
  if (auto it = ranks_.find(rank); it != ranks_.end()) it->second.lastStop = std::max(it->second.lastStop, stop);
}

void Job::continued(int rank, std::uint32_t seen) {
  std::lock_guard lock(mutex_);
  if (auto it = ranks_.find(rank); it != ranks_.end())
    it->second.releasedStop = std::max(it->second.releasedStop, seen);
}

bool Job::stopEventsArrived(const std::map<int, std::uint32_t>& stops) const {
  std::lock_guard lock(mutex_);
  for (const auto& [rank, stop] : stops) {
    const auto it = ranks_.find(rank);
    if (it == ranks_.end() || it->second.ended()) continue;
    if (it->second.eventStop < stop && it->second.releasedStop < stop) return false;
  }
  return true;
}

std::uint64_t Job::eventCount() const {
  std::lock_guard lock(mutex_);
  return events_;
}

std::uint64_t Job::changeCount() const {
  std::lock_guard lock(mutex_);
  return changes_;
}

void Job::channelClosed(int rank) {
  std::lock_guard lock(mutex_);
  auto it = ranks_.find(rank);
  if (it == ranks_.end()) return;
  if (it->second.life == RankLife::Live || it->second.life == RankLife::Finalized) {
    it->second.life = killing_ ? RankLife::Killed : RankLife::Lost;
    if (!killing_) notify("[" + std::to_string(rank) + "] " + it->second.describeEnd());
  }
  markChanged();
}

void Job::setHeldByGdb(int rank, bool held) {
  std::lock_guard lock(mutex_);
  auto it = ranks_.find(rank);
  if (it != ranks_.end()) it->second.heldByGdb = held;
  markChanged();
}

void Job::setKilling() {
  std::lock_guard lock(mutex_);
  killing_ = true;
}

void Job::launcherEnded(const ExitStatus& status) {
  std::lock_guard lock(mutex_);
  launcherStatus_ = status;
  markChanged();
}

int Job::size() const {
  std::lock_guard lock(mutex_);
  return size_;
}

int Job::registered() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(ranks_.size());
}

std::vector<RankInfo> Job::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<RankInfo> out;
  for (const auto& [r, info] : ranks_) out.push_back(info);
  return out;
}

std::optional<RankInfo> Job::rank(int r) const {
  std::lock_guard lock(mutex_);
  auto it = ranks_.find(r);
  if (it == ranks_.end()) return std::nullopt;
  return it->second;
}

std::optional<ExitStatus> Job::launcherStatus() const {
  std::lock_guard lock(mutex_);
  return launcherStatus_;
}

bool Job::waitUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout,
                    const std::function<bool()>& cancelled) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    // Both callbacks may read the job: never call them with the lock held.
    if (done()) return true;
    if (cancelled && cancelled()) return false;
    std::unique_lock lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    changed_.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(100)));
  }
}

void Job::setStaticFindings(std::shared_ptr<const StaticFindings> findings) {
  std::lock_guard lock(mutex_);
  findings_ = std::move(findings);
  predicted_.clear();
}

std::shared_ptr<const StaticFindings> Job::staticFindings() const {
  std::lock_guard lock(mutex_);
  return findings_;
}

std::map<std::size_t, RankSet> Job::predictedViolations() const {
  std::lock_guard lock(mutex_);
  return predicted_;
}

}  // namespace mpidbg::core
