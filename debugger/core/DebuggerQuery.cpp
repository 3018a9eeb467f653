// The Debugger asks and tells the ranks: requests gathered through the
// forwarding tree or rank by rank, status views, collective states, continue
// and the other control requests, and the waits for a stop or a settled job.
#include <algorithm>
#include <string>
#include <vector>

#include "debugger/core/Debugger.hpp"

namespace mpidbg::core {

namespace proto = ccs::proto;

Debugger::Gathered Debugger::gather(const std::vector<RankInfo>& targets, std::string_view handler,
                                    const std::vector<std::uint8_t>& data) {
  Gathered out;
  if (!channels_ || targets.empty()) return out;
  std::string treeFailure;
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
    treeFailure = reply ? *reply->error : reply.error().message;
  }
  for (auto& [rank, reply] : channels_->query(targets, handler, data, requestTimeout)) {
    if (reply) out.byRank[rank] = std::move(*reply);
    else out.missing[rank] = reply.error().message;
  }
  // A gateway that does not answer directly either has ended or is ending
  // (the job finishing): its own entry in `missing` says so, and the tree's
  // failure is no news. Otherwise the tree failed on its own: said.
  if (!treeFailure.empty() && !out.missing.count(targets.front().rank))
    notify_("forwarding tree failed (" + treeFailure + "); asked each rank directly");
  return out;
}

