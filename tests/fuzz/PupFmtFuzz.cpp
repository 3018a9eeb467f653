// libFuzzer target: the `.fmt` item decoder (ccs/proto/PupFmt.hpp), which reads
// ccs_list_items.fmt replies from ranks and Charm++ programs. Whatever decodes
// must respect the tree's shape rules, and flatten() and renderTree() must
// cover every node.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "FuzzCheck.hpp"
#include "ccs/proto/PupFmt.hpp"

using namespace mpidbg::ccs::pupfmt;

namespace {

/// Checks `node`'s shape; returns the number of leaves and empty containers
/// (what flatten() yields) and adds the node count to `nodes`.
std::size_t check(const Node& node, std::size_t depth, std::size_t& nodes) {
  ++nodes;
  // Each array or object frame adds at most two levels (the frame and an item object).
  FUZZ_CHECK(depth <= 2 * kMaxDepth + 1);
  FUZZ_CHECK(node.kind != Node::Kind::List || depth <= 1);  // a top-level array only
  bool container = node.kind == Node::Kind::Array || node.kind == Node::Kind::List ||
                   node.kind == Node::Kind::Object;
  if (!container) {
    FUZZ_CHECK(node.children.empty());
    FUZZ_CHECK(node.kind != Node::Kind::Pointer || node.value.starts_with("0x"));
    return 1;
  }
  FUZZ_CHECK(node.value.empty());
  if (node.children.empty()) return 1;
  std::size_t leaves = 0;
  for (const auto& child : node.children) leaves += check(child, depth + 1, nodes);
  return leaves;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto node = decode(std::span<const std::uint8_t>(data, size));
  if (!node) {
    FUZZ_CHECK(!node.error().message.empty());
    return 0;
  }
  std::size_t nodes = 0;
  std::size_t leaves = check(*node, 0, nodes);
  FUZZ_CHECK(flatten(*node, "x").size() == leaves);
  std::string tree = renderTree(*node);
  FUZZ_CHECK(!tree.empty() && tree.back() == '\n');
  std::size_t lines = 0;
  for (char c : tree) lines += c == '\n';
  // One line per node; an unlabelled root container has no line of its own
  // (but an empty one renders as "{}" or "[]").
  bool container = node->kind != Node::Kind::Scalar && node->kind != Node::Kind::String &&
                   node->kind != Node::Kind::Bytes && node->kind != Node::Kind::Pointer;
  if (container && node->label.empty())
    FUZZ_CHECK(lines == (node->children.empty() ? 1 : nodes - 1));
  else
    FUZZ_CHECK(lines == nodes);
  return 0;
}
