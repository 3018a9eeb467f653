#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "debugger/core/stacks/StackRender.hpp"
#include "debugger/core/stacks/StackTree.hpp"
#include "tests/unit/core/stacks/StackPaths.hpp"

using mpidbg::core::RankSet;
using mpidbg::core::stacks::NodeKey;
using mpidbg::core::stacks::renderClasses;
using mpidbg::core::stacks::renderLeaves;
using mpidbg::core::stacks::renderTree;
using mpidbg::core::stacks::StackNode;
using mpidbg::core::stacks::StackTree;
using mpidbg::test::stacks::addThreads;
using mpidbg::test::stacks::pathFrames;
using mpidbg::test::stacks::ThreadRow;

namespace {

const StackNode* child(const StackNode& node, const std::string& label) {
  for (const auto& c : node.children)
    if (c.label == label) return &c;
  return nullptr;
}

// 64 ranks: 0-62 in the allreduce, 63 writing.
std::vector<ThreadRow> allreduceAndIo() {
  std::vector<ThreadRow> rows;
  for (int rank = 0; rank < 63; ++rank) rows.push_back({rank, "main > solve > MPI_Allreduce"});
  rows.push_back({63, "main > io > fwrite"});
  return rows;
}

}  // namespace

TEST_CASE("StackTree merges ranks into a call-prefix tree with rank sets", "[core][stacks][tree]") {
  StackTree tree;
  addThreads(tree, allreduceAndIo());
  const StackNode& root = tree.root();
  CHECK(root.ranks == RankSet::range(0, 63));
  REQUIRE(root.children.size() == 1);
  const StackNode& main = root.children[0];
  CHECK(main.label == "main");
  CHECK(main.ranks == RankSet::range(0, 63));
  CHECK(main.threads == 64);
  REQUIRE(main.children.size() == 2);
  CHECK(main.children[0].label == "solve");
  CHECK(main.children[0].ranks == RankSet::range(0, 62));
  CHECK(main.children[1].label == "io");
  CHECK(main.children[1].ranks == RankSet::range(63, 63));
  const StackNode* allreduce = child(main.children[0], "MPI_Allreduce");
  REQUIRE(allreduce != nullptr);
  CHECK(allreduce->endRanks == RankSet::range(0, 62));
  CHECK(allreduce->children.empty());
  CHECK(main.endRanks.empty());
}

TEST_CASE("StackTree renders a text tree, leaves and classes", "[core][stacks][render]") {
  StackTree tree;
  addThreads(tree, allreduceAndIo());
  CHECK(renderTree(tree) ==
        "main [0-63] (64 ranks)\n"
        "├─ solve [0-62] (63 ranks)\n"
        "│  └─ MPI_Allreduce [0-62] (63 ranks)\n"
        "└─ io [63] (1 rank)\n"
        "   └─ fwrite [63] (1 rank)\n");
  CHECK(renderLeaves(tree) ==
        "main > solve > MPI_Allreduce  [0-62]\n"
        "main > io > fwrite  [63]\n");
  CHECK(renderClasses(tree) ==
        "1: [0-62] main > solve > MPI_Allreduce\n"
        "2: [63] main > io > fwrite\n");
}

TEST_CASE("StackTree is independent of the order ranks and threads arrive in",
          "[core][stacks][tree]") {
  std::vector<ThreadRow> rows = {
      {0, "main > solve > MPI_Allreduce"}, {1, "main > solve > MPI_Allreduce"},
      {2, "main > solve > compute"},       {3, "main > io > fwrite"},
      {3, "start_thread > worker > poll"}, {1, "start_thread > worker > poll"},
  };
  StackTree forward;
  addThreads(forward, rows);
  std::reverse(rows.begin(), rows.end());
  StackTree backward;
  addThreads(backward, rows);
  CHECK(renderTree(forward) == renderTree(backward));
  CHECK(renderLeaves(forward) == renderLeaves(backward));
  CHECK(renderTree(forward) ==
        "main [0-3] (4 ranks)\n"
        "├─ solve [0-2] (3 ranks)\n"
        "│  ├─ MPI_Allreduce [0-1] (2 ranks)\n"
        "│  └─ compute [2] (1 rank)\n"
        "└─ io [3] (1 rank)\n"
        "   └─ fwrite [3] (1 rank)\n"
        "start_thread [1,3] (2 ranks)\n"
        "└─ worker [1,3] (2 ranks)\n"
        "   └─ poll [1,3] (2 ranks)\n");
}

TEST_CASE("StackTree counts threads separately from ranks", "[core][stacks][tree]") {
  StackTree tree;
  addThreads(tree, {{0, "main > omp_wait"}, {0, "main > omp_wait"}, {1, "main > omp_wait"}});
  CHECK(renderTree(tree) ==
        "main [0-1] (2 ranks, 3 threads)\n"
        "└─ omp_wait [0-1] (2 ranks, 3 threads)\n");
  // A set of paths: two threads on one path are the same class as one.
  auto classes = tree.equivalenceClasses();
  REQUIRE(classes.size() == 1);
  CHECK(classes[0].ranks == RankSet::range(0, 1));
}

