#include <catch2/catch.hpp>

#include <map>

#include "debugger/core/RankExpr.hpp"

using namespace mpidbg;
using core::LiveState;
using core::RankExpr;
using core::RankSet;

namespace {

RankSet set(std::initializer_list<int> ranks) {
  RankSet s;
  for (int r : ranks) s.insert(r);
  return s;
}

/// An 8-rank job: ranks 0-2 blocked in MPI_Allreduce, 3 blocked in MPI_Recv,
/// 4 frozen at entry solver::step, 5 running, 6 held by gdb, 7 exited. Named
/// sets S = [0-1] and T = [1,3]; two equivalence classes.
class FakeResolver final : public core::RankExprResolver {
 public:
  int jobSize() const override { return 8; }
  Expected<RankSet> namedSet(std::string_view name) override {
    ++lookups;
    if (auto it = names.find(std::string(name)); it != names.end()) return it->second;
    return fail("unknown rank set name '" + std::string(name) + "'");
  }
  Expected<RankSet> equivalenceClass(std::size_t n) override {
    if (n > classes.size()) return fail("there is no $equiv[" + std::to_string(n) + "]");
    return classes[n - 1];
  }
  Expected<RankSet> focusSet() override { return set({2, 3}); }
  Expected<RankSet> liveState(LiveState state) override {
    ++liveCalls;
    switch (state) {
      case LiveState::Blocked: return set({0, 1, 2, 3});
      case LiveState::Frozen: return set({4});
      case LiveState::Running: return set({5});
      case LiveState::Held: return set({6});
      case LiveState::Exited: return set({7});
    }
    return RankSet{};
  }
  Expected<RankSet> inCall(std::string_view function) override {
    ++liveCalls;
    if (function == "MPI_Allreduce") return set({0, 1, 2});
    if (function == "MPI_Recv") return set({3});
    if (!function.starts_with("MPI_")) return fail("unknown MPI function '" + std::string(function) + "'");
    return RankSet{};
  }
  Expected<RankSet> atEntry(std::string_view entry) override {
    ++liveCalls;
    lastEntry = std::string(entry);
    return entry == "solver::step" ? set({4}) : RankSet{};
  }
  Expected<RankSet> objectQuery(const core::ObjectCondition& c) override {
    lastCondition = c;
    return fail("object inspection is not available yet (issue 8)");
  }

  std::map<std::string, RankSet> names{{"S", set({0, 1})}, {"T", set({1, 3})}};
  std::vector<RankSet> classes{set({0, 1, 2}), set({3, 4, 5, 6, 7})};
  int liveCalls = 0;
  int lookups = 0;
  std::string lastEntry;
  core::ObjectCondition lastCondition;
};

Expected<RankSet> evaluate(std::string_view text, FakeResolver& resolver) {
  auto expr = RankExpr::parse(text);
  if (!expr) return std::unexpected(expr.error());
  return expr->evaluate(resolver);
}

}  // namespace

