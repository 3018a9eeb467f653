#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::pupfmt {

/// Reader for Charm++'s `.fmt` item format, the reply of ccs_list_items.fmt
/// (../shared/protocols/ccs.md, "`.fmt` item format"; capture 05c), written
/// by Charm++ programs and by PUP::fmtWriter (runtime/include/mpidbg/
/// pup_ers.hpp). Replies come from ranks, so every byte is hostile.

/// Sync codes of the format (the same values as PUP::sync in pup.hpp; ccs
/// keeps its own copy so it does not depend on the runtime's headers).
namespace sync {
inline constexpr std::uint32_t beginArray = 0x71100000u;
inline constexpr std::uint32_t endArray = 0x72100000u;
inline constexpr std::uint32_t item = 0x70110000u;
inline constexpr std::uint32_t beginObject = 0x71300000u;
inline constexpr std::uint32_t endObject = 0x72300000u;
inline constexpr std::uint32_t endSystem = 0x79000000u;
}  // namespace sync

/// Deepest nesting of arrays and objects decode() accepts.
inline constexpr std::size_t kMaxDepth = 64;

/// One field of a decoded reply.
struct Node {
  /// What a field holds.
  enum class Kind {
    Scalar,   ///< a number: `value` is decimal (ints; bools arrive as int32 0/1) or the
              ///< shortest round-trip form of a float/double (std::to_chars)
    String,   ///< a byte record of printable text: `value` is the text (trailing NULs dropped)
    Bytes,    ///< a byte record that is not text: `value` is lowercase hex, two digits per byte
    Pointer,  ///< `value` is "0x" and lowercase hex without leading zeros ("0x0" for null)
    Array,    ///< children are the elements (labels unused), in order
    Object,   ///< children are the fields, labelled by the comments before them
    List,     ///< the top-level "CpdList" array of a ccs_list_items reply; children are the items
  };

  std::string label;  ///< the comment record before the field; empty when none
  Kind kind = Kind::Object;
  std::string value;  ///< for Scalar, String, Bytes, Pointer; empty otherwise
  std::vector<Node> children;
};

/// Decodes a whole `.fmt` reply into a tree.
///
/// - Records: intro byte (bits 7-6 zero; bits 5-4 count width 0 single, 1
///   one-byte, 2 four-byte big-endian count; bits 3-0 type 0 bytes, 2 int32,
///   3 int64, 5 float, 6 double, 10 comment, 11 sync, 12 pointer), then the
///   values, big-endian.
/// - A counted number record becomes an Array of Scalars; a counted byte
///   record one String or Bytes node; a single byte a Scalar (0..255).
/// - sync::beginArray ... sync::endArray is an Array; each sync::item starts
///   an element; an element holding one unlabelled node is that node, anything
///   else an Object of its fields (so the items of capture 05c are Objects).
///   A comment inside an array before its first item labels the array; the
///   comment "CpdList" on a top-level array makes it a List.
///   sync::beginObject ... sync::endObject is an Object. sync::endSystem and
///   unknown sync codes are skipped; sync::item outside an array is skipped.
/// - Result: the only top-level node when it is an unlabelled Array, List or
///   Object (so a ccs_list_items reply gives its List), otherwise an
///   unlabelled Object of the top-level fields (an empty reply gives an empty
///   Object).
///
/// Errors (message names the byte offset): truncated record, bad intro byte
/// (bits 7-6 set or count width 3), unknown type, a count larger than the
/// bytes that remain, an end sync without its begin or of the other kind,
/// arrays or objects still open at the end, nesting deeper than kMaxDepth.
Expected<Node> decode(std::span<const std::uint8_t> bytes);

/// The leaves of `node` as (path, value) pairs in tree order, for comparing
/// and merging the same object across ranks. `prefix` is the path of `node`
/// itself (its own label is not used). Paths: `prefix.label` for an Object
/// field (just `label` when prefix is empty), `prefix.#i` for an unlabelled
/// Object field at position i, `prefix[i]` for an Array or List element;
/// e.g. `grid.nx`, `grid.cells[3]`, `particles[2].x`, and `[0].name` for a
/// List flattened with an empty prefix. Labels are used verbatim (one that
/// contains '.' or '[' is not escaped). Values: Node::value (strings
/// unquoted); an empty Array or List gives (path, "[]"), an empty Object
/// (path, "{}").
std::vector<std::pair<std::string, std::string>> flatten(const Node& node,
                                                         std::string_view prefix);

/// The value of the child of `node` labelled `label` (a field of a list
/// item: "name", "index"), or "" when it has none.
std::string fieldValue(const Node& node, std::string_view label);

/// `node` as indented text for `print`, one line per node, two spaces per
/// level: `name = value` for leaves (strings quoted and escaped, as C
/// literals), `name:` for Objects, `name: N items` for Arrays and Lists, and
/// `name: {}` / `name: []` when empty. Names are the labels, `#i` for
/// unlabelled fields and `[i]` for elements. The root's own line is left out
/// when it is an unlabelled container (its children start at column 0).
/// Every line ends with '\n'.
std::string renderTree(const Node& node);

}  // namespace mpidbg::ccs::pupfmt
