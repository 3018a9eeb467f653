// CharmJob's control of the PEs: their states (debug/converse/status, with
// the stops the output announced), the entry methods, breakpoints, freeze,
// continue, step, and the wait for the next stop.
#include "debugger/core/charm/CharmJob.hpp"

#include <algorithm>
#include <charconv>
#include <thread>
#include <utility>

#include "ccs/proto/CharmDebug.hpp"
#include "ccs/proto/ListProtocol.hpp"
#include "ccs/proto/PupFmt.hpp"
#include "debugger/core/charm/CharmJobDetail.hpp"

namespace mpidbg::core::charm {

namespace pupfmt = ccs::pupfmt;
namespace proto = ccs::proto;
using namespace std::chrono_literals;
using detail::intOf;
using detail::readWholeList;

namespace {

/// The request of debug/charm/bp/set and bp/remove for entry `index`.
std::vector<std::uint8_t> entryIndexRequest(int index) { return proto::encodeBinary(proto::CharmEntryIndex{index}); }

}  // namespace

RankSort CharmJob::sortPes(const RankSet& pes) {
  RankSort sorted = router_->sort(pes);
  // Every PE of the program is a process of CharmPes: one it does not list
  // is not the program's.
  for (auto& [pe, reach] : sorted.refused)
    if (reach == RankReach::NotRegistered)
      sorted.why[pe] = "no PE " + std::to_string(pe) + " (the program has " + std::to_string(pes_) + ")";
  return sorted;
}

std::pair<std::map<int, std::vector<std::uint8_t>>, std::map<int, std::string>> CharmJob::askPes(
    const RankSort& sorted, std::string_view handler, const std::vector<std::uint8_t>& data) {
  std::map<int, std::vector<std::uint8_t>> replies;
  std::map<int, std::string> failed = sorted.why;
  for (auto& [pe, reply] : backend_->each(sorted.reachable, handler, data)) {
    if (reply) replies.emplace(pe, std::move(*reply));
    else failed.emplace(pe, reply.error().message);
  }
  return {std::move(replies), std::move(failed)};
}

std::map<int, std::string> CharmJob::postPes(const RankSort& sorted, std::string_view handler) {
  std::map<int, std::string> failed = sorted.why;
  for (auto& [pe, sent] : backend_->post(sorted.reachable, handler, {}))
    if (!sent) failed.emplace(pe, sent.error().message);
  return failed;
}

const CharmBreakpoint* CharmJob::breakpointAt(int pe, std::string_view entryName) const {
  for (const auto& [id, bp] : breakpoints_)
    if (bp.entry.name == entryName && bp.pes.contains(pe)) return &bp;
  return nullptr;
}

std::vector<PeView> CharmJob::status(const RankSet& pes) {
  const RankSet asked = orAll(pes);
  const RankSort sorted = sortPes(asked);
  auto [replies, failed] = askPes(sorted, proto::kCharmStatusHandler);
  std::vector<PeView> out;
  for (int pe : asked) {
    PeView view;
    view.pe = pe;
    if (auto it = sorted.infos.find(pe); it != sorted.infos.end()) view.pid = it->second.pid;
    if (auto refused = sorted.refused.find(pe); refused != sorted.refused.end()) {
      view.state = refused->second == RankReach::Ended       ? PeState::Ended
                   : refused->second == RankReach::HeldByGdb ? PeState::HeldByGdb
                                                             : PeState::Unknown;
      if (view.state == PeState::Unknown) view.error = sorted.why.at(pe);
      out.push_back(view);
      continue;
    }
    auto reply = replies.find(pe);
    if (reply == replies.end()) {
      view.state = PeState::Unknown;
      view.error = failed[pe] + " (Charm++ answers between entry methods: a PE busy in one answers when it returns)";
      out.push_back(view);
      continue;
    }
    auto decoded = proto::decodeBinary<proto::CharmPeStatus>(reply->second);
    if (!decoded) {
      view.state = PeState::Unknown;
      view.error = decoded.error().message;
      out.push_back(view);
      continue;
    }
    const bool running = decoded->running != 0;
    std::lock_guard lock(mutex_);
    PeNotes& note = notes_[pe];
    if (running) {
      // Continued by someone else (another client): what the output said is stale.
      note.frozen = false;
      note.breakpoint.clear();
      view.state = PeState::Running;
    } else {
      view.state = !note.abort.empty() ? PeState::Aborted : !note.breakpoint.empty() ? PeState::AtBreakpoint : PeState::Frozen;
      view.entry = !note.abort.empty() ? note.abort : note.breakpoint;
    }
    out.push_back(view);
  }
  // A frozen PE the output said nothing about (attached, or a stop before
  // the line arrived) may be at a breakpoint: Charm++ then keeps the message
  // it stopped at first in the PE's queue, named "Breakpoint", with its entry
  // (CpdList_localQ in src/ck-core/debug-charm.C).
  RankSet frozen;
  for (const auto& view : out)
    if (view.state == PeState::Frozen) frozen.insert(view.pe);
  proto::ListItemsRequest request;
  request.lo = 0;
  request.hiPlus1 = 1;
  request.path = "converse/localqueue";
  const auto queues =
      askPes(sortPes(frozen), proto::kListItemsFmtHandler, proto::encodeListItemsRequest(request)).first;
  for (auto& view : out) {
    auto reply = queues.find(view.pe);
    if (view.state != PeState::Frozen || reply == queues.end()) continue;
    auto items = proto::decodeListItems(reply->second);
    if (!items || items->empty() || pupfmt::fieldValue(items->front(), "name") != "Breakpoint") continue;
    int ep = -1;
    for (const auto& [path, value] : pupfmt::flatten(items->front(), ""))
      if (path == "charmMsg.ep") ep = intOf(value);
    auto all = entries();
    if (!all) continue;
    for (const auto& e : *all)
      if (e.index == ep) {
        view.state = PeState::AtBreakpoint;
        view.entry = e.name;
        std::lock_guard lock(mutex_);
        notes_[view.pe].breakpoint = e.name;
      }
  }
  // A PE let go by resume() and stopped since: a stop the next wait returns
  // at (charmrun hands a PE its requests in order, so a status asked after a
  // continue sees the continued PE).
  std::lock_guard lock(mutex_);
  for (const auto& view : out)
    if (awaiting_.contains(view.pe) && isStopped(view.state)) {
      awaiting_.erase(view.pe);
      stopPending_ = true;
    }
  return out;
}

Expected<std::vector<CharmEntry>> CharmJob::entries() {
  if (entries_) return *entries_;
  auto items = readWholeList(*link_, 0, "charm/entries");
  if (!items) return std::unexpected(items.error());
  auto chares = readWholeList(*link_, 0, "charm/chares");
  // Charm++ registers its own modules first and the program's main module
  // last: the chares from the last mainchare on are the program's (those of
  // a library module without a mainchare, registered before, count as
  // Charm++'s). debug_Chare is the debugger's own.
  int firstProgramChare = 0;
  if (auto mains = readWholeList(*link_, 0, "charm/mains"); mains && !mains->empty())
    firstProgramChare = intOf(pupfmt::fieldValue(mains->back(), "chareIdx"), 0);
  std::vector<CharmEntry> out;
  for (const auto& item : *items) {
    CharmEntry e;
    e.index = intOf(pupfmt::fieldValue(item, "index"));
    e.name = pupfmt::fieldValue(item, "name");
    const int chare = intOf(pupfmt::fieldValue(item, "chareIdx"));
    if (chares && chare >= 0 && static_cast<std::size_t>(chare) < chares->size())
      e.chare = pupfmt::fieldValue((*chares)[static_cast<std::size_t>(chare)], "name");
    e.system = intOf(pupfmt::fieldValue(item, "inCharm"), 0) != 0 || chare < firstProgramChare || e.chare == "debug_Chare";
    out.push_back(std::move(e));
  }
  entries_ = out;
  return out;
}

bool CharmJob::servesMpiProgram() {
  auto all = entries();
  return all && std::any_of(all->begin(), all->end(), [](const CharmEntry& e) { return e.chare == "MPI"; });
}

Expected<std::vector<CharmEntry>> CharmJob::findEntries(std::string_view name) {
  auto all = entries();
  if (!all) return all;
  std::vector<CharmEntry> exact, loose;
  int index = -1;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), index);
  const bool number = ec == std::errc() && end == name.data() + name.size();
  for (const auto& e : *all) {
    if (number) {
      if (e.index == index) exact.push_back(e);
      continue;
    }
    if (e.qualified() == name || e.name == name) exact.push_back(e);
    else if (e.shortName() == name || e.name.substr(0, e.name.find('(')) == name) loose.push_back(e);
  }
  return exact.empty() ? loose : exact;
}

