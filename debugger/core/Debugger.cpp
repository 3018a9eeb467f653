#include "debugger/core/Debugger.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "mpidbg/Text.hpp"


namespace mpidbg::core {

namespace proto = ccs::proto;

Debugger::Debugger(std::function<void(const std::string&)> notify)
    : notify_(std::move(notify)), gdb_(std::make_unique<GdbPool>(job_)) {
  job_.setNotifier(notify_);
  // Remote ranks: gdb asks the rank's runtime to start a gdbserver.
  gdb_->rankCall = [this](const RankInfo& rank, std::string_view handler,
                          const std::vector<std::uint8_t>& data,
                          std::chrono::milliseconds timeout) -> Expected<std::vector<std::uint8_t>> {
    if (!channels_) return fail("no job");
    return channels_->call(rank, handler, data, timeout);
  };
}

Debugger::~Debugger() { kill(); }

Expected<void> Debugger::launch(const LaunchOptions& options, const Progress& progress,
                                const Cancelled& cancelled) {
  if (launcher_) return fail("a job is already running; 'kill' it first");
  struct stat st{};
  if (::stat(options.runtimePath.c_str(), &st) != 0)
    return fail("runtime library not found at " + options.runtimePath +
                " (build it, or pass --runtime PATH)");
  auto dir = SessionDir::create();
  if (!dir) return std::unexpected(dir.error());
  sessionDir_ = std::move(*dir);
  auto hub = EventHub::start("127.0.0.1", sessionDir_->key(), job_, notify_);
  if (!hub) return std::unexpected(hub.error());
  hub_ = std::move(*hub);

  std::string preload = options.runtimePath;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing)
    preload += std::string(":") + existing;
  std::vector<std::pair<std::string, std::string>> env = {
      {"LD_PRELOAD", preload},
      {"MPIDBG_FRONTEND", hub_->endpoint().toString()},
      {"MPIDBG_KEY_FILE", sessionDir_->keyFile()},
      {"MPIDBG_STOP_AT_INIT", options.stopAtInit ? "1" : "0"},
      {"MPIDBG_CCS_SECURITY", options.plainCcs ? "plain" : "tls"},
  };
  channels_ = std::make_unique<RankChannels>(
      options.plainCcs ? ccs::Security{ccs::SecurityMode::Plain, {}, "mpidbg-session"}
                       : ccs::Security{ccs::SecurityMode::Tls, sessionDir_->key(), "mpidbg-session"});
  auto launcher = Launcher::start(options.argv, env);
  if (!launcher) return std::unexpected(launcher.error());
  launcher_ = std::move(*launcher);
  hub_->setLauncher(launcher_.get());

  int lastShown = -1;
  const bool complete = job_.waitUntil(
      [&] {
        const int size = job_.size();
        const int registered = job_.registered();
        if (progress && registered != lastShown) {
          progress(registered, size);
          lastShown = registered;
        }
        return (size > 0 && registered == size) || job_.launcherStatus().has_value();
      },
      options.registerTimeout, cancelled);

  const int size = job_.size();
  const int registered = job_.registered();
  if (complete && size > 0 && registered == size) return {};
  std::string why;
  if (auto status = job_.launcherStatus()) {
    why = "the job ended before " +
          (registered == 0 ? std::string("any rank registered")
                           : "all ranks registered (" + std::to_string(registered) + " of " +
                                 std::to_string(size) + ")") +
          ": launcher " + status->describe();
    if (registered == 0)
      why += " (is the program an MPI program? does it call MPI_Init?)";
  } else if (cancelled && cancelled()) {
    why = "launch interrupted";
  } else {
    why = "timed out after " + std::to_string(options.registerTimeout.count() / 1000) +
          " s waiting for ranks to register (" + std::to_string(registered) + " of " +
          (size > 0 ? std::to_string(size) : std::string("?")) + " registered)";
  }
  kill();
  return fail(why);
}

bool Debugger::jobAlive() {
  if (launcher_ == nullptr) return false;
  if (job_.launcherStatus()) return false;
  // Whichever thread reaps the launcher first records its end in the job.
  if (auto status = launcher_->poll()) {
    job_.launcherEnded(*status);
    return false;
  }
  return true;
}

Expected<RankSet> Debugger::ranks(std::string_view text) const {
  if (!launcher_) return fail("no job (start one with: mpidbg -- mpiexec -n 4 ./app)");
  const std::string_view trimmed = trim(text);
  if (trimmed.starts_with("$equiv")) {
    // $equiv[N]: class N of the last `where` or `equiv`.
    const std::string_view rest = trimmed.substr(6);
    std::size_t n = 0;
    bool ok = rest.size() > 2 && rest.front() == '[' && rest.back() == ']';
    for (std::size_t i = 1; ok && i + 1 < rest.size(); ++i) {
      ok = rest[i] >= '0' && rest[i] <= '9' && n < 100000;
      n = n * 10 + static_cast<std::size_t>(rest[i] - '0');
    }
    if (!ok) return fail("'" + std::string(trimmed) + "' is not $equiv[N] (N = 1, 2, ... as `equiv` lists them)");
    if (equivalenceClasses.empty()) return fail("no equivalence classes yet: run 'where' or 'equiv' first");
    if (n == 0 || n > equivalenceClasses.size())
      return fail("there is no $equiv[" + std::to_string(n) + "]: the last 'where'/'equiv' found " +
                  std::to_string(equivalenceClasses.size()) + " class" +
                  (equivalenceClasses.size() == 1 ? "" : "es"));
    return equivalenceClasses[n - 1];
  }
  return RankSet::parse(text, job_.size());
}

