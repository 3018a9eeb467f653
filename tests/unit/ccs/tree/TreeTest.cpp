// The contiguous-slice forwarding tree and Charm++'s multicast rule.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "ccs/tree/Tree.hpp"

using namespace mpidbg::ccs;

TEST_CASE("tree: children of a slice", "[ccs][tree]") {
  struct Row {
    std::size_t fanOut;
    Slice slice;
    std::vector<Slice> expected;
  };
  std::vector<Row> rows = {
      {4, {0, 0}, {}},
      {4, {0, 1}, {}},
      {4, {0, 2}, {{1, 2}}},
      {4, {0, 5}, {{1, 2}, {2, 3}, {3, 4}, {4, 5}}},
      {4, {0, 7}, {{1, 3}, {3, 5}, {5, 6}, {6, 7}}},  // sizes 2,2,1,1
      {2, {0, 7}, {{1, 4}, {4, 7}}},
      {2, {10, 14}, {{11, 13}, {13, 14}}},
      {1, {0, 4}, {{1, 4}}},  // a chain
      {0, {0, 3}, {{1, 3}}},  // clamped to 1
  };
  for (const auto& row : rows) {
    INFO("fan-out " << row.fanOut << " slice [" << row.slice.begin << "," << row.slice.end << ")");
    CHECK(Tree(row.fanOut).children(row.slice) == row.expected);
  }
  CHECK(Tree(1000).fanOut() == kMaxFanOut);
}

TEST_CASE("tree: depth", "[ccs][tree]") {
  struct Row {
    std::size_t fanOut, count, depth;
  };
  std::vector<Row> rows = {{4, 0, 0},  {4, 1, 0}, {4, 2, 1}, {4, 5, 1},  {4, 6, 2}, {4, 21, 2},
                           {4, 22, 3}, {2, 7, 2}, {2, 8, 3}, {2, 64, 6}, {1, 5, 4}};
  for (const auto& row : rows) {
    INFO("fan-out " << row.fanOut << " count " << row.count);
    CHECK(Tree(row.fanOut).depth(row.count) == row.depth);
  }
}

TEST_CASE("tree: layout covers every position once, subtrees contiguous", "[ccs][tree]") {
  for (std::size_t fanOut : {1u, 2u, 3u, 4u, 8u}) {
    for (std::size_t count : {1u, 2u, 7u, 64u, 1000u}) {
      Tree tree(fanOut);
      auto layout = tree.layout(count);
      REQUIRE(layout.size() == count);
      // Walk from the root: every position is reached exactly once, and the
      // deepest walk equals depth().
      std::vector<int> seen(count, 0);
      std::size_t deepest = 0;
      std::size_t tableBytes = 0;  // PE-table entries sent down the tree
      std::function<void(Slice, std::size_t)> walk = [&](Slice s, std::size_t level) {
        ++seen[s.begin];
        CHECK(layout[s.begin] == s);
        deepest = std::max(deepest, level);
        for (Slice c : tree.children(s)) {
          CHECK(c.begin > s.begin);
          CHECK(c.end <= s.end);
          tableBytes += c.size();
          walk(c, level + 1);
        }
      };
      walk(Slice{0, count}, 0);
      for (int n : seen) CHECK(n == 1);
      CHECK(deepest == tree.depth(count));
      // O(N log N): each entry is carried once per ancestor level.
      CHECK(tableBytes <= count * (tree.depth(count) + 1));
    }
  }
}

TEST_CASE("tree: Charm++ multicast positions 4i+1..4i+4", "[ccs][tree]") {
  CHECK(charmMulticastChildren(0, 10) == std::vector<std::size_t>{1, 2, 3, 4});
  CHECK(charmMulticastChildren(1, 10) == std::vector<std::size_t>{5, 6, 7, 8});
  CHECK(charmMulticastChildren(2, 10) == std::vector<std::size_t>{9});
  CHECK(charmMulticastChildren(3, 10).empty());
  CHECK(charmMulticastChildren(0, 1).empty());
  CHECK(charmMulticastChildren(SIZE_MAX / 2, SIZE_MAX).empty());  // no overflow
}
