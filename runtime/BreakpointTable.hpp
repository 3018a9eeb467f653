#pragma once

// The breakpoint table of one rank (Control.hpp's, issue 4): breakpoints on
// interposed MPI functions, entry points and thread-level violations, with
// their conditions (ccs/condition/Condition.hpp) and hit counts. No MPI and no locking:
// Control holds its mutex around every call, and tests/unit/runtime drives
// it directly.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "CurrentCall.hpp"
#include "ccs/condition/Condition.hpp"
#include "ccs/proto/ControlProtocol.hpp"

namespace mpidbg::rt {

/// The breakpoint-target entry (ccs/condition/Condition.cpp's function table) of
/// interposed function `f`, found by name once for every function: which
/// arguments a condition on it may name. nullptr for None.
const ccs::cond::FunctionInfo* breakTargetOf(MpiFunction f) noexcept;

/// The breakpoints of one rank, kept in id order. Not thread-safe.
class BreakpointTable {
 public:
  /// Most breakpoints a rank keeps.
  static constexpr std::size_t kMaxBreakpoints = 256;

  /// Sets breakpoint `b.id`, or replaces the one with that id (its hit count
  /// restarts at 0). Error replies, the table unchanged: an MPI target the
  /// condition language does not know ("did you mean" included) or the
  /// runtime does not interpose; a condition on a violation breakpoint; a
  /// condition that does not parse or names an argument the target lacks;
  /// a new id beyond kMaxBreakpoints.
  ccs::proto::ControlReply set(const ccs::proto::Breakpoint& b);
  /// Deletes breakpoint `id`; error "no breakpoint ID" when it is not set.
  ccs::proto::ControlReply remove(std::int32_t id);
  /// Enables or disables breakpoint `id` (its hit count kept); error "no
  /// breakpoint ID" when it is not set.
  ccs::proto::ControlReply enable(std::int32_t id, bool enabled);
  /// Every breakpoint, in id order, with its hit count.
  std::vector<ccs::proto::Breakpoint> list() const;
  /// Forgets every breakpoint (the front end detached).
  void clear() noexcept { breakpoints_.clear(); }

  /// True when some enabled breakpoint is on an MPI function or an entry
  /// point: safe points must take the slow path (violation breakpoints cost
  /// nothing until a violation happens).
  bool armsSafePoints() const noexcept;

  /// A safe point at MPI function `function` with arguments `args`, or (when
  /// `function` is None) at entry point `entry`: counts a hit on every
  /// enabled breakpoint on it whose condition holds, and returns the first
  /// (lowest id) of them that fires (hit 0: every hit; hit N: the Nth), or
  /// nullptr. `commName` names a communicator handle key; it is called at
  /// most once, only when a condition needs the name. The pointer is valid
  /// until the table changes.
  const ccs::proto::Breakpoint* reach(MpiFunction function, std::string_view entry, const ccs::cond::CallArgs& args,
                                      const std::function<std::string(std::uint64_t)>& commName);
  /// A thread-level violation: counts a hit on every enabled violation
  /// breakpoint and returns the first that fires, or nullptr (as reach()).
  const ccs::proto::Breakpoint* violation();

 private:
  /// A breakpoint as the rank keeps it.
  struct Armed {
    ccs::proto::Breakpoint wire;
    ccs::cond::Condition condition;
    MpiFunction function = MpiFunction::None;  ///< kind mpi
  };
  /// Counts a hit on `b`; true when it fires.
  static bool hit(Armed& b) noexcept;

  std::vector<Armed> breakpoints_;  ///< by id
};

}  // namespace mpidbg::rt