Debugger::Gathered Debugger::gather(const std::vector<RankInfo>& targets, std::string_view handler,
                                    const std::vector<std::uint8_t>& data) {
  Gathered out;
  if (!channels_ || targets.empty()) return out;
  if (useTree && targets.size() > 1) {
    ccs::ForwardRequest request;
    request.deadline = requestTimeout;
    request.fanOut = treeFanOut;
    request.inner.pe = ccs::kBroadcastPe;
    request.inner.handler = std::string(handler);
    request.inner.data = data;
    for (const auto& info : targets)  // sorted by rank: the lowest is the gateway
      request.table.push_back(ccs::PeerEntry{info.rank, info.endpoint.host, info.endpoint.port});
    auto reply = channels_->forward(targets.front(), request);
    if (reply && !reply->error) {
      out.payload = std::move(reply->payload);
      for (const auto& m : reply->missing) out.missing[m.pe] = m.reason;
      return out;
    }
    notify_("forwarding tree failed (" + (reply ? *reply->error : reply.error().message) +
            "); asking each rank directly");
  }
  for (auto& [rank, reply] : channels_->query(targets, handler, data, requestTimeout)) {
    if (reply) out.byRank[rank] = std::move(*reply);
    else out.missing[rank] = reply.error().message;
  }
  return out;
}