TEST_CASE("StackTree shows stacks that end at an inner node as leaves", "[core][stacks][render]") {
  StackTree tree;
  addThreads(tree, {{0, "main > solve"}, {1, "main > solve > MPI_Recv"}, {2, "main"}});
  CHECK(renderLeaves(tree) ==
        "main  [2]\n"
        "main > solve  [0]\n"
        "main > solve > MPI_Recv  [1]\n");
}

TEST_CASE("StackTree drops the signal trampoline and marks truncated stacks",
          "[core][stacks][tree]") {
  StackTree tree;
  addThreads(tree, {{0, "main > solve > __restore_rt > handler"},
                    {1, "main > solve > handler"},
                    {2, "deep > deeper", true}});
  CHECK(renderLeaves(tree) ==
        "main > solve > handler  [0-1]\n"
        "[truncated] > deep > deeper  [2]\n");
}

TEST_CASE("StackTree keys nodes by function, or by function and line in full mode",
          "[core][stacks][tree]") {
  const std::vector<ThreadRow> rows = {
      {0, "main@app.c:10 > solve@/src/solver.c:88 > MPI_Barrier"},
      {1, "main@app.c:10 > solve@/src/solver.c:91 > MPI_Barrier"},
      {2, "main@app.c:10 > solve@/src/solver.c:88 > MPI_Barrier"},
  };
  StackTree byFunction;
  addThreads(byFunction, rows);
  CHECK(renderLeaves(byFunction) == "main > solve > MPI_Barrier  [0-2]\n");

  StackTree full(NodeKey::FunctionAndLine);
  addThreads(full, rows);
  CHECK(renderLeaves(full) ==
        "main (app.c:10) > solve (solver.c:88) > MPI_Barrier  [0,2]\n"
        "main (app.c:10) > solve (solver.c:91) > MPI_Barrier  [1]\n");
  CHECK(renderClasses(full) ==
        "1: [0,2] main (app.c:10) > solve (solver.c:88) > MPI_Barrier\n"
        "2: [1] main (app.c:10) > solve (solver.c:91) > MPI_Barrier\n");
}

TEST_CASE("Equivalence classes group ranks by their set of thread paths",
          "[core][stacks][classes]") {
  struct Row {
    const char* name;
    std::vector<ThreadRow> threads;
    const char* classes;
  };
  const Row rows[] = {
      {"one class", {{0, "main > a"}, {1, "main > a"}, {2, "main > a"}}, "1: [0-2] main > a\n"},
      {"largest first, ties by lowest rank",
       {{5, "main > b"}, {0, "main > c"}, {1, "main > a"}, {2, "main > a"}, {3, "main > b"}},
       "1: [1-2] main > a\n"
       "2: [3,5] main > b\n"
       "3: [0] main > c\n"},
      {"several threads: all paths shown, lowest rank's thread order",
       {{0, "main > a"}, {0, "start > w"}, {1, "start > w"}, {1, "main > a"}, {2, "main > a"}},
       "1: [0-1] main > a\n"
       "         start > w\n"
       "2: [2] main > a\n"},
  };
  for (const auto& row : rows) {
    INFO(row.name);
    StackTree tree;
    addThreads(tree, row.threads);
    CHECK(renderClasses(tree) == row.classes);
  }
}

TEST_CASE("StackTree keeps failed ranks aside with their reason", "[core][stacks][tree]") {
  StackTree tree;
  addThreads(tree, {{0, "main > MPI_Barrier"}, {2, "main > MPI_Barrier"}});
  tree.addFailure(1, "did not answer within 5 s");
  tree.addFailure(3, "did not answer within 5 s");
  tree.addFailure(4, "rank exited with code 1");
  auto failures = tree.failures();
  REQUIRE(failures.size() == 2);
  CHECK(failures[0].ranks.toString() == "[1,3]");
  CHECK(failures[1].ranks.toString() == "[4]");
  CHECK_FALSE(tree.root().ranks.contains(1));
  CHECK(renderTree(tree) ==
        "main [0,2] (2 ranks)\n"
        "└─ MPI_Barrier [0,2] (2 ranks)\n"
        "not captured [1,3]: did not answer within 5 s\n"
        "not captured [4]: rank exited with code 1\n");
  CHECK(renderClasses(tree) ==
        "1: [0,2] main > MPI_Barrier\n"
        "not captured [1,3]: did not answer within 5 s\n"
        "not captured [4]: rank exited with code 1\n");
}

TEST_CASE("StackTree renders an empty job", "[core][stacks][render]") {
  StackTree tree;
  CHECK(renderTree(tree) == "no stacks\n");
  CHECK(renderLeaves(tree) == "no stacks\n");
  CHECK(renderClasses(tree) == "no stacks\n");
  CHECK(tree.equivalenceClasses().empty());
}

TEST_CASE("pathFrames builds innermost-first frames", "[core][stacks][tree]") {
  auto frames = pathFrames("main@app.c:10 > solve");
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].function == "solve");
  CHECK(frames[1].function == "main");
  CHECK(frames[1].file == "app.c");
  CHECK(frames[1].line == 10);
}
