// The Debugger asks and tells the ranks through its RankRouter: status views,
// collective states, continue and the other control requests, and the waits
// for a stop or a settled job.
#include <algorithm>
#include <string>
#include <vector>

#include "debugger/core/Debugger.hpp"
#include "debugger/core/RankRequests.hpp"

namespace mpidbg::core {

namespace proto = ccs::proto;

std::vector<RankView> Debugger::views(const RankSet& ranks) {
  session_.refreshProcesses();
  const RankSet asked = ranks.empty() ? RankSet::all(session_.job().size()) : ranks;
  auto answers = session_.router().ask<proto::RankStatus>(asked, StatusRequest{}, /*waitForEnds=*/false);
  std::vector<RankView> views;
  for (auto& [r, info] : answers.sort.infos) {
    RankView view{std::move(info), std::nullopt, {}, std::nullopt};
    auto reply = answers.replies.find(r);
    if (answers.sort.refused.count(r) || reply == answers.replies.end()) {
      views.push_back(std::move(view));
      continue;
    }
    if (reply->second) {
      view.status = std::move(*reply->second);
      if (view.status->stopNumber != 0) session_.job().sawStop(r, view.status->stopNumber);
      if (view.status->call) {
        std::lock_guard lock(resumedMutex_);
        if (auto resumed = resumedAt_.find(r); resumed != resumedAt_.end()) {
          const auto since = std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::steady_clock::now() - resumed->second);
          view.status->call->elapsedUs =
              std::min<std::uint64_t>(view.status->call->elapsedUs, static_cast<std::uint64_t>(since.count()));
        }
      }
    } else {
      // The rank may have exited while we asked: prefer the job's record.
      if (auto fresh = session_.job().rank(r)) view.info = *fresh;
      auto silent = answers.silent.find(r);
      view.queryError = silent != answers.silent.end() ? silent->second : reply->second.error().message;
    }
    views.push_back(std::move(view));
  }
  return views;
}

std::map<int, std::vector<proto::CommState>> Debugger::collectiveStates() {
  auto answers = session_.router().ask<std::vector<proto::CommState>>(RankSet::all(session_.job().size()),
                                                                      CollectivesRequest{}, /*waitForEnds=*/false);
  for (const auto& [from, why] : answers.unreadable)
    session_.notify((from >= 0 ? "rank " + std::to_string(from) : std::string("the tree")) +
            " sent a bad collectives reply: " + why);
  std::map<int, std::vector<proto::CommState>> out;
  for (auto& [rank, states] : answers.replies)
    if (states && !states->empty()) out[rank] = std::move(*states);
  return out;
}

std::map<int, std::string> Debugger::continueRanks(const RankSet& ranks) {
  const RankSort sorted = session_.router().sort(ranks);
  std::map<int, std::string> problems;
  for (const auto& [rank, reach] : sorted.refused)
    if (reach != RankReach::NotRegistered) problems[rank] = sorted.why.at(rank);
  const std::vector<RankInfo>& targets = sorted.reachable;
  // Quote the stops seen so far: a breakpoint hit that crosses this
  // continue on the wire stays stopped (and its event is shown). The reply
  // is empty: only who did not answer counts.
  proto::ContinueRequest request;
  for (const auto& info : targets) request.seen[info.rank] = info.lastStop;
  const std::string data = proto::encode(request);
  const auto missing =
      session_.router()
          .backend()
          .gather(targets, proto::kContinueHandler, std::vector<std::uint8_t>(data.begin(), data.end()))
          .missing;
  for (const auto& info : targets)
    if (!missing.count(info.rank)) session_.job().continued(info.rank, info.lastStop);
  noteResumed(targets, missing);
  // A rank that ended during the exchange is no longer stopped: nothing is
  // left to continue, and its end is reported as an event of its own.
  const auto ended = session_.router().backend().endedMeanwhile(missing);
  for (const auto& [rank, why] : missing)
    if (!ended.count(rank)) problems[rank] = RankRouter::notAnswered(why);
  return problems;
}

