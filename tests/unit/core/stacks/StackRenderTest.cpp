#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "debugger/core/stacks/StackRender.hpp"
#include "debugger/core/stacks/StackTree.hpp"
#include "tests/unit/core/stacks/StackPaths.hpp"

using mpidbg::ccs::proto::RankStacks;
using mpidbg::ccs::proto::StackFrame;
using mpidbg::ccs::proto::ThreadStack;
using mpidbg::core::stacks::dotEscape;
using mpidbg::core::stacks::renderDot;
using mpidbg::core::stacks::renderLeaves;
using mpidbg::core::stacks::renderTree;
using mpidbg::core::stacks::StackTree;
using mpidbg::core::stacks::stackTreeToJson;
using mpidbg::core::stacks::Symbolizer;
using mpidbg::test::stacks::addThreads;

namespace {

// A small checker for the dot subset renderDot writes: `digraph ID { stmt* }`
// with node statements `ID [attrs];`, edges `ID -> ID [attrs];`, and
// `node [attrs];`, attrs `name="quoted"` separated by commas. Edge ends must
// be declared nodes. Returns an empty string when valid, else the problem.
std::string checkDot(const std::string& text) {
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < text.size();) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '"') {
      std::string token = "\"";
      ++i;
      while (i < text.size() && text[i] != '"') {
        if (text[i] == '\\') {
          if (i + 1 >= text.size()) return "dangling backslash";
          token += text[i++];
        }
        if (text[i] == '\n') return "raw newline in a string";
        token += text[i++];
      }
      if (i >= text.size()) return "unterminated string";
      ++i;
      tokens.push_back(token + "\"");
    } else if (text.compare(i, 2, "->") == 0) {
      tokens.push_back("->");
      i += 2;
    } else if (std::string("{}[];=,").find(c) != std::string::npos) {
      tokens.push_back(std::string(1, c));
      ++i;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      std::string token;
      while (i < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
        token += text[i++];
      tokens.push_back(token);
    } else {
      return std::string("unexpected character '") + c + "'";
    }
  }
  std::size_t at = 0;
  auto next = [&]() -> std::string { return at < tokens.size() ? tokens[at++] : std::string(); };
  auto isId = [](const std::string& t) {
    return !t.empty() && (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_');
  };
  auto attrs = [&]() -> std::string {
    if (next() != "[") return "expected [";
    for (;;) {
      std::string name = next();
      if (name == "]") return "";
      if (name == ",") continue;
      if (!isId(name)) return "bad attribute name " + name;
      if (next() != "=") return "expected =";
      std::string value = next();
      if (value.empty() || (value[0] != '"' && !isId(value))) return "bad attribute value";
    }
  };
  if (next() != "digraph" || !isId(next()) || next() != "{") return "bad header";
  std::set<std::string> nodes;
  std::vector<std::pair<std::string, std::string>> edges;
  for (;;) {
    std::string first = next();
    if (first == "}") break;
    if (!isId(first)) return "bad statement start '" + first + "'";
    std::string second = next();
    if (second == "->") {
      std::string to = next();
      if (!isId(to)) return "bad edge target";
      edges.emplace_back(first, to);
      second = next();
    } else if (first != "node" && !nodes.insert(first).second) {
      return "node declared twice: " + first;
    }
    if (second == "[") {
      --at;
      if (auto problem = attrs(); !problem.empty()) return problem;
      second = next();
    }
    if (second != ";") return "expected ; after " + first;
  }
  if (at != tokens.size()) return "text after the closing brace";
  for (const auto& [from, to] : edges)
    if (!nodes.count(from) || !nodes.count(to)) return "edge to an undeclared node";
  return "";
}

// The `dot` program when it is installed (it is not a dependency).
std::string findDot() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = dir + "/dot";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace

TEST_CASE("renderDot writes a digraph with rank sets on the edges", "[core][stacks][dot]") {
  StackTree tree;
  addThreads(tree, {{0, "main > solve"}, {1, "main > solve"}, {2, "main > say \"hi\\n\""}});
  const std::string dot = renderDot(tree);
  CHECK(dot ==
        "digraph stacks {\n"
        "  node [shape=box];\n"
        "  n0 [label=\"/\"];\n"
        "  n1 [label=\"main\"];\n"
        "  n0 -> n1 [label=\"3:[0-2]\"];\n"
        "  n2 [label=\"solve\"];\n"
        "  n1 -> n2 [label=\"2:[0-1]\"];\n"
        "  n3 [label=\"say \\\"hi\\\\n\\\"\"];\n"
        "  n1 -> n3 [label=\"1:[2]\"];\n"
        "}\n");
  CHECK(checkDot(dot).empty());
  CHECK(checkDot(renderDot(StackTree())).empty());

  // The checker does reject what is broken.
  CHECK_FALSE(checkDot("digraph s {\n  n0 [label=\"a\"b\"];\n}\n").empty());
  CHECK_FALSE(checkDot("digraph s {\n  n0 -> n1;\n}\n").empty());
  CHECK_FALSE(checkDot("digraph s {\n  n0 [label=\"x\"]\n").empty());

  const std::string dotProgram = findDot();
  if (!dotProgram.empty()) {
    const std::string file = "/tmp/mpidbg-stacks-test-" + std::to_string(::getpid()) + ".dot";
    std::ofstream(file) << dot;
    const int status = std::system((dotProgram + " -Tcanon " + file + " > /dev/null").c_str());
    ::unlink(file.c_str());
    CHECK(status == 0);
  }
}