TEST_CASE("rank-set expressions evaluate with precedence ~ > - > & > |", "[core][rankexpr]") {
  struct Row {
    const char* text;
    RankSet expected;
  };
  const Row rows[] = {
      // Literals, as RankSet::parse reads them.
      {"all", RankSet::all(8)},
      {"5", set({5})},
      {"0-3", set({0, 1, 2, 3})},
      {"0-3,7", set({0, 1, 2, 3, 7})},
      {"0-1, 7", set({0, 1, 7})},
      {"[0-3, 7]", set({0, 1, 2, 3, 7})},
      {"  [6]  ", set({6})},
      // Every operator.
      {"S | T", set({0, 1, 3})},
      {"S & T", set({1})},
      {"S - T", set({0})},
      {"~S", set({2, 3, 4, 5, 6, 7})},
      {"~all", RankSet{}},
      {"S&T", set({1})},
      {"S|T", set({0, 1, 3})},
      // A '-' between digits with no blank is a range; with blanks, a difference.
      {"0-3 - 1", set({0, 2, 3})},
      {"0-3-S", set({2, 3})},
      {"S -1", set({0})},
      // Precedence and associativity.
      {"S | T & 3", set({0, 1, 3})},           // S | (T & 3)
      {"(S | T) & 3", set({3})},
      {"S | T - 1", set({0, 1, 3})},           // S | (T - 1)
      {"(S | T) - 1", set({0, 3})},
      {"T & S - 1", RankSet{}},                // T & (S - 1) = T & {0}
      {"0-7 - 1 - 2", set({0, 3, 4, 5, 6, 7})},  // left-associative
      {"0-7 - (1 - 2)", set({0, 2, 3, 4, 5, 6, 7})},
      {"~S & T", set({3})},                    // (~S) & T
      {"~(S & T)", set({0, 2, 3, 4, 5, 6, 7})},
      {"~~S", set({0, 1})},
      {"((((S))))", set({0, 1})},
      // Names, $equiv, focus.
      {"$equiv[2] & T", set({3})},
      {"$equiv[1]", set({0, 1, 2})},
      {"focus", set({2, 3})},
      {"focus - 3", set({2})},
      // Live states.
      {"blocked", set({0, 1, 2, 3})},
      {"frozen", set({4})},
      {"running", set({5})},
      {"held", set({6})},
      {"exited", set({7})},
      {"blocked - frozen", set({0, 1, 2, 3})},
      {"blocked & in MPI_Allreduce", set({0, 1, 2})},
      {"in MPI_Recv | at entry solver::step", set({3, 4})},
      {"(in   MPI_Allreduce) - S", set({2})},
      {"at entry \"solver::step\"", set({4})},
      {"at entry other", RankSet{}},
      {"~(blocked | frozen | running | held | exited)", RankSet{}},
  };
  for (const auto& row : rows) {
    INFO(row.text);
    FakeResolver resolver;
    auto value = evaluate(row.text, resolver);
    REQUIRE(value.has_value());
    CHECK(*value == row.expected);
  }
}

TEST_CASE("live states are asked for only when the expression uses them", "[core][rankexpr]") {
  FakeResolver resolver;
  auto literal = RankExpr::parse("S | [2-3] - ~1");
  REQUIRE(literal);
  CHECK_FALSE(literal->usesLiveState());
  REQUIRE(literal->evaluate(resolver));
  CHECK(resolver.liveCalls == 0);
  CHECK(resolver.lookups == 1);

  for (const char* text : {"blocked", "S & frozen", "~running", "in MPI_Recv", "at entry x", "held | 1"}) {
    INFO(text);
    auto expr = RankExpr::parse(text);
    REQUIRE(expr);
    CHECK(expr->usesLiveState());
  }
  auto where = RankExpr::parse("where grid.nx != 128");
  REQUIRE(where);
  CHECK_FALSE(where->usesLiveState());
}

TEST_CASE("at entry and where keep their arguments as written", "[core][rankexpr]") {
  FakeResolver resolver;
  REQUIRE(evaluate("at entry solver::step-2 | 0", resolver));
  CHECK(resolver.lastEntry == "solver::step-2");
  REQUIRE(evaluate("(at entry \"phase one\")", resolver));
  CHECK(resolver.lastEntry == "phase one");

  auto where = evaluate("where grid.cells[3].nx != 128", resolver);
  REQUIRE_FALSE(where);
  CHECK(where.error().message == "object inspection is not available yet (issue 8)");
  CHECK(resolver.lastCondition.path == "grid.cells[3].nx");
  CHECK(resolver.lastCondition.op == "!=");
  CHECK(resolver.lastCondition.value == "128");
  auto inExpr = evaluate("S | (where solver.name == \"cg\")", resolver);
  REQUIRE_FALSE(inExpr);
  CHECK(inExpr.error().message ==
        "object inspection is not available yet (issue 8) (at column 6 of 'S | (where solver.name == \"cg\")')");
  CHECK(resolver.lastCondition.value == "\"cg\"");
  REQUIRE_FALSE(evaluate("where x >= -1.5", resolver));
  CHECK(resolver.lastCondition.op == ">=");
  CHECK(resolver.lastCondition.value == "-1.5");
}

