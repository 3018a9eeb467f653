// The breakpoint table of one rank (see BreakpointTable.hpp). No MPI.
#include "BreakpointTable.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace mpidbg::rt {

namespace cond = ccs::cond;
namespace proto = ccs::proto;

namespace {

proto::ControlReply breakOk() { return {true, {}}; }
proto::ControlReply breakError(std::string message) { return {false, std::move(message)}; }

/// The interposed function named like breakpoint target `info`; None when
/// the runtime does not interpose it.
MpiFunction functionOf(const cond::FunctionInfo& info) noexcept {
  for (std::size_t i = 1; i < kFunctionCount; ++i)
    if (breakTargetOf(static_cast<MpiFunction>(i)) == &info) return static_cast<MpiFunction>(i);
  return MpiFunction::None;
}

}  // namespace

const cond::FunctionInfo* breakTargetOf(MpiFunction f) noexcept {
  static const std::array<const cond::FunctionInfo*, kFunctionCount> table = [] {
    std::array<const cond::FunctionInfo*, kFunctionCount> t{};
    for (std::size_t i = 1; i < kFunctionCount; ++i) t[i] = cond::findFunction(functionName(static_cast<MpiFunction>(i)));
    return t;
  }();
  const auto index = static_cast<std::size_t>(f);
  return index < table.size() ? table[index] : nullptr;
}

proto::ControlReply BreakpointTable::set(const proto::Breakpoint& b) {
  Armed armed;
  armed.wire = b;
  armed.wire.hits = 0;
  std::string what;
  cond::FieldSet fields = cond::kAlways;
  if (b.kind == proto::BreakKind::Mpi) {
    const cond::FunctionInfo* info = cond::findFunction(b.target);
    if (!info) return breakError(cond::unknownFunction(b.target).message);
    armed.function = functionOf(*info);
    if (armed.function == MpiFunction::None)
      return breakError("internal error: the runtime does not interpose " + std::string(info->name));
    fields = info->fields;
    what = info->name;
  } else if (b.kind == proto::BreakKind::Violation) {
    if (!b.condition.empty()) return breakError("a violation breakpoint takes no condition");
    what = "violation";
  } else {
    what = "entry " + b.target;
  }
  if (!b.condition.empty()) {
    auto parsed = cond::Condition::parse(b.condition);
    if (!parsed) return breakError("bad condition '" + b.condition + "': " + parsed.error().message);
    if (auto valid = parsed->validateFor(fields, what); !valid) return breakError(valid.error().message);
    armed.condition = std::move(*parsed);
  }
  auto it = std::find_if(breakpoints_.begin(), breakpoints_.end(), [&](const Armed& a) { return a.wire.id >= b.id; });
  if (it != breakpoints_.end() && it->wire.id == b.id) {
    *it = std::move(armed);
  } else {
    if (breakpoints_.size() >= kMaxBreakpoints)
      return breakError("too many breakpoints (at most " + std::to_string(kMaxBreakpoints) + " per rank)");
    breakpoints_.insert(it, std::move(armed));
  }
  return breakOk();
}

proto::ControlReply BreakpointTable::remove(std::int32_t id) {
  auto it = std::find_if(breakpoints_.begin(), breakpoints_.end(), [&](const Armed& a) { return a.wire.id == id; });
  if (it == breakpoints_.end()) return breakError("no breakpoint " + std::to_string(id));
  breakpoints_.erase(it);
  return breakOk();
}

proto::ControlReply BreakpointTable::enable(std::int32_t id, bool enabled) {
  auto it = std::find_if(breakpoints_.begin(), breakpoints_.end(), [&](const Armed& a) { return a.wire.id == id; });
  if (it == breakpoints_.end()) return breakError("no breakpoint " + std::to_string(id));
  it->wire.enabled = enabled;
  return breakOk();
}

std::vector<proto::Breakpoint> BreakpointTable::list() const {
  std::vector<proto::Breakpoint> out;
  out.reserve(breakpoints_.size());
  for (const Armed& a : breakpoints_) out.push_back(a.wire);
  return out;
}

bool BreakpointTable::armsSafePoints() const noexcept {
  return std::any_of(breakpoints_.begin(), breakpoints_.end(), [](const Armed& a) {
    return a.wire.enabled && a.wire.kind != proto::BreakKind::Violation;
  });
}

bool BreakpointTable::hit(Armed& b) noexcept {
  ++b.wire.hits;
  return b.wire.hit == 0 || b.wire.hits == b.wire.hit;
}

const proto::Breakpoint* BreakpointTable::reach(MpiFunction function, std::string_view entry, const cond::CallArgs& args,
                                                const std::function<std::string(std::uint64_t)>& commName) {
  cond::CallArgs local = args;
  std::string name;
  bool nameLoaded = false;
  const proto::Breakpoint* fired = nullptr;
  for (Armed& b : breakpoints_) {
    if (!b.wire.enabled) continue;
    if (function != MpiFunction::None) {
      if (b.wire.kind != proto::BreakKind::Mpi || b.function != function) continue;
    } else if (b.wire.kind != proto::BreakKind::Entry || b.wire.target != entry) {
      continue;
    }
    if (b.condition.needsCommName() && !nameLoaded) {
      name = commName(static_cast<std::uint64_t>(local.value[static_cast<std::size_t>(cond::Field::Comm)]));
      local.commName = name;
      nameLoaded = true;
    }
    if (!b.condition.evaluate(local)) continue;
    if (hit(b) && !fired) fired = &b.wire;
  }
  return fired;
}

const proto::Breakpoint* BreakpointTable::violation() {
  const proto::Breakpoint* fired = nullptr;
  for (Armed& b : breakpoints_) {
    if (!b.wire.enabled || b.wire.kind != proto::BreakKind::Violation) continue;
    if (hit(b) && !fired) fired = &b.wire;
  }
  return fired;
}

}  // namespace mpidbg::rt
