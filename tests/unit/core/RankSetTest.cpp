#include <catch2/catch.hpp>

#include "debugger/core/RankSet.hpp"

using mpidbg::core::RankSet;

TEST_CASE("RankSet parses what users type and prints it compactly", "[core][rankset]") {
  struct Row {
    const char* input;
    int jobSize;
    const char* printed;
  };
  const Row rows[] = {
      {"all", 4, "[0-3]"},
      {"[all]", 2, "[0-1]"},
      {"3", 4, "[3]"},
      {"0-3,7", 8, "[0-3,7]"},
      {"[0-3,7]", 8, "[0-3,7]"},
      {" [ 0 - 1 , 3 ] ", 4, "[0-1,3]"},
      {"5,1,3,2", 8, "[1-3,5]"},
      {"0,0,0", 1, "[0]"},
      {"0-0", 1, "[0]"},
      {"1,3,5,7", 8, "[1,3,5,7]"},
      {"0-511", 512, "[0-511]"},
  };
  for (const auto& row : rows) {
    INFO(row.input);
    auto set = RankSet::parse(row.input, row.jobSize);
    REQUIRE(set.has_value());
    CHECK(set->toString() == row.printed);
    // What we print parses back to the same set.
    auto again = RankSet::parse(set->toString(), row.jobSize);
    REQUIRE(again.has_value());
    CHECK(*again == *set);
  }
}

TEST_CASE("RankSet rejects bad input with a message naming the problem", "[core][rankset]") {
  struct Row {
    const char* input;
    int jobSize;
    const char* message;
  };
  const Row rows[] = {
      {"", 4, "empty rank set"},
      {"[]", 4, "empty rank set"},
      {"4", 4, "rank 4 is out of range: the job has 4 ranks (0-3)"},
      {"0-9", 4, "rank 9 is out of range"},
      {"5-2", 8, "range 5-2 is reversed"},
      {"x", 4, "'x' is not a rank number"},
      {"-1", 4, "is not a rank number"},
      {"1,,2", 4, "empty item"},
      {"[0-1", 4, "missing closing ']'"},
      {"1.5", 4, "is not a rank number"},
      {"99999999999999", 4, "is not a rank number"},
  };
  for (const auto& row : rows) {
    INFO(row.input);
    auto set = RankSet::parse(row.input, row.jobSize);
    REQUIRE_FALSE(set.has_value());
    CHECK_THAT(set.error().message, Catch::Contains(row.message));
  }
}

TEST_CASE("RankSet algebra", "[core][rankset]") {
  const RankSet a = *RankSet::parse("0-3", 8);
  const RankSet b = *RankSet::parse("2-5", 8);
  CHECK((a | b).toString() == "[0-5]");
  CHECK((a & b).toString() == "[2-3]");
  CHECK((a - b).toString() == "[0-1]");
  CHECK(RankSet().toString() == "[]");
  CHECK(mpidbg::core::describeRanks(*RankSet::parse("2", 4)) == "rank 2");
  CHECK(mpidbg::core::describeRanks(a) == "ranks [0-3]");
}