void Debugger::noteResumed(const std::vector<RankInfo>& ranks, const std::map<int, std::string>& missing) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(resumedMutex_);
  for (const auto& info : ranks)
    if (!missing.count(info.rank)) resumedAt_[info.rank] = now;
}

ControlOutcomes Debugger::control(const RankSet& ranks, std::string_view handler, const std::string& data) {
  auto answers = session_.router().ask<proto::ControlReply>(ranks, ControlRequest{handler, data});
  if (handler == proto::kStepHandler) noteResumed(answers.sort.reachable, answers.silent);
  ControlOutcomes outcomes;
  for (auto& [rank, reply] : answers.replies) {
    const auto refused = answers.sort.refused.find(rank);
    if (refused != answers.sort.refused.end() && refused->second == RankReach::NotRegistered) continue;
    if (refused != answers.sort.refused.end() && refused->second == RankReach::HeldByGdb)
      outcomes[rank] = {false, std::string(RankRouter::kHeldByGdb), true};
    else if (reply)
      outcomes[rank] = {reply->ok, reply->message};
    else
      outcomes[rank] = {false, reply.error().message};
  }
  return outcomes;
}

std::map<int, Expected<std::vector<std::uint8_t>>> Debugger::queryEach(const RankSet& ranks,
                                                                      std::string_view handler,
                                                                      const std::vector<std::uint8_t>& data) {
  return session_.router().askEach(ranks, handler, data);
}

std::pair<std::string, std::map<int, std::string>> Debugger::collect(const RankSet& ranks,
                                                                     std::string_view handler) {
  return session_.router().collect(ranks, handler);
}

bool Debugger::waitForEvent(std::chrono::milliseconds timeout, std::chrono::milliseconds blockedAfter,
                            const Cancelled& cancelled) {
  const std::uint64_t before = session_.job().eventCount();
  return waitSettled(timeout, blockedAfter, [&] {
    return session_.job().eventCount() != before || (cancelled && cancelled());
  }) || session_.job().eventCount() != before;
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
    if (!session_.jobAlive()) return true;
    const auto all = views();
    const std::uint64_t seen = session_.job().changeCount();
    bool settled = !all.empty();
    for (const auto& v : all) settled = settled && isSettled(v, blockedAfter);
    if (settled) {
      // Every rank ended: the launcher follows (srun takes up to a second
      // after its last task); wait a little for it, so its exit code is known.
      bool allEnded = true;
      for (const auto& info : session_.job().snapshot()) allEnded = allEnded && info.ended();
      if (!allEnded) {
        // A status can show a stop before its event (sent right after the
        // stop) has come through the event channel: give those events a
        // moment, so that the stop's notice comes before wait returns.
        std::map<int, std::uint32_t> stops;
        for (const auto& v : all)
          if (v.status && v.status->stopNumber != 0) stops[v.info.rank] = v.status->stopNumber;
        if (!stops.empty()) {
          const auto until = std::min(deadline, std::chrono::steady_clock::now() + kStopEventGrace);
          while (!session_.job().stopEventsArrived(stops) && std::chrono::steady_clock::now() < until &&
                 !(cancelled && cancelled()))
            session_.job().waitUntil([&] { return session_.job().stopEventsArrived(stops); },
                           std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()),
                           cancelled);
        }
        return true;
      }
      const auto grace = std::min(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(5));
      while (session_.jobAlive() && std::chrono::steady_clock::now() < grace && !(cancelled && cancelled()))
        session_.job().waitUntil([] { return false; }, std::chrono::milliseconds(50), cancelled);
      return true;
    }
    if (cancelled && cancelled()) return false;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    // Look again when the job could first be settled, or at once on a
    // change (a stop, an exit), within [kSettleLookMin, kSettleLookMax].
    const auto pause = std::clamp(untilSettled(all, blockedAfter), kSettleLookMin, kSettleLookMax);
    session_.job().waitUntil([&] { return session_.job().changeCount() != seen; }, pause, cancelled);
  }
}

}  // namespace mpidbg::core
