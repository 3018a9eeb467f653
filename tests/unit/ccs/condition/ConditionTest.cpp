// Breakpoint conditions: parse errors, validation against a function's
// arguments, evaluation, and call descriptions (ccs/condition/Condition.hpp).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "ccs/condition/Condition.hpp"
#include "mpidbg/MpiFunctions.hpp"

using namespace mpidbg::ccs::cond;

namespace {

/// MPI_Send(dest=3, tag=7, count=16, comm=WORLD) from world rank 2 of 4.
CallArgs sendArgs(std::int64_t dest = 3) {
  CallArgs a;
  a.has = findFunction("MPI_Send")->fields;
  a.set(Field::Dest, dest);
  a.set(Field::Tag, 7);
  a.set(Field::Count, 16);
  a.set(Field::Comm, 0x44000000);
  a.set(Field::Rank, 2);
  a.set(Field::Size, 4);
  a.predefined = CallArgs::Predefined::World;
  a.commName = "MPI_COMM_WORLD";
  return a;
}

}  // namespace

TEST_CASE("conditions that parse, evaluated on a send", "[ccs][control]") {
  struct Row {
    std::string text;
    bool expected;
  };
  const Row rows[] = {
      {"dest == 3", true},
      {"dest==3", true},
      {"dest = 3", true},
      {"dest != 3", false},
      {"dest < 4", true},
      {"dest <= 2", false},
      {"dest > 2", true},
      {"dest >= 4", false},
      {"tag == 0x7", true},
      {"count == 16 && tag == 7", true},
      {"count == 16 && tag == 8", false},
      {"count == 15 || tag == 7", true},
      {"dest == 1 || dest == 2 && tag == 7", false},  // && binds tighter
      {"(dest == 1 || dest == 3) && tag == 7", true},
      {"((dest == 3))", true},
      {"comm=WORLD", true},
      {"comm == MPI_COMM_WORLD", true},
      {"comm == SELF", false},
      {"comm != MPI_COMM_SELF", true},
      {"comm == \"MPI_COMM_WORLD\"", true},
      {"comm == rows", false},
      {"comm == 0x44000000", true},
      {"rank == 2 && size == 4", true},
      {"dest == -1", false},
      {"  dest\t==\t3  ", true},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    auto c = Condition::parse(row.text);
    REQUIRE(c.has_value());
    REQUIRE(c->validateFor("MPI_Send").has_value());
    CHECK(c->evaluate(sendArgs()) == row.expected);
  }
}

TEST_CASE("named wildcard values", "[ccs][control]") {
  CallArgs recv;
  recv.has = findFunction("MPI_Recv")->fields;
  recv.set(Field::Source, -1);
  recv.set(Field::Tag, -1);
  CHECK(Condition::parse("source == MPI_ANY_SOURCE")->evaluate(recv));
  CHECK(Condition::parse("tag == MPI_ANY_TAG")->evaluate(recv));
  CHECK_FALSE(Condition::parse("source == MPI_PROC_NULL")->evaluate(recv));
  CHECK(Condition::parse("comm == solver_rows")->needsCommName());
  CHECK_FALSE(Condition::parse("dest == 1")->needsCommName());
}

TEST_CASE("a clause on an absent argument is false", "[ccs][control]") {
  CallArgs none;  // rank and size only
  CHECK_FALSE(Condition::parse("dest == 0")->evaluate(none));
  CHECK(Condition::parse("dest == 0 || rank == 0")->evaluate(none));
}