namespace {

std::string_view textOf(const std::vector<std::uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

std::vector<RankView> Debugger::views(const RankSet& ranks) {
  std::vector<RankView> views;
  std::vector<RankInfo> reachable;
  for (auto& info : job_.snapshot()) {
    if (!ranks.empty() && !ranks.contains(info.rank)) continue;
    if (info.reachable()) reachable.push_back(info);
    views.push_back(RankView{std::move(info), std::nullopt, {}});
  }
  Gathered gathered = gather(reachable, proto::kStatusHandler, {});
  std::map<int, proto::RankStatus> statuses;
  std::map<int, std::string> bad;
  auto take = [&](std::string_view text, int from) {
    auto decoded = proto::decodeRankStatuses(text);
    if (!decoded) {
      bad[from] = "bad status reply: " + decoded.error().message;
      return;
    }
    for (auto& s : *decoded) statuses[s.rank] = std::move(s);
  };
  if (!gathered.payload.empty()) take(textOf(gathered.payload), -1);
  for (const auto& [rank, bytes] : gathered.byRank) take(textOf(bytes), rank);
  for (auto& view : views) {
    const int r = view.info.rank;
    if (auto it = statuses.find(r); it != statuses.end()) {
      view.status = std::move(it->second);
      continue;
    }
    if (!view.info.reachable()) continue;
    // The rank may have exited while we asked: prefer the job's record.
    if (auto fresh = job_.rank(r)) view.info = *fresh;
    if (auto m = gathered.missing.find(r); m != gathered.missing.end()) view.queryError = m->second;
    else if (auto b = bad.find(r); b != bad.end()) view.queryError = b->second;
    else if (auto all = bad.find(-1); all != bad.end()) view.queryError = all->second;
    else view.queryError = "no status in the reply";
  }
  return views;
}

std::map<int, std::vector<proto::CommState>> Debugger::collectiveStates() {
  std::vector<RankInfo> reachable;
  for (auto& info : job_.snapshot())
    if (info.reachable()) reachable.push_back(info);
  Gathered gathered = gather(reachable, proto::kCollectivesHandler, {});
  std::map<int, std::vector<proto::CommState>> out;
  auto take = [&](std::string_view text, int from) {
    auto states = proto::decodeCommStates(text);
    if (!states) {
      notify_((from >= 0 ? "rank " + std::to_string(from) : std::string("the tree")) +
              " sent a bad collectives reply: " + states.error().message);
      return;
    }
    for (auto& state : *states) {
      const int rank = state.worldRank >= 0 ? state.worldRank : from;
      if (rank >= 0) out[rank].push_back(std::move(state));
    }
  };
  if (!gathered.payload.empty()) take(textOf(gathered.payload), -1);
  for (const auto& [rank, bytes] : gathered.byRank) take(textOf(bytes), rank);
  return out;
}

std::map<int, std::string> Debugger::continueRanks(const RankSet& ranks) {
  std::map<int, std::string> problems;
  std::vector<RankInfo> targets;
  for (auto& info : job_.snapshot()) {
    if (!ranks.contains(info.rank)) continue;
    if (info.heldByGdb)
      problems[info.rank] = "is held by gdb (release it with: gdb detach " + std::to_string(info.rank) + ")";
    else if (info.ended())
      problems[info.rank] = "has " + info.describeEnd();
    else
      targets.push_back(info);
  }
  // Quote the stops seen so far: a breakpoint hit that crosses this
  // continue on the wire stays stopped (and its event is shown).
  proto::ContinueRequest request;
  for (const auto& info : targets) request.seen[info.rank] = info.lastStop;
  const std::string data = proto::encode(request);
  for (const auto& [rank, why] :
       gather(targets, proto::kContinueHandler, std::vector<std::uint8_t>(data.begin(), data.end())).missing)
    problems[rank] = "did not answer: " + why;
  return problems;
}

std::map<int, Debugger::ControlOutcome> Debugger::control(const RankSet& ranks,
                                                          std::string_view handler,
                                                          const std::string& data) {
  std::map<int, ControlOutcome> outcomes;
  std::vector<RankInfo> targets;
  for (auto& info : job_.snapshot()) {
    if (!ranks.contains(info.rank)) continue;
    if (info.heldByGdb)
      outcomes[info.rank] = {false, "is held by gdb (release it with: gdb detach " + std::to_string(info.rank) + ")"};
    else if (info.ended())
      outcomes[info.rank] = {false, "has " + info.describeEnd()};
    else
      targets.push_back(info);
  }
  Gathered gathered = gather(targets, handler, std::vector<std::uint8_t>(data.begin(), data.end()));
  auto take = [&](std::string_view text) {
    auto replies = proto::decodeControlReplies(text);
    if (!replies) return;
    for (const auto& r : *replies)
      if (r.rank >= 0) outcomes[r.rank] = {r.ok, r.message};
  };
  take(textOf(gathered.payload));
  for (const auto& [rank, bytes] : gathered.byRank) take(textOf(bytes));
  for (const auto& [rank, why] : gathered.missing) outcomes[rank] = {false, "did not answer: " + why};
  for (const auto& info : targets)
    if (!outcomes.count(info.rank)) outcomes[info.rank] = {false, "sent no reply"};
  return outcomes;
}

std::pair<std::string, std::map<int, std::string>> Debugger::collect(const RankSet& ranks,
                                                                     std::string_view handler) {
  std::vector<RankInfo> targets;
  for (auto& info : job_.snapshot())
    if (ranks.contains(info.rank) && info.reachable()) targets.push_back(info);
  Gathered gathered = gather(targets, handler, {});
  std::string text(textOf(gathered.payload));
  for (const auto& [rank, bytes] : gathered.byRank) text += std::string(textOf(bytes));
  return {std::move(text), std::move(gathered.missing)};
}

void Debugger::detach() {
  if (!launcher_) return;
  control(RankSet::all(job_.size()), proto::kDetachHandler, "");
  if (gdb_) gdb_->closeAll();
  job_.setKilling();  // channels closing now are not news
  hub_->setLauncher(nullptr);
  hub_.reset();  // closes every event channel: the ranks go quiet and run on
  launcher_->release();
  launcher_.reset();
  if (channels_) channels_->clear();
  breakpoints_.clear();
}

bool Debugger::waitForEvent(std::chrono::milliseconds timeout, std::chrono::milliseconds blockedAfter,
                            const Cancelled& cancelled) {
  const std::uint64_t before = job_.eventCount();
  return waitSettled(timeout, blockedAfter, [&] {
    return job_.eventCount() != before || (cancelled && cancelled());
  }) || job_.eventCount() != before;
}

bool Debugger::waitSettled(std::chrono::milliseconds timeout, std::chrono::milliseconds blockedAfter,
                           const Cancelled& cancelled) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (!jobAlive()) return true;
    const auto all = views();
    bool settled = !all.empty();
    for (const auto& v : all) settled = settled && isSettled(v, blockedAfter);
    if (settled) return true;
    if (cancelled && cancelled()) return false;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    job_.waitUntil([] { return false; }, std::chrono::milliseconds(200), cancelled);
  }
}

void Debugger::kill() {
  if (gdb_) gdb_->closeAll();
  if (launcher_) {
    job_.setKilling();
    hub_->setLauncher(nullptr);
    launcher_->terminate(std::chrono::milliseconds(2000));
    if (auto status = launcher_->poll()) job_.launcherEnded(*status);
    // Ranks live in process groups of their own (Hydra gives each one): end
    // any the launcher left behind.
    for (const auto& info : job_.snapshot())
      if (!info.ended() && info.pid > 0) ::kill(info.pid, SIGKILL);
    launcher_.reset();
  }
  if (channels_) channels_->clear();
  hub_.reset();
  sessionDir_.reset();
}

}  // namespace mpidbg::core
