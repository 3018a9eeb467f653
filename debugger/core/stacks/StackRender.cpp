#include "debugger/core/stacks/StackRender.hpp"

#include <cstddef>
#include <vector>

namespace mpidbg::core::stacks {

namespace {

std::string countText(const StackNode& node) {
  const std::size_t ranks = node.ranks.size();
  std::string text = "(" + std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks");
  if (node.threads != ranks) text += ", " + std::to_string(node.threads) + " threads";
  return text + ")";
}

// Children of `node` under `indent`; the root's children (depth 0) sit at
// the margin without branches.
void treeLines(const StackNode& node, int depth, const std::string& indent, std::string& out) {
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    const StackNode& child = node.children[i];
    const bool last = i + 1 == node.children.size();
    std::string childIndent = indent;
    out += indent;
    if (depth > 0) {
      out += last ? "\u2514\u2500 " : "\u251c\u2500 ";
      childIndent += last ? "   " : "\u2502  ";
    }
    out += child.label + " " + child.ranks.toString() + " " + countText(child) + "\n";
    treeLines(child, depth + 1, childIndent, out);
  }
}

std::string footer(const StackTree& tree) {
  std::string out;
  for (const auto& failure : tree.failures())
    out += "not captured " + failure.ranks.toString() + ": " + failure.reason + "\n";
  for (const auto& warning : tree.warnings()) out += "warning: " + warning + "\n";
  return out;
}

void leafLines(const StackNode& node, std::vector<const std::string*>& path, std::string& out) {
  if (!node.endRanks.empty() && !path.empty()) {
    for (std::size_t i = 0; i < path.size(); ++i) out += (i == 0 ? "" : " > ") + *path[i];
    out += "  " + node.endRanks.toString() + "\n";
  }
  for (const auto& child : node.children) {
    path.push_back(&child.label);
    leafLines(child, path, out);
    path.pop_back();
  }
}

std::string joinPath(const std::vector<std::string>& path) {
  if (path.empty()) return "(no frames)";
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) out += (i == 0 ? "" : " > ") + path[i];
  return out;
}

void dotNodes(const StackNode& node, int id, int& next, std::string& out) {
  for (const auto& child : node.children) {
    const int childId = next++;
    out += "  n" + std::to_string(childId) + " [label=\"" + dotEscape(child.label) + "\"];\n";
    out += "  n" + std::to_string(id) + " -> n" + std::to_string(childId) + " [label=\"" +
           std::to_string(child.ranks.size()) + ":" + dotEscape(child.ranks.toString()) + "\"];\n";
    dotNodes(child, childId, next, out);
  }
}

nlohmann::json nodeJson(const StackNode& node) {
  nlohmann::json children = nlohmann::json::array();
  for (const auto& child : node.children) children.push_back(nodeJson(child));
  return {{"label", node.label},
          {"function", node.frame.function},
          {"file", node.frame.file},
          {"line", node.frame.line},
          {"inlined", node.frame.inlined},
          {"ranks", node.ranks.toString()},
          {"rank_list", node.ranks.toVector()},
          {"rank_count", node.ranks.size()},
          {"threads", node.threads},
          {"ended", node.endRanks.toString()},
          {"children", std::move(children)}};
}

}  // namespace

std::string renderTree(const StackTree& tree) {
  std::string out;
  treeLines(tree.root(), 0, "", out);
  out += footer(tree);
  return out.empty() ? "no stacks\n" : out;
}

std::string renderLeaves(const StackTree& tree) {
  std::string out;
  std::vector<const std::string*> path;
  leafLines(tree.root(), path, out);
  out += footer(tree);
  return out.empty() ? "no stacks\n" : out;
}

std::string renderClasses(const StackTree& tree) {
  std::string out;
  int number = 1;
  for (const auto& cls : tree.equivalenceClasses()) {
    const std::string prefix = std::to_string(number++) + ": " + cls.ranks.toString() + " ";
    for (std::size_t i = 0; i < cls.paths.size(); ++i)
      out += (i == 0 ? prefix : std::string(prefix.size(), ' ')) + joinPath(cls.paths[i]) + "\n";
  }
  out += footer(tree);
  return out.empty() ? "no stacks\n" : out;
}

std::string renderDot(const StackTree& tree) {
  std::string out = "digraph stacks {\n  node [shape=box];\n  n0 [label=\"/\"];\n";
  int next = 1;
  dotNodes(tree.root(), 0, next, out);
  return out + "}\n";
}

nlohmann::json stackTreeToJson(const StackTree& tree) {
  nlohmann::json j;
  j["version"] = 1;
  j["key"] = tree.key() == NodeKey::FunctionAndLine ? "full" : "function";
  j["tree"] = nlohmann::json::array();
  for (const auto& child : tree.root().children) j["tree"].push_back(nodeJson(child));
  j["classes"] = nlohmann::json::array();
  for (const auto& cls : tree.equivalenceClasses())
    j["classes"].push_back(
        {{"ranks", cls.ranks.toString()}, {"rank_list", cls.ranks.toVector()}, {"rank_count", cls.ranks.size()},
         {"paths", cls.paths}});
  j["failures"] = nlohmann::json::array();
  for (const auto& failure : tree.failures())
    j["failures"].push_back(
        {{"ranks", failure.ranks.toString()}, {"rank_list", failure.ranks.toVector()}, {"reason", failure.reason}});
  j["warnings"] = tree.warnings();
  return j;
}

std::string dotEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace mpidbg::core::stacks
