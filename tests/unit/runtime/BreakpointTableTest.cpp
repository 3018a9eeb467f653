// The breakpoint table of a rank (runtime/BreakpointTable.hpp): setting,
// replacing, deleting, enabling and listing breakpoints, whether they arm the
// safe points, and matching safe points (MPI calls, entry points, thread-level
// violations) against them with conditions and hit counts. No MPI: the table
// is the pure half of runtime/Control.cpp.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/BreakpointTable.hpp"

namespace breakpoint_table_test {

using mpidbg::rt::BreakpointTable;
using mpidbg::rt::MpiFunction;
namespace cond = mpidbg::ccs::cond;
namespace proto = mpidbg::ccs::proto;

proto::Breakpoint breakpoint(std::int32_t id, proto::BreakKind kind, std::string target, std::string condition = {},
                             std::uint64_t hit = 0, bool enabled = true) {
  proto::Breakpoint b;
  b.id = id;
  b.kind = kind;
  b.target = std::move(target);
  b.condition = std::move(condition);
  b.hit = hit;
  b.enabled = enabled;
  return b;
}

proto::Breakpoint mpi(std::int32_t id, std::string target, std::string condition = {}, std::uint64_t hit = 0,
                      bool enabled = true) {
  return breakpoint(id, proto::BreakKind::Mpi, std::move(target), std::move(condition), hit, enabled);
}

/// The arguments of a call to `f` as the runtime gives them to conditions
/// (the fields the function has; rank 0 of 4).
cond::CallArgs argsFor(MpiFunction f, std::int64_t tag = 0, std::uint64_t comm = 0x44000000) {
  cond::CallArgs a;
  if (const cond::FunctionInfo* info = mpidbg::rt::breakTargetOf(f)) a.has = info->fields;
  a.value[static_cast<std::size_t>(cond::Field::Rank)] = 0;
  a.value[static_cast<std::size_t>(cond::Field::Size)] = 4;
  a.value[static_cast<std::size_t>(cond::Field::Tag)] = tag;
  a.value[static_cast<std::size_t>(cond::Field::Comm)] = static_cast<std::int64_t>(comm);
  return a;
}

std::vector<std::int32_t> idsOf(const BreakpointTable& table) {
  std::vector<std::int32_t> ids;
  for (const proto::Breakpoint& b : table.list()) ids.push_back(b.id);
  return ids;
}

std::uint64_t hitsOf(const BreakpointTable& table, std::int32_t id) {
  for (const proto::Breakpoint& b : table.list())
    if (b.id == id) return b.hits;
  FAIL("no breakpoint " << id);
  return 0;
}

/// The id of the breakpoint a safe point fires, 0 for none.
std::int32_t firedId(const proto::Breakpoint* fired) { return fired ? fired->id : 0; }

TEST_CASE("BreakpointTable::breakTargetOf names every interposed function's condition target",
          "[runtime][breakpoints]") {
  CHECK(mpidbg::rt::breakTargetOf(MpiFunction::None) == nullptr);
  for (std::size_t i = 1; i < mpidbg::rt::kFunctionCount; ++i) {
    const auto f = static_cast<MpiFunction>(i);
    const cond::FunctionInfo* info = mpidbg::rt::breakTargetOf(f);
    INFO(mpidbg::rt::functionName(f));
    REQUIRE(info != nullptr);
    CHECK(info->name == mpidbg::rt::functionName(f));
    CHECK((info->fields & cond::kAlways) == cond::kAlways);
  }
}

TEST_CASE("BreakpointTable::set refuses what it cannot arm, with the reason", "[runtime][breakpoints]") {
  struct Row {
    const char* what;
    proto::Breakpoint breakpoint;
    std::string message;
  };
  const std::vector<Row> rows = {
      {"misspelled function", mpi(1, "MPI_Bcats"), "unknown MPI function 'MPI_Bcats' (did you mean MPI_Bcast?)"},
      {"argument the function lacks", mpi(1, "MPI_Bcast", "dest == 1"), "MPI_Bcast has no argument 'dest'"},
      {"argument an entry point lacks", breakpoint(1, proto::BreakKind::Entry, "solve", "tag == 3"),
       "entry solve has no argument 'tag'"},
      {"condition on a violation", breakpoint(1, proto::BreakKind::Violation, "violation", "rank == 0"),
       "a violation breakpoint takes no condition"},
      {"condition that does not parse", mpi(1, "MPI_Send", "tag =="), "bad condition 'tag ==': "},
  };
  for (const Row& row : rows) {
    INFO(row.what);
    BreakpointTable table;
    const proto::ControlReply reply = table.set(row.breakpoint);
    CHECK_FALSE(reply.ok);
    CHECK_THAT(reply.message, Catch::StartsWith(row.message));
    CHECK(table.list().empty());
    CHECK_FALSE(table.armsSafePoints());
  }
}

TEST_CASE("BreakpointTable keeps breakpoints in id order; setting an id again replaces it", "[runtime][breakpoints]") {
  BreakpointTable table;
  for (std::int32_t id : {5, 2, 9}) REQUIRE(table.set(mpi(id, "MPI_Send")).ok);
  CHECK(idsOf(table) == std::vector<std::int32_t>{2, 5, 9});

  // Hits restart when a breakpoint is replaced.
  REQUIRE(table.reach(MpiFunction::Send, {}, argsFor(MpiFunction::Send), {}) != nullptr);
  CHECK(hitsOf(table, 5) == 1);
  REQUIRE(table.set(mpi(5, "MPI_Recv", "source == 3", 2)).ok);
  CHECK(idsOf(table) == std::vector<std::int32_t>{2, 5, 9});
  const proto::Breakpoint replaced = table.list()[1];
  CHECK(replaced.target == "MPI_Recv");
  CHECK(replaced.condition == "source == 3");
  CHECK(replaced.hit == 2);
  CHECK(replaced.hits == 0);
  CHECK(hitsOf(table, 2) == 1);

  table.clear();
  CHECK(table.list().empty());
}

TEST_CASE("BreakpointTable remove and enable name the breakpoint they act on", "[runtime][breakpoints]") {
  BreakpointTable table;
  REQUIRE(table.set(mpi(1, "MPI_Send")).ok);
  REQUIRE(table.set(mpi(2, "MPI_Recv")).ok);
  enum class Act { Remove, Disable, Enable };
  struct Row {
    Act act;
    std::int32_t id;
    std::string error;  ///< empty: succeeds
    std::vector<std::int32_t> ids;
    std::vector<bool> enabled;
  };
  const std::vector<Row> rows = {
      {Act::Disable, 1, "", {1, 2}, {false, true}},
      {Act::Disable, 7, "no breakpoint 7", {1, 2}, {false, true}},
      {Act::Enable, 1, "", {1, 2}, {true, true}},
      {Act::Remove, 1, "", {2}, {true}},
      {Act::Remove, 1, "no breakpoint 1", {2}, {true}},
      {Act::Enable, 1, "no breakpoint 1", {2}, {true}},
      {Act::Remove, 2, "", {}, {}},
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    INFO("row " << i);
    const proto::ControlReply reply =
        row.act == Act::Remove ? table.remove(row.id) : table.enable(row.id, row.act == Act::Enable);
    CHECK(reply.ok == row.error.empty());
    CHECK(reply.message == row.error);
    CHECK(idsOf(table) == row.ids);
    std::vector<bool> enabled;
    for (const proto::Breakpoint& b : table.list()) enabled.push_back(b.enabled);
    CHECK(enabled == row.enabled);
  }
}

TEST_CASE("BreakpointTable arms the safe points only for enabled call and entry breakpoints",
          "[runtime][breakpoints]") {
  struct Row {
    const char* what;
    std::vector<proto::Breakpoint> breakpoints;
    bool arms;
  };
  const std::vector<Row> rows = {
      {"none", {}, false},
      {"an MPI function", {mpi(1, "MPI_Barrier")}, true},
      {"a disabled MPI function", {mpi(1, "MPI_Barrier", "", 0, false)}, false},
      {"an entry point", {breakpoint(1, proto::BreakKind::Entry, "solve")}, true},
      {"violations only", {breakpoint(1, proto::BreakKind::Violation, "violation")}, false},
      {"a violation and a disabled call",
       {breakpoint(1, proto::BreakKind::Violation, "violation"), mpi(2, "MPI_Send", "", 0, false)},
       false},
      {"a disabled call and an enabled one", {mpi(1, "MPI_Send", "", 0, false), mpi(2, "MPI_Recv")}, true},
  };
  for (const Row& row : rows) {
    INFO(row.what);
    BreakpointTable table;
    for (const proto::Breakpoint& b : row.breakpoints) REQUIRE(table.set(b).ok);
    CHECK(table.armsSafePoints() == row.arms);
  }
  BreakpointTable table;
  REQUIRE(table.set(mpi(1, "MPI_Send")).ok);
  CHECK(table.armsSafePoints());
  REQUIRE(table.enable(1, false).ok);
  CHECK_FALSE(table.armsSafePoints());
  REQUIRE(table.enable(1, true).ok);
  REQUIRE(table.remove(1).ok);
  CHECK_FALSE(table.armsSafePoints());
}

TEST_CASE("BreakpointTable::reach matches calls and entry points, counts hits, fires the lowest id",
          "[runtime][breakpoints]") {
  BreakpointTable table;
  REQUIRE(table.set(mpi(1, "MPI_Send", "tag == 7")).ok);
  REQUIRE(table.set(mpi(2, "MPI_Send", "", 2)).ok);  // only the 2nd matching call
  REQUIRE(table.set(breakpoint(3, proto::BreakKind::Entry, "solve")).ok);
  REQUIRE(table.set(mpi(4, "MPI_Recv", "comm == halo")).ok);
  REQUIRE(table.set(mpi(5, "MPI_Bcast", "", 0, false)).ok);
  REQUIRE(table.set(breakpoint(6, proto::BreakKind::Violation, "violation")).ok);

  struct Row {
    const char* what;
    MpiFunction function;
    const char* entry;
    std::int64_t tag;
    std::uint64_t comm;
    std::int32_t fired;
    int nameLookups;  ///< calls of the communicator-name callback
  };
  const std::vector<Row> rows = {
      {"send tag 7: both send breakpoints hit, 1 fires", MpiFunction::Send, "", 7, 0x44000000, 1, 0},
      {"send tag 3: 2's second hit fires", MpiFunction::Send, "", 3, 0x44000000, 2, 0},
      {"send tag 3 again: 2 hit a third time", MpiFunction::Send, "", 3, 0x44000000, 0, 0},
      {"entry solve", MpiFunction::None, "solve", 0, 0, 3, 0},
      {"another entry", MpiFunction::None, "other", 0, 0, 0, 0},
      {"receive on halo", MpiFunction::Recv, "", 0, 0x84000002, 4, 1},
      {"receive on another communicator", MpiFunction::Recv, "", 0, 0x84000003, 0, 1},
      {"disabled broadcast", MpiFunction::Bcast, "", 0, 0x44000000, 0, 0},
      {"a function without breakpoints", MpiFunction::Barrier, "", 0, 0x44000000, 0, 0},
  };
  for (const Row& row : rows) {
    INFO(row.what);
    int lookups = 0;
    const auto name = [&lookups](std::uint64_t comm) {
      ++lookups;
      return comm == 0x84000002 ? std::string("halo") : std::string("comm 0x84000003");
    };
    CHECK(firedId(table.reach(row.function, row.entry, argsFor(row.function, row.tag, row.comm), name)) == row.fired);
    CHECK(lookups == row.nameLookups);
  }
  const std::vector<std::pair<std::int32_t, std::uint64_t>> hits = {{1, 1}, {2, 3}, {3, 1}, {4, 1}, {5, 0}, {6, 0}};
  for (const auto& [id, count] : hits) {
    INFO("breakpoint " << id);
    CHECK(hitsOf(table, id) == count);
  }
}

TEST_CASE("BreakpointTable: a breakpoint with hit N fires at the Nth matching call only", "[runtime][breakpoints]") {
  struct Row {
    std::uint64_t hit;
    std::vector<std::int32_t> fired;  ///< per call, 0 = none
  };
  const std::vector<Row> rows = {
      {0, {1, 1, 1, 1}},
      {1, {1, 0, 0, 0}},
      {3, {0, 0, 1, 0}},
      {5, {0, 0, 0, 0}},
  };
  for (const Row& row : rows) {
    INFO("hit " << row.hit);
    BreakpointTable table;
    REQUIRE(table.set(mpi(1, "MPI_Barrier", "rank == 0", row.hit)).ok);
    std::vector<std::int32_t> fired;
    for (std::size_t call = 0; call < row.fired.size(); ++call)
      fired.push_back(firedId(table.reach(MpiFunction::Barrier, {}, argsFor(MpiFunction::Barrier), {})));
    CHECK(fired == row.fired);
    CHECK(hitsOf(table, 1) == row.fired.size());
  }
}

TEST_CASE("BreakpointTable::violation counts only enabled violation breakpoints", "[runtime][breakpoints]") {
  BreakpointTable table;
  REQUIRE(table.set(mpi(1, "MPI_Send")).ok);
  REQUIRE(table.set(breakpoint(2, proto::BreakKind::Violation, "violation", {}, 2)).ok);
  REQUIRE(table.set(breakpoint(3, proto::BreakKind::Violation, "violation")).ok);
  REQUIRE(table.set(breakpoint(4, proto::BreakKind::Violation, "violation", {}, 0, false)).ok);
  const std::vector<std::int32_t> expected = {3, 2, 3};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("violation " << i + 1);
    CHECK(firedId(table.violation()) == expected[i]);
  }
  const std::vector<std::pair<std::int32_t, std::uint64_t>> hits = {{1, 0}, {2, 3}, {3, 3}, {4, 0}};
  for (const auto& [id, count] : hits) {
    INFO("breakpoint " << id);
    CHECK(hitsOf(table, id) == count);
  }
}

TEST_CASE("BreakpointTable holds at most kMaxBreakpoints; replacing still works when full", "[runtime][breakpoints]") {
  BreakpointTable table;
  const auto max = static_cast<std::int32_t>(BreakpointTable::kMaxBreakpoints);
  for (std::int32_t id = 1; id <= max; ++id) REQUIRE(table.set(mpi(id, "MPI_Send")).ok);
  const proto::ControlReply full = table.set(mpi(max + 1, "MPI_Send"));
  CHECK_FALSE(full.ok);
  CHECK(full.message == "too many breakpoints (at most 256 per rank)");
  CHECK(table.list().size() == BreakpointTable::kMaxBreakpoints);
  CHECK(table.set(mpi(max, "MPI_Recv")).ok);
  CHECK(table.list().back().target == "MPI_Recv");
  REQUIRE(table.remove(1).ok);
  CHECK(table.set(mpi(max + 1, "MPI_Send")).ok);
  CHECK(table.list().back().id == max + 1);
}

}  // namespace breakpoint_table_test