TEST_CASE("condition parse errors name the column and token", "[ccs][control]") {
  struct Row {
    std::string text;
    std::string error;
  };
  const Row rows[] = {
      {"", "empty condition"},
      {"   ", "empty condition"},
      {"dset == 3", "at column 1: unknown argument 'dset' (expected one of dest, source, tag, root, count, comm, rank, size)"},
      {"dest 3", "at column 6: expected an operator (==, !=, <, <=, >, >=) after 'dest', got '3'"},
      {"dest", "at column 5: expected an operator (==, !=, <, <=, >, >=) after 'dest', got the end"},
      {"dest ==", "at column 8: expected a value after 'dest', got the end"},
      {"dest == x", "at column 9: expected a number for 'dest', got 'x'"},
      {"dest == 3x", "at column 9: bad number '3x'"},
      {"dest == 99999999999999999999", "at column 9: bad number '99999999999999999999'"},
      {"dest == 3 &&", "at column 13: expected an argument name, got the end"},
      {"dest == 3 & tag == 1", "at column 11: unexpected character '&'"},
      {"dest == 3 tag == 1", "at column 11: expected &&, || or the end of the condition, got 'tag'"},
      {"(dest == 3", "at column 11: expected ')', got the end"},
      {"dest == 3)", "at column 10: expected &&, || or the end of the condition, got ')'"},
      {"comm < WORLD", "at column 6: communicators compare only with == or !=, not '<'"},
      {"comm == \"rows", "at column 9: unterminated string"},
      {"tag == \"x\"", "at column 8: expected a value for 'tag', got 'x'"},
      {"dest == MPI_ANY_SOURCE", "at column 9: expected a number for 'dest', got 'MPI_ANY_SOURCE'"},
      {"== 3", "at column 1: expected an argument name, got '=='"},
      {"dest !3", "at column 6: unexpected character '!'"},
      {"dest == 3 # 42", "at column 11: unexpected character '#'"},
      {"dest == \x01", "at column 9: unexpected character '?'"},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    auto c = Condition::parse(row.text);
    REQUIRE_FALSE(c.has_value());
    CHECK(c.error().message == row.error);
  }
}

TEST_CASE("hostile condition input is bounded", "[ccs][control]") {
  CHECK(Condition::parse(std::string(kMaxText + 1, ' ')).error().message == "condition is longer than 1024 bytes");
  std::string deep(kMaxDepth + 1, '(');
  CHECK(Condition::parse(deep + "dest == 1").error().message == "at column 17: parentheses nested deeper than 16");
  std::string many = "rank == 0";
  for (std::size_t i = 1; i < kMaxClauses; ++i) many += " || rank == " + std::to_string(i);
  CHECK(Condition::parse(many).has_value());
  CHECK(Condition::parse(many + " || rank == 99").error().message.find("more than 64 clauses") != std::string::npos);
  // Every byte value, every length up to a few: never a crash.
  for (int b = 0; b < 256; ++b) {
    const std::string one(1, static_cast<char>(b));
    (void)Condition::parse(one);
    (void)Condition::parse("dest == " + one);
    (void)Condition::parse("comm == \"" + one);
  }
}

TEST_CASE("validation against the target's arguments", "[ccs][control]") {
  auto destCondition = Condition::parse("dest == 3");
  REQUIRE(destCondition);
  CHECK(destCondition->validateFor("MPI_Send").has_value());
  CHECK(destCondition->validateFor("MPI_Sendrecv").has_value());
  CHECK(destCondition->validateFor("MPI_Recv").error().message ==
        "MPI_Recv has no argument 'dest' (it has source, tag, count, comm, rank, size)");
  CHECK(destCondition->validateFor(kAlways, "entry solver::step").error().message ==
        "entry solver::step has no argument 'dest' (it has rank, size)");
  CHECK(destCondition->validateFor("MPI_Bcats").error().message ==
        "unknown MPI function 'MPI_Bcats' (did you mean MPI_Bcast?)");
  CHECK(Condition::parse("root == 0 && count == 16")->validateFor("MPI_Bcast").has_value());
  CHECK(Condition::parse("rank == 1")->validateFor(kAlways, "entry x").has_value());
}

