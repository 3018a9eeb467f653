#pragma once

// Synthetic symbolized stacks for the stack-tree tests, written the way
// people read them: "main@app.c:10 > solve > MPI_Allreduce", outermost first.

#include <string>
#include <string_view>
#include <vector>

#include "debugger/core/stacks/StackTree.hpp"

namespace mpidbg::test::stacks {

/// One thread of one rank: its path outermost first, frames separated by
/// " > ", each "function" or "function@file:line".
struct ThreadRow {
  int rank = 0;
  std::string path;
  bool truncated = false;
};

/// The frames of `path`, innermost first (as Symbolized frames come), with
/// SymbolSource::Dwarf.
inline std::vector<core::stacks::SymbolFrame> pathFrames(std::string_view path) {
  std::vector<core::stacks::SymbolFrame> frames;
  while (!path.empty()) {
    auto separator = path.find(" > ");
    std::string_view item = path.substr(0, separator);
    path = separator == std::string_view::npos ? std::string_view() : path.substr(separator + 3);
    core::stacks::SymbolFrame frame;
    frame.source = core::stacks::SymbolSource::Dwarf;
    auto at = item.find('@');
    frame.function = std::string(item.substr(0, at));
    if (at != std::string_view::npos) {
      std::string_view where = item.substr(at + 1);
      auto colon = where.rfind(':');
      frame.file = std::string(where.substr(0, colon));
      frame.line = std::stoi(std::string(where.substr(colon + 1)));
    }
    frames.insert(frames.begin(), frame);
  }
  return frames;
}

/// Adds every row to `tree` in order.
inline void addThreads(core::stacks::StackTree& tree, const std::vector<ThreadRow>& rows) {
  for (const auto& row : rows) tree.addThread(row.rank, pathFrames(row.path), row.truncated);
}

}  // namespace mpidbg::test::stacks
