#pragma once

// The merged stack tree (STAT's call-prefix tree): every rank's threads,
// symbolized, merged from the outermost frame down, each node carrying the
// set of ranks that have a thread through it.

#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "ccs/proto/StackProtocol.hpp"
#include "debugger/core/RankSet.hpp"
#include "debugger/core/stacks/Symbolizer.hpp"

namespace mpidbg::core::stacks {

/// What makes two frames the same node.
enum class NodeKey {
  Function,         ///< the function name only (the default view)
  FunctionAndLine,  ///< function and source file:line (`--full`)
};

/// The label a frame gets in the tree for `key`; nodes with equal labels
/// merge. Function: "solve"; "?? (libx.so)" for an unknown frame (module
/// basename, or "??" alone when the pc lay in no module); "?? x17 (libx.so)"
/// for a run of 17 unknown frames folded into one (function "?? x17"). FunctionAndLine:
/// "solve (solver.c:88)" (file basename), "write+0x14 (libc.so.6)" for a
/// symbol-table frame, "?? (libx.so+0x1a2b)" for an unknown one, "?? (0x7f..)"
/// for a pc in no module; a frame without a line keeps its Function label.
std::string frameLabel(const SymbolFrame& frame, NodeKey key);

/// One node of the tree: a frame shared by the threads of `ranks` whose
/// call paths have the same prefix down to here.
struct StackNode {
  std::string label;  ///< frameLabel() of the frame; what nodes are keyed on
  /// The frame of the first thread added through this node (for file, line
  /// and JSON; in Function mode other threads' lines may differ).
  SymbolFrame frame;
  RankSet ranks;               ///< ranks with at least one thread through this node
  std::size_t threads = 0;     ///< threads through this node (>= ranks.size())
  RankSet endRanks;            ///< ranks with a thread whose innermost frame is this node
  std::size_t endThreads = 0;  ///< threads whose innermost frame is this node
  /// Callees, ordered by lowest rank, then label (deterministic for rendering).
  std::vector<StackNode> children;
};

/// An equivalence class (STAT): ranks whose threads have exactly the same set
/// of call paths.
struct EquivalenceClass {
  RankSet ranks;  ///< the ranks of the class, never empty
  /// The distinct call paths of the class, outermost frame first, as labels;
  /// in the order of the lowest rank's threads (main thread first). paths[0]
  /// is the representative path.
  std::vector<std::vector<std::string>> paths;
};

/// Ranks left out of the tree, grouped by reason.
struct StackFailure {
  RankSet ranks;       ///< the ranks with this reason, never empty
  std::string reason;  ///< "did not answer within 5 s", "thread 'worker': unwinding failed: ..."
};

/// The merged tree of a job's stacks. Build it with addRank() (real stacks,
/// symbolized) or addThread() (already symbolized paths; tests, benchmarks),
/// then read root(), equivalenceClasses(), failures() and warnings(). Adding
/// is order-independent: the same threads in any order give the same labels,
/// rank sets and shape.
class StackTree {
 public:
  /// Label frames with `key` (see frameLabel()).
  explicit StackTree(NodeKey key = NodeKey::Function);

  /// Symbolizes every thread of `stacks` with `symbolizer` and adds it under
  /// stacks.worldRank. A thread with an error is not added: its reason goes
  /// to failures() as "main thread 'NAME': ERROR" or "thread 'NAME': ERROR"
  /// (and the rank into the tree with its other threads); a rank with no
  /// usable thread at all goes to failures() only. Symbolizer warnings are
  /// collected into warnings().
  /// `filter`, when given, receives each thread's symbolized frames
  /// (innermost first) and returns the frames to add (e.g. cut below the
  /// MPI call).
  void addRank(const ccs::proto::RankStacks& stacks, Symbolizer& symbolizer,
               const std::function<std::vector<SymbolFrame>(std::vector<SymbolFrame>)>& filter = {});

  /// Adds one thread of `rank`: its symbolized frames innermost first, with
  /// inlined frames expanded (the concatenation of Symbolized::frames of its
  /// machine frames). Frames of the signal trampoline `__restore_rt` are
  /// dropped. A truncated stack (its outermost frames lost) gets a
  /// "[truncated]" frame at the outermost end. An empty thread adds the rank
  /// to the root only.
  void addThread(int rank, std::span<const SymbolFrame> innermostFirst, bool truncated = false);

  /// Keeps `rank` aside with the reason its stacks could not be captured
  /// ("did not answer within 5 s"); it is not in the tree.
  void addFailure(int rank, const std::string& reason);

  /// The invisible root: label "", ranks = every rank with a thread; its
  /// children are the outermost frames ("_start", "main", "start_thread").
  const StackNode& root() const { return root_; }
  /// How frames are labelled (as given to the constructor).
  NodeKey key() const { return key_; }

  /// The equivalence classes, largest first, ties by lowest rank.
  std::vector<EquivalenceClass> equivalenceClasses() const;

  /// Failures grouped by identical reason, ordered by lowest rank.
  std::vector<StackFailure> failures() const;

  /// Distinct symbolizer warnings (missing or rebuilt module files), sorted.
  const std::set<std::string>& warnings() const { return warnings_; }

 private:
  NodeKey key_;
  StackNode root_;
  /// Per rank, its threads' paths as labels (outermost first), in order added.
  std::map<int, std::vector<std::vector<std::string>>> paths_;
  std::map<int, std::vector<std::string>> failures_;
  std::set<std::string> warnings_;
};

}  // namespace mpidbg::core::stacks
