#pragma once

#include <cstdint>
#include <string_view>
#include <tuple>
#include <vector>

#include "ccs/proto/BinaryMessage.hpp"

namespace mpidbg::ccs::proto {

/// Charm++'s built-in handler that tells a CCS client the job's shape
/// (conv-ccs ccs-builtins.C, `ccs_getinfo`; CcsConnect calls it). Data: none.
/// Reply: NodeTable. mpidbg's runtime serves it too, one PE per rank, so
/// `mpidbg-ccs` and Charm++'s own clients see an MPI job as nodes of one PE.
inline constexpr std::string_view kGetInfoHandler = "ccs_getinfo";

/// The ccs_getinfo reply: the node count, then the PE count of each node,
/// big-endian int32s ([nodes][pes of node 0]...[pes of node nodes-1]).
struct NodeTable {
  static constexpr std::string_view kName = "ccs_getinfo reply";
  /// Bounds a decoder holds a reply to: nodes, and PEs on one node.
  static constexpr std::size_t kMaxNodes = 1'000'000;
  static constexpr std::int32_t kMaxPesPerNode = 1'000'000;

  std::vector<std::int32_t> pesPerNode;  ///< one entry per node, each >= 1

  static constexpr auto parts() {
    return std::tuple{int32ListPart("node table", &NodeTable::pesPerNode, kMaxNodes, 1, kMaxPesPerNode)};
  }
};

}  // namespace mpidbg::ccs::proto
