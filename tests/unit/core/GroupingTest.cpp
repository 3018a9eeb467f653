// Table-driven tests of output grouping: identical texts by rank set, and
// texts that differ only in numbers merged with value ranges.

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "debugger/core/Grouping.hpp"

using namespace mpidbg::core;

namespace {

/// `count` ranks from `first`, rank r printing prefix + (r * step) + suffix.
std::map<int, std::string> counting(int first, int count, const std::string& prefix,
                                    const std::string& suffix, int step = 1) {
  std::map<int, std::string> texts;
  for (int r = first; r < first + count; ++r) texts[r] = prefix + std::to_string(r * step) + suffix;
  return texts;
}

}  // namespace

TEST_CASE("splitNumbers finds whole decimal integers and keeps the rest as text",
          "[core][grouping]") {
  struct Row {
    std::string text;
    std::vector<std::string> literals;
    std::vector<std::int64_t> numbers;
  };
  const Row rows[] = {
      {"x = 3", {"x = ", ""}, {3}},
      {"x = -3", {"x = ", ""}, {-3}},
      {"-7 left", {"", " left"}, {-7}},
      {"5-3", {"", "-", ""}, {5, 3}},
      {"f(a)-2", {"f(a)-", ""}, {2}},
      {"a[1]-2", {"a[", "]-", ""}, {1, 2}},
      {"x = -0", {"x = -0"}, {}},
      {"no numbers here", {"no numbers here"}, {}},
      {"", {""}, {}},
      {"0x7ffd1234 in poll ()", {"0x7ffd1234 in poll ()"}, {}},
      {"thread i1 rank3 2nd _9", {"thread i1 rank3 2nd _9"}, {}},
      {"pi = 3.14, gdb 13.1", {"pi = 3.14, gdb 13.1"}, {}},
      {"at prog.c:12.", {"at prog.c:", "."}, {12}},
      {"mode 007 and 0", {"mode 007 and ", ""}, {0}},
      {"$1 = {1, 2, 3}", {"$", " = {", ", ", ", ", "}"}, {1, 1, 2, 3}},
      {"big 1234567890123456789 ok 123456789012345678",
       {"big 1234567890123456789 ok ", ""},
       {123456789012345678}},
      {"#0  main (argc=1) at ring.c:42\n#1  x",
       {"#", "  main (argc=", ") at ring.c:", "\n#", "  x"},
       {0, 1, 42, 1}},
  };
  for (const Row& row : rows) {
    INFO("text: " << row.text);
    const NumberTemplate split = splitNumbers(row.text);
    CHECK(split.literals == row.literals);
    CHECK(split.numbers == row.numbers);
    REQUIRE(split.literals.size() == split.numbers.size() + 1);
    std::string joined = split.literals[0];
    for (std::size_t i = 0; i < split.numbers.size(); ++i)
      joined += std::to_string(split.numbers[i]) + split.literals[i + 1];
    CHECK(joined == row.text);
  }
}

TEST_CASE("describeValues writes one value, a range or a set", "[core][grouping]") {
  struct Row {
    std::vector<std::int64_t> values;
    std::string expected;
  };
  const Row rows[] = {
      {{7}, "7"},
      {{7, 7, 7}, "7"},
      {{0, 1}, "[0..1]"},
      {{3, 0, 2, 1}, "[0..3]"},
      {{1, 4, 9}, "{1,4,9}"},
      {{0, 1, 2, 3, 7}, "{0..3,7}"},
      {{0, 1, 5, 6}, "{0,1,5,6}"},
      {{9, 5, 6, 7, 0, -2}, "{-2,0,5..7,9}"},
      {{-3, -2, -1}, "[-3..-1]"},
      {{}, "{}"},
  };
  for (const Row& row : rows) {
    INFO("expected: " << row.expected);
    CHECK(describeValues(row.values) == row.expected);
  }
}