std::pair<CharmBreakpoint, std::map<int, std::string>> CharmJob::setBreakpoint(const CharmEntry& entry,
                                                                               const RankSet& pes) {
  CharmBreakpoint bp;
  bp.entry = entry;
  auto [replies, failed] = askPes(sortPes(orAll(pes)), proto::kCharmBreakSetHandler, entryIndexRequest(entry.index));
  for (const auto& [pe, reply] : replies) {
    auto outcome = proto::decodeBinary<proto::CharmBreakReply>(reply);
    if (!outcome) failed[pe] = outcome.error().message;
    else if (!outcome->done()) failed[pe] = "Charm++ refused the breakpoint (already set there?)";
    else bp.pes.insert(pe);
  }
  if (!bp.pes.empty()) {
    std::lock_guard lock(mutex_);
    bp.id = nextBreakpoint_++;
    breakpoints_[bp.id] = bp;
  }
  return {bp, std::move(failed)};
}

Expected<std::map<int, std::string>> CharmJob::removeBreakpoint(int id) {
  CharmBreakpoint bp;
  {
    std::lock_guard lock(mutex_);
    auto it = breakpoints_.find(id);
    if (it == breakpoints_.end()) return fail("no breakpoint " + std::to_string(id));
    bp = it->second;
    breakpoints_.erase(it);
  }
  return askPes(sortPes(bp.pes), proto::kCharmBreakRemoveHandler, entryIndexRequest(bp.entry.index)).second;
}

