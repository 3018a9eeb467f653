#pragma once

// Renderings of a merged stack tree: a text tree, one line per leaf, the
// equivalence classes, Graphviz dot, and JSON. All are pure functions of the
// tree; text outputs end every line with '\n'. Labels come from the tree
// (frameLabel()), so a tree built with NodeKey::FunctionAndLine (`--full`)
// shows file:line per frame everywhere.

#include <nlohmann/json.hpp>
#include <string>

#include "debugger/core/stacks/StackTree.hpp"

namespace mpidbg::core::stacks {

/// The tree for a terminal, outermost frames at the left margin, callees
/// indented under their caller with box-drawing branches (UTF-8), each node
/// with its ranks (RankSet's printer) and their count:
///
///     main [0-63] (64 ranks)
///     ├─ solve [0-62] (63 ranks)
///     │  └─ MPI_Allreduce [0-62] (63 ranks)
///     └─ io [63] (1 rank)
///        └─ fwrite [63] (1 rank)
///
/// The count reads "(4 ranks, 8 threads)" when some ranks have several
/// threads through the node. Then one line per failure group
/// ("not captured [5,9]: did not answer within 5 s") and per symbolizer
/// warning ("warning: ..."). "no stacks" when there is nothing at all.
std::string renderTree(const StackTree& tree);

/// One line per distinct leaf (a node where some thread's stack ends), in
/// tree order: the path outermost first joined by " > ", two spaces, and the
/// ranks whose thread ends there: "main > solve > MPI_Allreduce  [0-62]".
/// Failure and warning lines follow as in renderTree().
std::string renderLeaves(const StackTree& tree);

/// The equivalence classes, numbered from 1, largest first:
/// "1: [0-62] main > solve > MPI_Allreduce"; a class whose ranks have
/// several distinct thread paths shows the others on continuation lines
/// aligned under the first path. Failure and warning lines follow as in
/// renderTree().
std::string renderClasses(const StackTree& tree);

/// The tree as a Graphviz digraph: a root node labelled "/", one box per
/// node labelled with its frame label, one edge per caller -> callee
/// labelled "COUNT:RANKS" ("63:[0-62]"). Node ids are n0, n1, ... in
/// depth-first order; labels are quoted with '"' and '\' escaped.
std::string renderDot(const StackTree& tree);

/// The tree and its classes as JSON:
/// {"version":1, "key":"function"|"full",
///  "tree":[{"label","function","file","line","inlined","ranks":"[0-62]",
///           "rank_list":[0,..,62],"rank_count":63,"threads":63,"ended":"[]",
///           "children":[...]}],
///  "classes":[{"ranks":"[0-62]","rank_list":[..],"rank_count":63,"paths":[["main","solve"]]}],
///  "failures":[{"ranks":"[5]","rank_list":[5],"reason":"..."}], "warnings":["..."]}.
/// "file" is empty and "line" 0 when unknown.
nlohmann::json stackTreeToJson(const StackTree& tree);

/// Escapes `text` for a double-quoted Graphviz string (without the quotes):
/// '"' and '\' get a backslash, a newline becomes "\n".
std::string dotEscape(const std::string& text);

}  // namespace mpidbg::core::stacks
