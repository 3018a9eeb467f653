// Merge rules over replies from many PEs (captures 03b, 06c, 06d).
#include <bit>
#include <catch2/catch.hpp>
#include <cstring>

#include "ccs/tree/Merge.hpp"

using namespace mpidbg::ccs;
using Bytes = std::vector<std::uint8_t>;

namespace {

/// Native ints as handler results are written (host byte order).
Bytes ints(std::initializer_list<std::int32_t> values) {
  Bytes out(values.size() * 4);
  std::size_t at = 0;
  for (std::int32_t v : values) {
    std::memcpy(out.data() + at, &v, 4);
    at += 4;
  }
  return out;
}

}  // namespace

TEST_CASE("merge: element-wise rules on native ints", "[ccs][merge]") {
  struct Row {
    MergeRule rule;
    std::vector<Bytes> parts;
    Bytes expected;
  };
  std::vector<Row> rows = {
      {MergeRule::LogicalAnd, {ints({-1}), ints({-1})}, ints({1})},
      {MergeRule::LogicalAnd, {ints({-1}), ints({0})}, ints({0})},
      {MergeRule::LogicalAnd, {ints({7})}, ints({1})},  // normalised for one part
      {MergeRule::LogicalOr, {ints({0, 0}), ints({0, 5})}, ints({0, 1})},
      {MergeRule::BitwiseAnd, {ints({0x0f}), ints({0x3c})}, ints({0x0c})},
      {MergeRule::BitwiseOr, {ints({0x01}), ints({0x10}), ints({0x100})}, ints({0x111})},
      {MergeRule::Sum, {ints({1, 2}), ints({3, 4}), ints({5, 6})}, ints({9, 12})},
      {MergeRule::Sum, {ints({INT32_MAX}), ints({1})}, ints({INT32_MIN})},  // wraps
      {MergeRule::Product, {ints({2, -3}), ints({5, 4})}, ints({10, -12})},
      {MergeRule::Max, {ints({-5, 3}), ints({-7, 9}), ints({-6, 1})}, ints({-5, 9})},
      {MergeRule::Min, {ints({-5, 3}), ints({-7, 9}), ints({-6, 1})}, ints({-7, 1})},
      {MergeRule::Sum, {Bytes{}, Bytes{}}, Bytes{}},
  };
  for (const auto& row : rows) {
    INFO(mergeRuleName(row.rule));
    auto merged = merge(row.rule, row.parts);
    REQUIRE(merged.has_value());
    CHECK(*merged == row.expected);
  }
}

TEST_CASE("merge: broadcast bp/set AND writes native int 1 (06c/06d)", "[ccs][merge]") {
  std::vector<Bytes> parts = {Bytes{0xff, 0xff, 0xff, 0xff}, Bytes{0xff, 0xff, 0xff, 0xff}};
  auto merged = merge(MergeRule::LogicalAnd, parts);
  REQUIRE(merged.has_value());
  CHECK(*merged == ints({1}));
  if constexpr (std::endian::native == std::endian::little) CHECK(*merged == Bytes{1, 0, 0, 0});
}

TEST_CASE("merge: concatenate, pick-any, no parts", "[ccs][merge]") {
  // 03b: two 8-byte status records, PE 0 first.
  std::vector<Bytes> parts = {Bytes{0, 0, 0, 0, 0, 0, 0, 1}, Bytes{0, 0, 0, 1, 0, 0, 0, 1}};
  auto concatenated = merge(MergeRule::Concatenate, parts);
  REQUIRE(concatenated.has_value());
  CHECK(*concatenated == Bytes{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  auto any = merge(MergeRule::PickAny, parts);
  REQUIRE(any.has_value());
  CHECK(*any == parts[0]);
  for (MergeRule rule : {MergeRule::Concatenate, MergeRule::LogicalAnd, MergeRule::PickAny}) {
    auto none = merge(rule, std::span<const Bytes>{});
    REQUIRE(none.has_value());
    CHECK(none->empty());
  }
  // Concatenate and pick-any take any lengths.
  std::vector<Bytes> odd = {Bytes{1}, Bytes{2, 3}, Bytes{}};
  CHECK(merge(MergeRule::Concatenate, odd).value() == Bytes{1, 2, 3});
}

TEST_CASE("merge: bad element-wise input is an Error", "[ccs][merge]") {
  struct Row {
    std::vector<Bytes> parts;
    std::string message;
  };
  std::vector<Row> rows = {
      {{Bytes{1, 2, 3}}, "part 0 has 3 bytes, not a whole number"},
      {{ints({1}), ints({1, 2})}, "part 1 has 8 bytes but part 0 has 4"},
      {{ints({1}), Bytes{}}, "part 1 has 0 bytes but part 0 has 4"},
      {{ints({1}), Bytes{1, 2, 3, 4, 5}}, "part 1 has 5 bytes, not a whole number"},
  };
  for (const auto& row : rows) {
    auto merged = merge(MergeRule::Sum, row.parts);
    REQUIRE_FALSE(merged.has_value());
    CHECK_THAT(merged.error().message, Catch::Contains(row.message));
    CHECK_THAT(merged.error().message, Catch::Contains("sum"));
  }
}

TEST_CASE("merge table: lookup, missing rule, Charm++ defaults", "[ccs][merge]") {
  MergeTable table;
  CHECK_FALSE(table.lookup("x").has_value());
  auto missing = table.ruleFor("debug/some/handler");
  REQUIRE_FALSE(missing.has_value());
  CHECK_THAT(missing.error().message, Catch::Contains("'debug/some/handler' has no merge rule"));
  table.add("x", MergeRule::Max);
  table.add("x", MergeRule::Min);  // replaces
  CHECK(table.lookup("x") == MergeRule::Min);
  CHECK(table.size() == 1);

  auto charm = MergeTable::charmDebugDefaults();
  CHECK(charm.lookup("debug/converse/status") == MergeRule::Concatenate);
  CHECK(charm.lookup("debug/charm/bp/set") == MergeRule::LogicalAnd);
  CHECK(charm.lookup("debug/charm/bp/remove") == MergeRule::LogicalAnd);
  CHECK_FALSE(charm.lookup("debug/converse/freeze").has_value());
}

TEST_CASE("merge rule names and kinds", "[ccs][merge]") {
  CHECK(mergeRuleName(MergeRule::LogicalAnd) == "logical-and");
  CHECK(mergeRuleName(MergeRule::PickAny) == "pick-any");
  CHECK(isElementWise(MergeRule::Max));
  CHECK_FALSE(isElementWise(MergeRule::Concatenate));
  CHECK_FALSE(isElementWise(MergeRule::PickAny));
}