TEST_CASE("syntax errors name the problem and the column", "[core][rankexpr]") {
  struct Row {
    const char* text;
    const char* message;
  };
  const Row rows[] = {
      {"", "empty rank set (expected e.g. all, 3, 0-3,7, [0-3,7] or blocked & in MPI_Recv)"},
      {"   ", "empty rank set (expected e.g. all, 3, 0-3,7, [0-3,7] or blocked & in MPI_Recv)"},
      {"(S | 3", "bad rank set '(S | 3': unbalanced parentheses: '(' is not closed at column 1"},
      {"S | 3)", "bad rank set 'S | 3)': unexpected ')' (no '(' to close) at column 6"},
      {"(S 3)", "bad rank set '(S 3)': expected an operator (| & -) or ')', got '3' at column 4"},
      {"S T", "bad rank set 'S T': expected an operator (| & -) or the end, got 'T' at column 3"},
      {"S |", "bad rank set 'S |': '|' needs a rank set after it at column 3"},
      {"S & ", "bad rank set 'S & ': '&' needs a rank set after it at column 3"},
      {"~", "bad rank set '~': '~' needs a rank set after it at column 1"},
      {"| S", "bad rank set '| S': expected a rank set, got '|' at column 1"},
      {"S | )", "bad rank set 'S | )': expected a rank set, got ')' at column 5"},
      {"()", "bad rank set '()': '()' is empty at column 1"},
      {"[0-3", "bad rank set '[0-3': '[' has no closing ']' at column 1"},
      {"1 | [2", "bad rank set '1 | [2': '[' has no closing ']' at column 5"},
      {"0-3,", "bad rank set '0-3,': expected a rank after ',' at column 5"},
      {"3abc", "bad rank set '3abc': expected an operator (| & -) after the rank list, got 'abc' at column 2"},
      {"S ^ T", "bad rank set 'S ^ T': expected an operator (| & -) or the end, got '^' at column 3"},
      {"in", "bad rank set 'in': 'in' needs an MPI function name, e.g. 'in MPI_Allreduce' (in a command: "
             "'(in MPI_Allreduce)') at column 1"},
      {"S | in (", "bad rank set 'S | in (': 'in' needs an MPI function name, e.g. 'in MPI_Allreduce' (in a "
                   "command: '(in MPI_Allreduce)') at column 5"},
      {"at solver", "bad rank set 'at solver': 'at' needs 'entry NAME', e.g. 'at entry solver::step' at column 1"},
      {"at entry", "bad rank set 'at entry': 'at entry' needs an entry point name, e.g. 'at entry solver::step' at "
                   "column 1"},
      {"at entry \"x", "bad rank set 'at entry \"x': '\"' is not closed at column 10"},
      {"entry foo", "bad rank set 'entry foo': 'entry' is a keyword: write 'at entry NAME' at column 1"},
      {"where", "bad rank set 'where': 'where' needs a condition on an object field, e.g. 'where grid.nx != 128' "
                "at column 1"},
      {"where grid.nx", "bad rank set 'where grid.nx': expected a comparison (== != < <= > >=) after 'where "
                        "grid.nx', got the end at column 14"},
      {"where grid. == 1", "bad rank set 'where grid. == 1': expected a field name after '.', got ' ' at column 12"},
      {"where a[x] == 1", "bad rank set 'where a[x] == 1': an index is [N] with a number N at column 8"},
      {"where a == ", "bad rank set 'where a == ': expected a value after '==', got the end at column 12"},
      {"$foo", "bad rank set '$foo': unknown variable '$foo' (only $equiv[N] exists) at column 1"},
      {"$equiv", "bad rank set '$equiv': $equiv needs a class number: $equiv[N] (N = 1, 2, ... as `equiv` lists "
                 "them) at column 7"},
      {"$equiv[x]", "bad rank set '$equiv[x]': $equiv[N] needs a class number N and ']' (N = 1, 2, ... as `equiv` "
                    "lists them) at column 8"},
      {"$equiv[0]", "bad rank set '$equiv[0]': there is no $equiv[0]: classes are numbered from 1 at column 8"},
      {"S\x01", "bad rank set 'S\x01': expected an operator (| & -) or the end, got byte 0x01 at column 2"},
  };
  for (const auto& row : rows) {
    INFO(row.text);
    auto expr = RankExpr::parse(row.text);
    REQUIRE_FALSE(expr.has_value());
    CHECK(expr.error().message == row.message);
  }
}

