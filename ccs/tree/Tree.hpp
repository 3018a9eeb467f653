#pragma once

#include <cstddef>
#include <vector>

namespace mpidbg::ccs {

/// Default fan-out of the forwarding tree (Charm++ forwards a multicast to up
/// to 4 children).
inline constexpr std::size_t kDefaultFanOut = 4;
/// Largest fan-out a forward envelope may ask for.
inline constexpr std::size_t kMaxFanOut = 64;

/// A contiguous run [begin, end) of positions in an ordered PE list. The
/// node that owns a slice is its first position; the rest are its subtree.
struct Slice {
  std::size_t begin = 0;
  std::size_t end = 0;

  /// Number of positions (0 for an empty slice).
  std::size_t size() const { return end > begin ? end - begin : 0; }
  bool operator==(const Slice&) const = default;
};

/// The k-ary forwarding tree of mpidbg over an ordered PE list of `count`
/// positions, laid out so every subtree is a CONTIGUOUS slice of the list:
/// the root owns [0, count); a node owning [b, e) splits [b+1, e) into at most
/// k contiguous child slices whose sizes differ by at most one (larger ones
/// first). A forwarded message therefore carries just its subtree's slice of
/// the PE table, every PE appears in the tables of its depth-many ancestors,
/// and the total bytes sent down the tree are O(N log_k N); replies merged
/// child by child come back in list order.
///
/// Charm++'s multicast tree is different (see charmMulticastChildren): the
/// node at position i forwards to positions 4i+1..4i+4 of the WHOLE list, so
/// every hop carries the full list (O(N^2) bytes over the tree) and subtrees
/// are not contiguous, which is why merged multicast replies are only in list
/// order for small lists. mpidbg's forwards use this tree; Charm++'s rule is
/// kept for reference and tests.
class Tree {
 public:
  /// `fanOut` is clamped to 1..kMaxFanOut (1 gives a chain).
  explicit Tree(std::size_t fanOut = kDefaultFanOut);

  /// The clamped fan-out.
  std::size_t fanOut() const { return fanOut_; }

  /// Child slices of the node owning `slice`, in list order: empty for a
  /// slice of size 0 or 1, else min(k, size-1) non-empty slices covering
  /// [begin+1, end) exactly.
  std::vector<Slice> children(Slice slice) const;

  /// Levels of forwarding below the root for a list of `count` positions:
  /// 0 for count <= 1, 1 when every other PE is a direct child, ...
  std::size_t depth(std::size_t count) const;

  /// The slice owned by each position, index = position (for tests and the
  /// envelope builder): result[p].begin == p for every p.
  std::vector<Slice> layout(std::size_t count) const;

 private:
  std::size_t fanOut_;
};

/// Charm++'s multicast forwarding rule (conv-ccs, ../shared/protocols/ccs.md
/// "Forwarding and merging"): the PE at position i of a list of `count`
/// positions forwards to positions 4i+1..4i+4 that exist.
std::vector<std::size_t> charmMulticastChildren(std::size_t position, std::size_t count);

}  // namespace mpidbg::ccs