namespace {

std::string_view textOf(const std::vector<std::uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

std::vector<RankView> Debugger::views(const RankSet& ranks) {
  refreshProcesses();
  std::vector<RankView> views;
  std::vector<RankInfo> reachable;
  for (auto& info : job_.snapshot()) {
    if (!ranks.empty() && !ranks.contains(info.rank)) continue;
    if (info.reachable()) reachable.push_back(info);
    views.push_back(RankView{std::move(info), std::nullopt, {}, std::nullopt});
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
    for (auto& s : *decoded) {
      if (s.stopNumber != 0) job_.sawStop(s.rank, s.stopNumber);
      statuses[s.rank] = std::move(s);
    }
  };
  if (!gathered.payload.empty()) take(textOf(gathered.payload), -1);
  for (const auto& [rank, bytes] : gathered.byRank) take(textOf(bytes), rank);
  for (auto& view : views) {
    const int r = view.info.rank;
    if (auto it = statuses.find(r); it != statuses.end()) {
      view.status = std::move(it->second);
      if (view.status->call) {
        std::lock_guard lock(resumedMutex_);
        if (auto resumed = resumedAt_.find(r); resumed != resumedAt_.end()) {
          const auto since = std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::steady_clock::now() - resumed->second);
          view.status->call->elapsedUs =
              std::min<std::uint64_t>(view.status->call->elapsedUs, static_cast<std::uint64_t>(since.count()));
        }
      }
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
      problems[info.rank] = info.endedPhrase();
    else if (info.noRuntime)
      problems[info.rank] = std::string(kNoRuntime);
    else
      targets.push_back(info);
  }
  // Quote the stops seen so far: a breakpoint hit that crosses this
  // continue on the wire stays stopped (and its event is shown).
  proto::ContinueRequest request;
  for (const auto& info : targets) request.seen[info.rank] = info.lastStop;
  const std::string data = proto::encode(request);
  const auto missing =
      gather(targets, proto::kContinueHandler, std::vector<std::uint8_t>(data.begin(), data.end())).missing;
  for (const auto& info : targets)
    if (!missing.count(info.rank)) job_.continued(info.rank, info.lastStop);
  noteResumed(targets, missing);
  // A rank that ended during the exchange is no longer stopped: nothing is
  // left to continue, and its end is reported as an event of its own.
  const auto ended = endedMeanwhile(missing);
  for (const auto& [rank, why] : missing)
    if (!ended.count(rank)) problems[rank] = "did not answer: " + why;
  return problems;
}

void Debugger::noteResumed(const std::vector<RankInfo>& ranks, const std::map<int, std::string>& missing) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(resumedMutex_);
  for (const auto& info : ranks)
    if (!missing.count(info.rank)) resumedAt_[info.rank] = now;
}

std::map<int, std::string> Debugger::endedMeanwhile(const std::map<int, std::string>& missing) {
  std::map<int, std::string> ended;
  if (missing.empty()) return ended;
  auto look = [&] {
    ended.clear();
    for (const auto& [rank, why] : missing)
      if (auto info = job_.rank(rank); info && info->ended()) ended[rank] = info->endedPhrase();
    return ended.size() == missing.size();
  };
  // waitUntil asks `look` last after its last wait, so `ended` is current.
  job_.waitUntil(look, std::chrono::milliseconds(1000), {});
  return ended;
}

std::map<int, Debugger::ControlOutcome> Debugger::control(const RankSet& ranks,
                                                          std::string_view handler,
                                                          const std::string& data) {
  std::map<int, ControlOutcome> outcomes;
  std::vector<RankInfo> targets;
  for (auto& info : job_.snapshot()) {
    if (!ranks.contains(info.rank)) continue;
    if (info.heldByGdb)
      outcomes[info.rank] = {false, "held by gdb", true};
    else if (info.ended())
      outcomes[info.rank] = {false, info.endedPhrase()};
    else if (info.noRuntime)
      outcomes[info.rank] = {false, std::string(kNoRuntime)};
    else
      targets.push_back(info);
  }
  Gathered gathered = gather(targets, handler, std::vector<std::uint8_t>(data.begin(), data.end()));
  if (handler == proto::kStepHandler) noteResumed(targets, gathered.missing);
  auto take = [&](std::string_view text) {
    auto replies = proto::decodeControlReplies(text);
    if (!replies) return;
    for (const auto& r : *replies)
      if (r.rank >= 0) outcomes[r.rank] = {r.ok, r.message};
  };
  take(textOf(gathered.payload));
  for (const auto& [rank, bytes] : gathered.byRank) take(textOf(bytes));
  const auto ended = endedMeanwhile(gathered.missing);
  for (const auto& [rank, why] : gathered.missing)
    outcomes[rank] = {false, ended.count(rank) ? ended.at(rank) : "did not answer: " + why};
  for (const auto& info : targets)
    if (!outcomes.count(info.rank)) outcomes[info.rank] = {false, "sent no reply"};
  return outcomes;
}

std::map<int, Expected<std::vector<std::uint8_t>>> Debugger::queryEach(const RankSet& ranks,
                                                                      std::string_view handler,
                                                                      const std::vector<std::uint8_t>& data) {
  std::map<int, Expected<std::vector<std::uint8_t>>> out;
  std::vector<RankInfo> targets;
  std::map<int, RankInfo> known;
  for (auto& info : job_.snapshot()) known[info.rank] = info;
  for (int rank : ranks) {
    auto it = known.find(rank);
    if (it == known.end()) out.emplace(rank, fail("rank " + std::to_string(rank) + " has not registered"));
    else if (it->second.heldByGdb)
      out.emplace(rank, fail("rank " + std::to_string(rank) + " is held by gdb (its runtime cannot answer; "
                             "'gdb detach' first)"));
    else if (it->second.noRuntime && !it->second.ended())
      out.emplace(rank, fail("rank " + std::to_string(rank) + " " + std::string(kNoRuntime)));
    else if (!it->second.reachable())
      out.emplace(rank, fail("rank " + std::to_string(rank) + " " + it->second.endedPhrase()));
    else targets.push_back(it->second);
  }
  if (!channels_) {
    for (const auto& info : targets) out.emplace(info.rank, fail("no job"));
    return out;
  }
  for (auto& [rank, reply] : channels_->query(targets, handler, data, requestTimeout)) out.emplace(rank, std::move(reply));
  return out;
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

bool Debugger::waitForEvent(std::chrono::milliseconds timeout, std::chrono::milliseconds blockedAfter,
                            const Cancelled& cancelled) {
  const std::uint64_t before = job_.eventCount();
  return waitSettled(timeout, blockedAfter, [&] {
    return job_.eventCount() != before || (cancelled && cancelled());
  }) || job_.eventCount() != before;
}

namespace {

/// The bounds of waitSettled's pause between two looks at the ranks: not a
/// busy loop while a rank is about to count as blocked, and no longer than a
/// second, so a change no event reports (a launcher that ends on its own) is
/// still seen within one.
constexpr std::chrono::milliseconds kSettleLookMin{50};
constexpr std::chrono::milliseconds kSettleLookMax{1000};
/// How long waitSettled waits for the events of stops a status showed first.
constexpr std::chrono::milliseconds kStopEventGrace{2000};

}  // namespace

bool Debugger::waitSettled(std::chrono::milliseconds timeout, std::chrono::milliseconds blockedAfter,
                           const Cancelled& cancelled) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (!jobAlive()) return true;
    const auto all = views();
    const std::uint64_t seen = job_.changeCount();
    bool settled = !all.empty();
    for (const auto& v : all) settled = settled && isSettled(v, blockedAfter);
    if (settled) {
      // Every rank ended: the launcher follows (srun takes up to a second
      // after its last task); wait a little for it, so its exit code is known.
      bool allEnded = true;
      for (const auto& info : job_.snapshot()) allEnded = allEnded && info.ended();
      if (!allEnded) {
        // A status can show a stop before its event (sent right after the
        // stop) has come through the event channel: give those events a
        // moment, so that the stop's notice comes before wait returns.
        std::map<int, std::uint32_t> stops;
        for (const auto& v : all)
          if (v.status && v.status->stopNumber != 0) stops[v.info.rank] = v.status->stopNumber;
        if (!stops.empty()) {
          const auto until = std::min(deadline, std::chrono::steady_clock::now() + kStopEventGrace);
          while (!job_.stopEventsArrived(stops) && std::chrono::steady_clock::now() < until &&
                 !(cancelled && cancelled()))
            job_.waitUntil([&] { return job_.stopEventsArrived(stops); },
                           std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()),
                           cancelled);
        }
        return true;
      }
      const auto grace = std::min(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(5));
      while (jobAlive() && std::chrono::steady_clock::now() < grace && !(cancelled && cancelled()))
        job_.waitUntil([] { return false; }, std::chrono::milliseconds(50), cancelled);
      return true;
    }
    if (cancelled && cancelled()) return false;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    // Look again when the job could first be settled, or at once on a
    // change (a stop, an exit), within [kSettleLookMin, kSettleLookMax].
    const auto pause = std::clamp(untilSettled(all, blockedAfter), kSettleLookMin, kSettleLookMax);
    job_.waitUntil([&] { return job_.changeCount() != seen; }, pause, cancelled);
  }
}

}  // namespace mpidbg::core