TEST_CASE("the interposed function table", "[ccs][control]") {
  // Every row of the one function table (mpidbg/MpiFunctions.hpp), which
  // runtime/CurrentCall.hpp's MpiFunction is made from too.
#define MPIDBG_ONE(name, text, collClass, fields, role, group) +1
  constexpr std::size_t kRows = 0 MPIDBG_MPI_FUNCTIONS(MPIDBG_ONE);
#undef MPIDBG_ONE
  CHECK(kRows == 298);
  CHECK(functions().size() == kRows);
  REQUIRE(findFunction("MPI_Iprobe") != nullptr);
  CHECK(findFunction("MPI_Iprobe")->fields ==
        (bit(Field::Source) | bit(Field::Tag) | bit(Field::Comm) | kAlways));
  CHECK(functions().front().name == "MPI_Barrier");
  CHECK(functions()[14].name == "MPI_Send");
  CHECK(findFunction("MPI_Allreduce") != nullptr);
  // One-sided synchronisation is a target, on its window (no other field).
  REQUIRE(findFunction("MPI_Win_fence") != nullptr);
  CHECK(findFunction("MPI_Win_fence")->fields == kAlways);
  // Nonblocking calls and the later constructors are targets too, with the
  // arguments their wrappers record.
  REQUIRE(findFunction("MPI_Isend") != nullptr);
  CHECK(findFunction("MPI_Isend")->fields == (bit(Field::Dest) | bit(Field::Tag) | bit(Field::Count) |
                                              bit(Field::Comm) | kAlways));
  REQUIRE(findFunction("MPI_Irecv") != nullptr);
  CHECK((findFunction("MPI_Irecv")->fields & bit(Field::Source)) != 0);
  REQUIRE(findFunction("MPI_Ibcast") != nullptr);
  CHECK((findFunction("MPI_Ibcast")->fields & bit(Field::Root)) != 0);
  REQUIRE(findFunction("MPI_Comm_create_group") != nullptr);
  CHECK(findFunction("MPI_Comm_create_group")->fields == (bit(Field::Comm) | kAlways));
  CHECK(findFunction("MPI_File_read_c") == nullptr);  // independent I/O: not interposed
  // Every MPI-4 large-count form (_c) is a target as its int form is: the
  // same arguments, the same class, the same blocking role.
  std::size_t largeCount = 0;
  for (const FunctionInfo& f : functions()) {
    if (!f.name.ends_with("_c")) continue;
    INFO(f.name);
    ++largeCount;
    const std::string_view intName = f.name.substr(0, f.name.size() - 2);
    const FunctionInfo* intForm = findFunction(intName);
    REQUIRE(intForm != nullptr);
    CHECK(f.fields == intForm->fields);
    CHECK(f.collClass == intForm->collClass);
    CHECK(mpidbg::blockingRoleOf(f.name) == mpidbg::blockingRoleOf(intName));
    CHECK(mpidbg::collectiveInNoClass(f.name) == mpidbg::collectiveInNoClass(intName));
  }
  // The GROUP column: collective over the communicator's group, counted in
  // no class (constructors, frees, collective MPI-IO); not the dynamic
  // processes, not the split collectives' _end or the nonblocking MPI-IO.
  static_assert(mpidbg::collectiveInNoClass("MPI_Comm_dup"));
  static_assert(mpidbg::collectiveInNoClass("MPI_Comm_free"));
  static_assert(mpidbg::collectiveInNoClass("MPI_Win_allocate_shared_c"));
  static_assert(mpidbg::collectiveInNoClass("MPI_File_write_at_all_begin"));
  static_assert(mpidbg::collectiveInNoClass("MPI_Intercomm_merge"));
  static_assert(!mpidbg::collectiveInNoClass("MPI_File_write_at_all_end"));
  static_assert(!mpidbg::collectiveInNoClass("MPI_File_iwrite_all"));
  static_assert(!mpidbg::collectiveInNoClass("MPI_File_delete"));
  static_assert(!mpidbg::collectiveInNoClass("MPI_Comm_spawn"));
  static_assert(!mpidbg::collectiveInNoClass("MPI_Win_fence"));  // counted in its window's Barrier class
  static_assert(!mpidbg::collectiveInNoClass("MPI_Allreduce"));
  static_assert(!mpidbg::collectiveInNoClass("MPI_Not_a_function"));
  CHECK(largeCount == 111);  // every communication function of MPICH 4.0 that has a _c form
  REQUIRE(findFunction("MPI_Put_c") != nullptr);
  CHECK(findFunction("MPI_Put_c")->fields == (bit(Field::Target) | bit(Field::Count) | kAlways));
  // The target of one-sided calls, locks and flushes (not of lock_all or a fence).
  REQUIRE(findFunction("MPI_Win_lock") != nullptr);
  CHECK(findFunction("MPI_Win_lock")->fields == (bit(Field::Target) | kAlways));
  CHECK(findFunction("MPI_Win_lock_all")->fields == kAlways);
  CHECK(findFunction("MPI_Fetch_and_op")->fields == (bit(Field::Target) | kAlways));
  CHECK(Condition::parse("target == 1")->validateFor("MPI_Get").has_value());
  CHECK(Condition::parse("target == 1")->validateFor("MPI_Send").error().message ==
        "MPI_Send has no argument 'target' (it has dest, tag, count, comm, rank, size)");
  REQUIRE(findFunction("MPI_Neighbor_alltoallw_init_c") != nullptr);
  CHECK(findFunction("MPI_Neighbor_alltoallw_init_c")->collClass == 6);  // MPI_Alltoallv
  // MPI-4's forms count in their int form's class: large-count, persistent.
  REQUIRE(findFunction("MPI_Bcast_c") != nullptr);
  CHECK(findFunction("MPI_Bcast_c")->collClass == 1);
  REQUIRE(findFunction("MPI_Allreduce_init") != nullptr);
  CHECK(findFunction("MPI_Allreduce_init")->collClass == 4);
  REQUIRE(findFunction("MPI_Neighbor_alltoallw") != nullptr);
  CHECK(findFunction("MPI_Neighbor_alltoallw")->collClass == 6);  // MPI_Alltoallv
  // The longest name fits the exported name table (kFunctionNameLen 40).
  REQUIRE(findFunction("MPI_Intercomm_create_from_groups") != nullptr);
  CHECK(findFunction("MPI_File_write_all")->collClass == -1);
  // Collectives count in a class, their own or their nearest form's.
  CHECK(findFunction("MPI_Allreduce")->collClass == 4);
  REQUIRE(findFunction("MPI_Exscan") != nullptr);
  CHECK(findFunction("MPI_Exscan")->collClass == 11);  // MPI_Scan
  CHECK(findFunction("MPI_Iexscan")->collClass == 11);
  CHECK(findFunction("MPI_Ialltoallw")->collClass == 6);  // MPI_Alltoallv
  CHECK(findFunction("MPI_Send")->collClass == -1);
  CHECK(findFunction("MPI_Comm_idup")->collClass == -1);
  std::set<std::string_view> names;
  for (const FunctionInfo& f : functions()) names.insert(f.name);
  CHECK(names.size() == functions().size());
  CHECK(unknownFunction("MPI_Sned").message == "unknown MPI function 'MPI_Sned' (did you mean MPI_Send?)");
  CHECK(unknownFunction("printf").message.starts_with("unknown MPI function 'printf'; breakpoints work on"));
  for (const FunctionInfo& f : functions()) CHECK((f.fields & kAlways) == kAlways);
}

TEST_CASE("call descriptions", "[ccs][control]") {
  CHECK(describeCall("MPI_Send", sendArgs(1), "MPI_COMM_WORLD") ==
        "MPI_Send(dest=1, tag=7, count=16, comm=MPI_COMM_WORLD)");
  CallArgs bcast;
  bcast.has = findFunction("MPI_Bcast")->fields;
  bcast.set(Field::Root, 0);
  bcast.set(Field::Count, 16);
  CHECK(describeCall("MPI_Bcast", bcast, "MPI_COMM_WORLD") == "MPI_Bcast(root=0, count=16, comm=MPI_COMM_WORLD)");
  CallArgs recv;
  recv.has = findFunction("MPI_Probe")->fields;
  recv.set(Field::Source, -1);
  recv.set(Field::Tag, -1);
  CHECK(describeCall("MPI_Probe", recv, "rows") == "MPI_Probe(source=MPI_ANY_SOURCE, tag=MPI_ANY_TAG, comm=rows)");
  CHECK(describeCall("MPI_Send", sendArgs(-2), "w").starts_with("MPI_Send(dest=MPI_PROC_NULL,"));
  CallArgs none;
  CHECK(describeCall("MPI_Finalize", none, "") == "MPI_Finalize()");
}