TEST_CASE("groupByValues merges texts that differ only in numbers", "[core][grouping]") {
  struct Row {
    std::string what;
    std::map<int, std::string> texts;
    std::string rendered;
  };
  const Row rows[] = {
      {"64 ranks, x = rank", counting(0, 64, "x = ", ""), "[0-63] x = [0..63]\n"},
      {"squares are a set", {{1, "x = 1"}, {2, "x = 4"}, {3, "x = 9"}}, "[1-3] x = {1,4,9}\n"},
      {"identical texts stay one group",
       {{0, "x = 5"}, {1, "x = 5"}, {3, "x = 5"}},
       "[0-1,3] x = 5\n"},
      {"a shared value prints once",
       {{0, "x = 0, n = 4"}, {1, "x = 1, n = 4"}, {2, "x = 2, n = 4"}},
       "[0-2] x = [0..2], n = 4\n"},
      {"every position gets its own values",
       {{0, "a=0 b=10"}, {1, "a=1 b=12"}, {2, "a=1 b=14"}},
       "[0-2] a=[0..1] b={10,12,14}\n"},
      {"negative values", {{0, "v = -1"}, {1, "v = 0"}, {2, "v = 1"}}, "[0-2] v = [-1..1]\n"},
      {"different words do not merge", {{0, "x = 1"}, {1, "y = 2"}}, "[0] x = 1\n[1] y = 2\n"},
      {"different counts of numbers do not merge",
       {{0, "x = 1"}, {1, "x = 1 2"}},
       "[0] x = 1\n[1] x = 1 2\n"},
      {"consecutive hex addresses merge as a range",
       {{0, "#0 0x7f01 in poll ()"}, {1, "#0 0x7f02 in poll ()"}},
       "[0-1] #0 [0x7f01..0x7f02] in poll ()\n"},
      {"ASLR addresses merge as a set, written as gdb wrote them",
       {{0, "#0  0x000055d1a2b3c4d5 in main () at deadlock.c:21"},
        {1, "#0  0x00005612aa00c4d5 in main () at deadlock.c:21"},
        {2, "#0  0x000055d1a2b3c4d5 in main () at deadlock.c:21"}},
       "[0-2] #0  {0x000055d1a2b3c4d5,0x00005612aa00c4d5} in main () at deadlock.c:21\n"},
      {"many hex values are counted",
       {{0, "p=0x10"}, {1, "p=0x20"}, {2, "p=0x30"}, {3, "p=0x40"}, {4, "p=0x50"}, {5, "p=0x50"}},
       "[0-5] p={5 values in 0x10..0x50}\n"},
      {"hex and decimal in one text each get their values",
       {{0, "#1 0xa in f (n=1)"}, {1, "#1 0xc in f (n=2)"}},
       "[0-1] #1 {0xa,0xc} in f (n=[1..2])\n"},
      {"a hex and a decimal number at one place do not merge",
       {{0, "v = 0x10"}, {1, "v = 16"}},
       "[0] v = 0x10\n[1] v = 16\n"},
      {"hex-like words are text", {{0, "r 0xg1"}, {1, "r 0xg2"}}, "[0] r 0xg1\n[1] r 0xg2\n"},
      {"equal hex, different decimals merge",
       {{0, "p = 0x10, n = 1"}, {1, "p = 0x10, n = 2"}},
       "[0-1] p = 0x10, n = [1..2]\n"},
      {"texts without numbers group as before",
       {{0, "running"}, {1, "stopped"}, {2, "running"}},
       "[0,2] running\n[1] stopped\n"},
      {"groups of several ranks each merge",
       {{0, "x = 0"}, {1, "x = 0"}, {2, "x = 2"}, {3, "x = 3"}, {4, "done"}},
       "[0-3] x = {0,2,3}\n[4] done\n"},
      {"merged groups are ordered by lowest rank",
       {{0, "state a"}, {1, "x = 1"}, {2, "x = 2"}, {3, "state a"}},
       "[0,3] state a\n[1-2] x = [1..2]\n"},
      {"multi-line texts merge line by line",
       {{0, "$1 = 0\nline 10\n"}, {1, "$1 = 1\nline 11\n"}},
       "[0-1]:\n  $1 = [0..1]\n  line [10..11]\n"},
      {"a lone text with numbers is unchanged", {{5, "x = 5"}}, "[5] x = 5\n"},
  };
  for (const Row& row : rows) {
    INFO(row.what);
    CHECK(renderGroups(groupByValues(row.texts)) == row.rendered);
  }
}

TEST_CASE("groupByValues of no texts is empty", "[core][grouping]") {
  CHECK(groupByValues({}).empty());
  CHECK(renderGroups(groupByValues({})).empty());
}