std::map<int, std::string> CharmJob::freeze(const RankSet& pes, std::chrono::milliseconds settle) {
  {
    // A freeze asked for is not a stop for the next wait to report.
    std::lock_guard lock(mutex_);
    for (int pe : orAll(pes)) awaiting_.erase(pe);
  }
  auto failed = postPes(sortPes(orAll(pes)), proto::kCharmFreezeHandler);
  RankSet sent;
  for (int pe : orAll(pes))
    if (!failed.contains(pe)) sent.insert(pe);
  // Frozen once debug/converse/status says so (a PE inside an entry method
  // freezes when it returns to its scheduler).
  const auto deadline = std::chrono::steady_clock::now() + settle;
  RankSet waiting = sent;
  while (!waiting.empty()) {
    for (const auto& view : status(waiting))
      if (isStopped(view.state)) waiting.erase(view.pe);
    if (waiting.empty() || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(50ms);
  }
  for (int pe : waiting)
    failed[pe] = "asked to freeze, not frozen yet (busy in an entry method: it freezes when the method returns)";
  return failed;
}

std::map<int, std::string> CharmJob::resume(const RankSet& pes) {
  {
    // Stops seen before this continue are no news for the next wait.
    std::lock_guard lock(mutex_);
    stopPending_ = false;
  }
  const RankSort sorted = sortPes(orAll(pes));
  {
    std::lock_guard lock(mutex_);
    for (const auto& info : sorted.reachable) {
      PeNotes& note = notes_[info.rank];
      note.frozen = false;
      note.breakpoint.clear();
      note.abort.clear();
      awaiting_.insert(info.rank);
    }
  }
  auto failed = postPes(sorted, proto::kCharmContinueHandler);
  std::lock_guard lock(mutex_);
  for (const auto& [pe, why] : failed) awaiting_.erase(pe);
  return failed;
}

std::map<int, std::string> CharmJob::step(const RankSet& pes) {
  std::map<int, std::string> failed;
  RankSet toStep;
  for (const auto& view : status(orAll(pes))) {
    if (view.state == PeState::Running) {
      failed[view.pe] = "running: freeze it first (step delivers one message to a frozen PE)";
      continue;
    }
    if (view.state != PeState::Frozen && view.state != PeState::AtBreakpoint) {
      failed[view.pe] = view.error.empty() ? std::string(peStateName(view.state)) : view.error;
      continue;
    }
    toStep.insert(view.pe);
  }
  {
    std::lock_guard lock(mutex_);
    for (int pe : toStep) notes_[pe].breakpoint.clear();  // the stopped-at message is delivered; the PE stays frozen
  }
  failed.merge(postPes(sortPes(toStep), proto::kCharmNextHandler));
  return failed;
}

CharmJob::WaitOutcome CharmJob::waitForEvent(std::chrono::milliseconds timeout, const Cancelled& cancelled) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto lastPoll = std::chrono::steady_clock::now() - 1s;
  auto takeStop = [&] {
    std::lock_guard lock(mutex_);
    return std::exchange(stopPending_, false);
  };
  for (;;) {
    if (takeStop()) return WaitOutcome::Stopped;
    if (!alive()) return WaitOutcome::Ended;
    const auto now = std::chrono::steady_clock::now();
    if (now - lastPoll >= 300ms) {
      lastPoll = now;
      bool allStopped = true;
      for (const auto& view : status())  // notes stops of PEs let go (stopPending_)
        if (view.state == PeState::Running || view.state == PeState::Unknown) allStopped = false;
      if (takeStop()) return WaitOutcome::Stopped;
      if (allStopped) return WaitOutcome::Settled;
    }
    if (cancelled && cancelled()) return WaitOutcome::Cancelled;
    if (now > deadline) return WaitOutcome::TimedOut;
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, 100ms);
  }
}

}  // namespace mpidbg::core::charm