TEST_CASE("dotEscape escapes quotes, backslashes and newlines", "[core][stacks][dot]") {
  struct Row {
    const char* in;
    const char* out;
  };
  const Row rows[] = {
      {"main", "main"},   {"operator\"\" _km", "operator\\\"\\\" _km"},
      {"a\\b", "a\\\\b"}, {"two\nlines", "two\\nlines"},
      {"", ""},
  };
  for (const auto& row : rows) CHECK(dotEscape(row.in) == row.out);
}

TEST_CASE("stackTreeToJson gives the tree, classes and failures", "[core][stacks][json]") {
  StackTree tree;
  addThreads(tree, {{0, "main@app.c:3 > solve"}, {1, "main@app.c:3 > solve"}, {2, "main > io"}});
  tree.addFailure(3, "did not answer within 5 s");
  const auto j = stackTreeToJson(tree);
  CHECK(j["version"] == 1);
  CHECK(j["key"] == "function");
  REQUIRE(j["tree"].size() == 1);
  const auto& main = j["tree"][0];
  CHECK(main["label"] == "main");
  CHECK(main["file"] == "app.c");
  CHECK(main["line"] == 3);
  CHECK(main["ranks"] == "[0-2]");
  CHECK(main["rank_count"] == 3);
  CHECK(main["threads"] == 3);
  CHECK(main["ended"] == "[]");
  REQUIRE(main["children"].size() == 2);
  CHECK(main["children"][0]["label"] == "solve");
  CHECK(main["children"][0]["ranks"] == "[0-1]");
  CHECK(main["children"][0]["ended"] == "[0-1]");
  CHECK(main["children"][1]["label"] == "io");
  REQUIRE(j["classes"].size() == 2);
  CHECK(j["classes"][0]["ranks"] == "[0-1]");
  CHECK(j["classes"][0]["paths"] == nlohmann::json::array({{"main", "solve"}}));
  REQUIRE(j["failures"].size() == 1);
  CHECK(j["failures"][0]["ranks"] == "[3]");
  CHECK(j["failures"][0]["reason"] == "did not answer within 5 s");
  CHECK(j["warnings"].empty());
  CHECK(nlohmann::json::parse(j.dump()) == j);
}

TEST_CASE("StackTree::addRank symbolizes RankStacks and keeps failures aside",
          "[core][stacks][tree]") {
  auto rankStacks = [](int rank) {
    RankStacks stacks;
    stacks.worldRank = rank;
    stacks.modules = {{"/nonexistent/bin/app", "ab12"}, {"[vdso]", ""}};
    ThreadStack mainThread;
    mainThread.tid = 100 + rank;
    mainThread.mainThread = true;
    mainThread.name = "app";
    // Innermost first: in the vDSO, called from app, called from nowhere known.
    mainThread.frames = {StackFrame{1, 0x9a0, true}, StackFrame{0, 0x2000, false},
                         StackFrame{-1, 0x7f0000001000, false}};
    ThreadStack worker;
    worker.tid = 200 + rank;
    worker.name = "worker";
    worker.error = "did not answer within 200 ms";
    stacks.threads = {mainThread, worker};
    return stacks;
  };
  Symbolizer symbolizer;
  StackTree tree;
  tree.addRank(rankStacks(0), symbolizer);
  tree.addRank(rankStacks(2), symbolizer);
  RankStacks empty;
  empty.worldRank = 1;
  tree.addRank(empty, symbolizer);
  CHECK(symbolizer.modulesOpened() == 1);
  CHECK(symbolizer.lookups() == 3);
  CHECK(renderTree(tree) ==
        "?? [0,2] (2 ranks)\n"
        "└─ ?? (app) [0,2] (2 ranks)\n"
        "   └─ [vdso] [0,2] (2 ranks)\n"
        "not captured [0,2]: thread 'worker': did not answer within 200 ms\n"
        "not captured [1]: no application threads reported\n"
        "warning: cannot open /nonexistent/bin/app: No such file or directory\n");

  StackTree full(mpidbg::core::stacks::NodeKey::FunctionAndLine);
  full.addRank(rankStacks(0), symbolizer);
  CHECK(renderLeaves(full) ==
        "?? (0x7f0000001000) > ?? (app+0x2000) > [vdso]  [0]\n"
        "not captured [0]: thread 'worker': did not answer within 200 ms\n"
        "warning: cannot open /nonexistent/bin/app: No such file or directory\n");
}
