// Execution control in a rank: the breakpoint table and the safe-point slow
// path (freeze and step live here too; the freeze --now signal, the futex
// waits and attach() are in FreezeSignal.cpp).
#include "Control.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <new>

#include "CallScope.hpp"
#include "Runtime.hpp"

namespace mpidbg::rt {

namespace cond = ccs::cond;
namespace proto = ccs::proto;

CommRecord gNoComm;
__thread ThreadCalls tCalls __attribute__((tls_model("initial-exec"))) = {0, &gNoComm, {0, -1, -1, nullptr}};

namespace {

cond::CallArgs::Predefined predefinedOf(std::uint64_t comm) noexcept {
  if (comm == commKey(MPI_COMM_WORLD)) return cond::CallArgs::Predefined::World;
  if (comm == commKey(MPI_COMM_SELF)) return cond::CallArgs::Predefined::Self;
  return cond::CallArgs::Predefined::None;
}

/// The call's arguments as conditions see them.
cond::CallArgs argsOf(Runtime& rt, const MpiCallRecord& call, std::int64_t count, int sendDest) noexcept {
  cond::CallArgs a;
  const cond::FunctionInfo* target = breakTargetOf(call.function);
  if (!target) return a;
  a.has = target->fields;
  using F = cond::Field;
  a.value[static_cast<std::size_t>(F::Rank)] = rt.rank();
  a.value[static_cast<std::size_t>(F::Size)] = rt.size();
  switch (call.peerRole) {
    case PeerRole::Dest: a.value[static_cast<std::size_t>(F::Dest)] = call.peer; break;
    case PeerRole::Source: a.value[static_cast<std::size_t>(F::Source)] = call.peer; break;
    case PeerRole::Root: a.value[static_cast<std::size_t>(F::Root)] = call.peer; break;
    case PeerRole::Target: a.value[static_cast<std::size_t>(F::Target)] = call.peer; break;
    case PeerRole::None: break;
  }
  if (call.function == MpiFunction::Sendrecv || call.function == MpiFunction::SendrecvReplace)
    a.value[static_cast<std::size_t>(F::Dest)] = wirePeer(sendDest);
  a.value[static_cast<std::size_t>(F::Tag)] = call.tag;
  a.value[static_cast<std::size_t>(F::Count)] = count;
  a.value[static_cast<std::size_t>(F::Comm)] = static_cast<std::int64_t>(call.comm);
  a.predefined = predefinedOf(call.comm);
  return a;
}

}  // namespace

std::string describeSafePoint(Runtime& rt, MpiFunction function, std::string_view entry,
                              const cond::CallArgs& args, std::uint64_t collCall) {
  if (function == MpiFunction::None) return "entry " + std::string(entry);
  std::string commName;
  if (args.has & cond::bit(cond::Field::Comm))
    commName = rt.comms().nameOf(static_cast<std::uint64_t>(args.value[static_cast<std::size_t>(cond::Field::Comm)]));
  std::string out = cond::describeCall(functionName(function), args, commName);
  if (collCall > 0) out += " call #" + std::to_string(collCall);
  return out;
}

cond::CallArgs argsOfRecord(Runtime& rt, const MpiCallRecord& call) noexcept {
  cond::CallArgs a = argsOf(rt, call, -1, 0);
  a.has &= static_cast<cond::FieldSet>(~cond::bit(cond::Field::Count));
  if (call.function == MpiFunction::Sendrecv || call.function == MpiFunction::SendrecvReplace)
    a.has &= static_cast<cond::FieldSet>(~cond::bit(cond::Field::Dest));
  return a;
}

void reachMpiSafePoint(Runtime& rt, const MpiCallRecord& call, std::int64_t count, int sendDest) noexcept {
  Control::instance().reach(rt, call.function, {}, argsOf(rt, call, count, sendDest), call.collCall);
}

Control& Control::instance() noexcept {
  // Never destroyed: MPI threads, the helper thread and the freeze signal
  // handler may use it until the process is gone.
  alignas(Control) static unsigned char storage[sizeof(Control)];
  static Control* const control = new (storage) Control();
  return *control;
}

proto::ControlReply Control::set(const proto::Breakpoint& b) {
  std::lock_guard lock(mutex_);
  proto::ControlReply reply = breakpoints_.set(b);
  if (reply.ok) rearmLocked();
  return reply;
}

proto::ControlReply Control::remove(std::int32_t id) {
  std::lock_guard lock(mutex_);
  proto::ControlReply reply = breakpoints_.remove(id);
  if (reply.ok) rearmLocked();
  return reply;
}

proto::ControlReply Control::enable(std::int32_t id, bool enabled) {
  std::lock_guard lock(mutex_);
  proto::ControlReply reply = breakpoints_.enable(id, enabled);
  if (reply.ok) rearmLocked();
  return reply;
}

std::vector<proto::Breakpoint> Control::list() const {
  std::lock_guard lock(mutex_);
  return breakpoints_.list();
}

void Control::step(std::uint64_t count) noexcept {
  std::lock_guard lock(mutex_);
  freezePending_ = false;
  stepRemaining_ = count;
  nowRequested_.store(false, std::memory_order_relaxed);
  rearmLocked();
  release();
}

void Control::resume() noexcept {
  std::lock_guard lock(mutex_);
  freezePending_ = false;
  stepRemaining_ = 0;
  nowRequested_.store(false, std::memory_order_relaxed);
  rearmLocked();
  release();
}

void Control::resumeSeen(std::uint32_t seenStop) noexcept {
  std::lock_guard lock(mutex_);
  freezePending_ = false;
  stepRemaining_ = 0;
  nowRequested_.store(false, std::memory_order_relaxed);
  rearmLocked();
  const std::uint32_t held = hold_.load(std::memory_order_acquire);
  if (held != 0 && stopKind_.load(std::memory_order_relaxed) == StopKind::Breakpoint && held > seenStop) return;
  release();
}

void Control::detach() noexcept {
  std::lock_guard lock(mutex_);
  breakpoints_.clear();
  freezePending_ = false;
  stepRemaining_ = 0;
  nowRequested_.store(false, std::memory_order_relaxed);
  rearmLocked();
  release();
}

void Control::rearmLocked() noexcept {
  unsigned int bits = breakpoints_.armsSafePoints() ? kArmBreakpoints : 0u;
  if (freezePending_) bits |= kArmFreeze;
  if (stepRemaining_ > 0) bits |= kArmStep;
  // Set the new bits first, then clear the others, keeping kArmHold as is
  // (the freeze signal handler sets it without the mutex).
  changeArmed(bits, bits | kArmHold);
}

std::string Control::stopText(Runtime&, std::uint32_t* number) const {
  std::lock_guard lock(mutex_);
  if (number) *number = hold_.load(std::memory_order_acquire);
  if (!stopped()) return {};
  if (stopText_.empty() && stopKind_.load() == StopKind::Now) return "frozen (--now)";
  return stopText_;
}

void Control::reach(Runtime& rt, MpiFunction function, std::string_view entry, const cond::CallArgs& args,
                    std::uint64_t collCall) noexcept {
  try {
    SignalBlock block(freezeSignal_);
    std::unique_lock lock(mutex_, std::defer_lock);
    lockWhenRunning(lock);
    const proto::Breakpoint* fired = breakpoints_.reach(
        function, entry, args, [&rt](std::uint64_t comm) { return rt.comms().nameOf(comm); });
    StopKind kind = StopKind::None;
    if (fired) kind = StopKind::Breakpoint;
    else if (freezePending_) kind = StopKind::Freeze;
    else if (stepRemaining_ > 0 && --stepRemaining_ == 0) kind = StopKind::Step;
    if (kind == StopKind::None) return;
    freezePending_ = false;
    stepRemaining_ = 0;
    rearmLocked();

    proto::Event event;
    event.where = describeSafePoint(rt, function, entry, args, collCall);
    std::string text;
    if (kind == StopKind::Breakpoint) {
      event.kind = proto::Event::Kind::Breakpoint;
      event.id = fired->id;
      text = "breakpoint " + std::to_string(fired->id) + " at " + event.where;
    } else {
      event.kind = proto::Event::Kind::Stopped;
      event.text = kind == StopKind::Freeze ? "freeze" : "step";
      text = (kind == StopKind::Freeze ? "frozen at " : "stepped to ") + event.where;
    }
    std::string charmNotice;
    if (charmNotices_.load(std::memory_order_relaxed) && kind != StopKind::Step)
      charmNotice = kind == StopKind::Breakpoint ? "BP " + fired->target : "Freeze " + std::to_string(::getpid());
    stopHere(rt, kind, std::move(text), std::move(event), lock, block, charmNotice);
  } catch (...) {
    // Out of memory while formatting: run on rather than stop silently.
  }
}

void Control::stopHere(Runtime& rt, StopKind kind, std::string text, proto::Event event,
                       std::unique_lock<std::mutex>& lock, SignalBlock& block, const std::string& charmNotice) noexcept {
  const std::uint32_t generation = holdLocked(kind, std::move(text));
  lock.unlock();
  if (generation == 0) {
    // freeze --now stopped the rank first: hold with it, without an event.
    waitWhileHeld(hold_.load(std::memory_order_acquire));
    return;
  }
  event.stop = generation;
  rt.events().send(rt.rank(), event);
  if (!charmNotice.empty()) {
    std::fprintf(stdout, "CPD: %d %s\n", static_cast<int>(rt.rank()), charmNotice.c_str());
    std::fflush(stdout);
  }
  block.release();
  waitWhileHeld(generation);
}

void Control::lockWhenRunning(std::unique_lock<std::mutex>& lock) const noexcept {
  for (;;) {
    // A thread reaching a safe point while the rank is stopped waits too.
    if (const std::uint32_t held = hold_.load(std::memory_order_acquire)) {
      waitWhileHeld(held);
      continue;
    }
    lock.lock();
    if (!stopped()) break;
    lock.unlock();
  }
}

void Control::violation(Runtime& rt, const std::string& text) noexcept {
  try {
    SignalBlock block(freezeSignal_);
    std::unique_lock lock(mutex_, std::defer_lock);
    lockWhenRunning(lock);
    const proto::Breakpoint* fired = breakpoints_.violation();
    if (!fired) return;
    proto::Event event;
    event.kind = proto::Event::Kind::Breakpoint;
    event.id = fired->id;
    event.where = "thread-level violation: " + text;
    stopHere(rt, StopKind::Breakpoint,
             "thread-level violation (breakpoint " + std::to_string(fired->id) + "): " + text, std::move(event),
             lock, block);
  } catch (...) {
    // Out of memory while formatting: run on rather than stop silently.
  }
}

void Control::divergence(Runtime& rt, const std::string& call, const std::string& text) noexcept {
  try {
    SignalBlock block(freezeSignal_);
    std::unique_lock lock(mutex_, std::defer_lock);
    lockWhenRunning(lock);
    proto::Event event;
    event.kind = proto::Event::Kind::Stopped;
    event.where = call;
    event.text = "replay diverged: " + text;
    stopHere(rt, StopKind::Freeze, "replay diverged in " + call + ": " + text, std::move(event), lock, block);
  } catch (...) {
    // Out of memory while formatting: run on (the report went to stderr).
  }
}

Runtime* gFastRuntime = nullptr;

}  // namespace mpidbg::rt