TEST_CASE("evaluation errors keep literal messages and add the column in compound expressions",
          "[core][rankexpr]") {
  struct Row {
    const char* text;
    const char* message;
  };
  const Row rows[] = {
      // A lone literal: RankSet::parse's message unchanged.
      {"9", "rank 9 is out of range: the job has 8 ranks (0-7)"},
      {"2-1", "bad rank set '2-1': range 2-1 is reversed"},
      {"[0-1, x]", "bad rank set '[0-1, x]': 'x' is not a rank number"},
      {"nope", "unknown rank set name 'nope'"},
      {"$equiv[3]", "there is no $equiv[3]"},
      // Compound: the operand's column and the whole text.
      {"S | 9", "rank 9 is out of range: the job has 8 ranks (0-7) (at column 5 of 'S | 9')"},
      {"S | nope", "unknown rank set name 'nope' (at column 5 of 'S | nope')"},
      {"(blocked & in Foo)", "unknown MPI function 'Foo' (at column 12 of '(blocked & in Foo)')"},
  };
  for (const auto& row : rows) {
    INFO(row.text);
    FakeResolver resolver;
    auto value = evaluate(row.text, resolver);
    REQUIRE_FALSE(value.has_value());
    CHECK(value.error().message == row.message);
  }
}

TEST_CASE("toString is canonical and parses back to itself", "[core][rankexpr]") {
  struct Row {
    const char* text;
    const char* canonical;
  };
  const Row rows[] = {
      {"S|T&3", "S | T & 3"},
      {"(S|T)&3", "(S | T) & 3"},
      {"S - (T - 1)", "S - (T - 1)"},
      {"(S - T) - 1", "S - T - 1"},
      {"~(S|T)", "~(S | T)"},
      {"~ ~S", "~~S"},
      {"[0-3, 7]|0-1,5", "[0-3, 7] | 0-1,5"},
      {"blocked&in   MPI_Recv", "blocked & in MPI_Recv"},
      {"at entry \"a b\"|at entry \"ab\"", "at entry \"a b\" | at entry ab"},
      {"where  g.x[2]>=-1", "where g.x[2] >= -1"},
      {"$equiv[12] & focus", "$equiv[12] & focus"},
  };
  for (const auto& row : rows) {
    INFO(row.text);
    auto expr = RankExpr::parse(row.text);
    REQUIRE(expr);
    CHECK(expr->toString() == row.canonical);
    auto again = RankExpr::parse(expr->toString());
    REQUIRE(again);
    CHECK(again->toString() == row.canonical);
    CHECK(expr->text() == row.text);
  }
}

TEST_CASE("hostile expressions are bounded", "[core][rankexpr]") {
  std::string deep(RankExpr::kMaxDepth + 1, '(');
  deep += "1";
  auto tooDeep = RankExpr::parse(deep);
  REQUIRE_FALSE(tooDeep);
  CHECK_THAT(tooDeep.error().message, Catch::Contains("nested deeper than 64 levels at column 65"));
  auto tildes = RankExpr::parse(std::string(100, '~') + "1");
  REQUIRE_FALSE(tildes);
  CHECK_THAT(tildes.error().message, Catch::Contains("nested deeper than 64 levels"));
  auto tooLong = RankExpr::parse(std::string(RankExpr::kMaxLength + 1, '1'));
  REQUIRE_FALSE(tooLong);
  CHECK_THAT(tooLong.error().message, Catch::Contains("too long (more than 4096 bytes)"));
  std::string many = "1";
  for (int i = 0; i < 600; ++i) many += "|1";
  auto tooMany = RankExpr::parse(many);
  REQUIRE_FALSE(tooMany);
  CHECK_THAT(tooMany.error().message, Catch::Contains("too many operands (more than 1024)"));
  // A long flat chain within the limits parses and evaluates.
  std::string chain = "0";
  for (int i = 0; i < 500; ++i) chain += "|" + std::to_string(i % 8);
  FakeResolver resolver;
  auto value = evaluate(chain, resolver);
  REQUIRE(value);
  CHECK(*value == RankSet::all(8));
}

TEST_CASE("names: identifiers that are not keywords or MPI functions", "[core][rankexpr]") {
  for (const char* good : {"S", "late", "_x", "group_2", "Blocked", "mpi_x"}) {
    INFO(good);
    CHECK(RankExpr::isValidName(good));
  }
  for (const char* bad : {"", "2S", "a-b", "a b", "all", "focus", "blocked", "frozen", "running", "exited", "held",
                          "in", "at", "where", "entry", "MPI_Recv", "$equiv"}) {
    INFO(bad);
    CHECK_FALSE(RankExpr::isValidName(bad));
  }
  CHECK(RankExpr::isKeyword("where"));
  CHECK_FALSE(RankExpr::isKeyword("S"));
  CHECK(core::liveStateName(LiveState::Held) == "held");
}
