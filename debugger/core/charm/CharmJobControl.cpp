// CharmJob's control of the PEs: their states (debug/converse/status, with
// the stops the output announced), the entry methods, breakpoints, freeze,
// continue, step, and the wait for the next stop.
#include "debugger/core/charm/CharmJob.hpp"

#include <algorithm>
#include <charconv>
#include <span>
#include <thread>
#include <utility>

#include "ccs/transport/Frame.hpp"
#include "ccs/proto/ListProtocol.hpp"
#include "ccs/proto/PupFmt.hpp"
#include "debugger/core/charm/CharmJobDetail.hpp"

namespace mpidbg::core::charm {

namespace pupfmt = ccs::pupfmt;
namespace proto = ccs::proto;
using namespace std::chrono_literals;
using detail::intOf;
using detail::readWholeList;

/// How long status waits for one PE: a PE busy in an entry method answers
/// only when it returns, and every PE is asked in turn.
constexpr std::chrono::milliseconds kStatusTimeout{1500};

namespace {

/// The request of debug/charm/bp/set and bp/remove: the entry index as a C
/// string (CpdSetBreakPoint sscanf's it).
std::vector<std::uint8_t> entryIndexRequest(int index) {
  const std::string text = std::to_string(index);
  std::vector<std::uint8_t> data(text.begin(), text.end());
  data.push_back(0);
  return data;
}

}  // namespace

std::optional<CharmJob::Unreachable> CharmJob::unreachable(int pe) {
  if (pe < 0 || pe >= pes_)
    return Unreachable{PeState::Unknown, "no PE " + std::to_string(pe) + " (the program has " + std::to_string(pes_) + ")"};
  if (launcher_ && launcher_->poll()) return Unreachable{PeState::Ended, "ended (charmrun ended)"};
  // The same sorting, and the same words for a held PE, as an mpidbg rank's
  // (RankRouter); a PE's end is "ended" (charmrun reports no exit per PE).
  for (const auto& info : session_.job().snapshot())
    if (info.rank == pe) {
      switch (const RankReach reach = RankRouter::reachOf(info)) {
        case RankReach::Ended: return Unreachable{PeState::Ended, "ended"};
        case RankReach::HeldByGdb: return Unreachable{PeState::HeldByGdb, RankRouter::refusal(reach, info)};
        default: break;
      }
    }
  return std::nullopt;
}

template <typename Ask>
std::map<int, std::string> CharmJob::onEachPe(const RankSet& pes, Ask ask) {
  std::map<int, std::string> failed;
  for (int pe : pes) {
    if (const auto no = unreachable(pe)) failed[pe] = no->why;
    else if (std::string why = ask(pe); !why.empty()) failed[pe] = std::move(why);
  }
  return failed;
}

const CharmBreakpoint* CharmJob::breakpointAt(int pe, std::string_view entryName) const {
  for (const auto& [id, bp] : breakpoints_)
    if (bp.entry.name == entryName && bp.pes.contains(pe)) return &bp;
  return nullptr;
}

std::vector<PeView> CharmJob::status(const RankSet& pes) {
  std::vector<PeView> out;
  std::map<int, pid_t> pids;
  for (const auto& info : session_.job().snapshot()) pids[info.rank] = info.pid;
  for (int pe : orAll(pes)) {
    PeView view;
    view.pe = pe;
    view.pid = pids.count(pe) ? pids[pe] : 0;
    if (const auto no = unreachable(pe)) {
      view.state = no->state;
      if (no->state == PeState::Unknown) view.error = no->why;
      out.push_back(view);
      continue;
    }
    auto reply = link_->call("debug/converse/status", pe, {}, kStatusTimeout);
    if (!reply || reply->size() != 8) {
      view.state = PeState::Unknown;
      view.error = reply ? "a debug/converse/status reply of " + std::to_string(reply->size()) + " bytes"
                         : reply.error().message +
                               " (Charm++ answers between entry methods: a PE busy in one answers when it returns)";
      out.push_back(view);
      continue;
    }
    const bool running = ccs::readBigEndian32(std::span<const std::uint8_t>(*reply).subspan(4)) != 0;
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
  for (auto& view : out) {
    if (view.state != PeState::Frozen) continue;
    proto::ListItemsRequest request;
    request.lo = 0;
    request.hiPlus1 = 1;
    request.path = "converse/localqueue";
    auto reply = link_->call(proto::kListItemsFmtHandler, view.pe, proto::encodeListItemsRequest(request));
    if (!reply) continue;
    auto items = proto::decodeListItems(*reply);
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
  const std::vector<std::uint8_t> request = entryIndexRequest(entry.index);
  auto failed = onEachPe(orAll(pes), [&](int pe) -> std::string {
    auto reply = link_->call("debug/charm/bp/set", pe, request);
    // The reply is a native int: ~0 when set, 0 when refused.
    if (!reply) return reply.error().message;
    if (reply->size() != 4 || (*reply)[0] == 0) return "Charm++ refused the breakpoint (already set there?)";
    bp.pes.insert(pe);
    return {};
  });
  if (!bp.pes.empty()) {
    std::lock_guard lock(mutex_);
    bp.id = nextBreakpoint_++;
    breakpoints_[bp.id] = bp;
  }
  return {bp, failed};
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
  const std::vector<std::uint8_t> request = entryIndexRequest(bp.entry.index);
  return onEachPe(bp.pes, [&](int pe) -> std::string {
    auto reply = link_->call("debug/charm/bp/remove", pe, request);
    return reply ? std::string() : reply.error().message;
  });
}

std::map<int, std::string> CharmJob::freeze(const RankSet& pes, std::chrono::milliseconds settle) {
  RankSet sent;
  {
    // A freeze asked for is not a stop for the next wait to report.
    std::lock_guard lock(mutex_);
    for (int pe : orAll(pes)) awaiting_.erase(pe);
  }
  auto failed = onEachPe(orAll(pes), [&](int pe) -> std::string {
    if (auto ok = link_->send("debug/converse/freeze", pe); !ok) return ok.error().message;
    sent.insert(pe);
    return {};
  });
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
  return onEachPe(orAll(pes), [&](int pe) -> std::string {
    {
      std::lock_guard lock(mutex_);
      PeNotes& note = notes_[pe];
      note.frozen = false;
      note.breakpoint.clear();
      note.abort.clear();
      awaiting_.insert(pe);
    }
    if (auto ok = link_->send("debug/charm/continue", pe); !ok) {
      std::lock_guard lock(mutex_);
      awaiting_.erase(pe);
      return ok.error().message;
    }
    return {};
  });
}

std::map<int, std::string> CharmJob::step(const RankSet& pes) {
  std::map<int, std::string> failed;
  for (const auto& view : status(orAll(pes))) {
    if (view.state == PeState::Running) {
      failed[view.pe] = "running: freeze it first (step delivers one message to a frozen PE)";
      continue;
    }
    if (view.state != PeState::Frozen && view.state != PeState::AtBreakpoint) {
      failed[view.pe] = view.error.empty() ? std::string(peStateName(view.state)) : view.error;
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      notes_[view.pe].breakpoint.clear();  // the stopped-at message is delivered; the PE stays frozen
    }
    if (auto ok = link_->send("debug/charm/next", view.pe); !ok) failed[view.pe] = ok.error().message;
  }
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
