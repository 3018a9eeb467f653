#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// A set of MPI world ranks, printed and parsed in the compact form users type
/// and read: `[0-3,7]`. Ordered, no duplicates.
class RankSet {
 public:
  RankSet() = default;
  /// The set {first, ..., last} (empty when last < first).
  static RankSet range(int first, int last);
  /// Every rank of a job of `size` ranks.
  static RankSet all(int size) { return range(0, size - 1); }

  /// Parses `all`, `3`, `0-3,7`, `[0-3,7]` (spaces allowed around items) for a
  /// job of `jobSize` ranks. Errors: empty text, a non-number, a reversed
  /// range ("5-2"), a rank outside 0..jobSize-1 (named in the message), a
  /// missing closing bracket.
  static Expected<RankSet> parse(std::string_view text, int jobSize);

  void insert(int rank) { ranks_.insert(rank); }
  void erase(int rank) { ranks_.erase(rank); }
  bool contains(int rank) const { return ranks_.count(rank) != 0; }
  bool empty() const { return ranks_.empty(); }
  std::size_t size() const { return ranks_.size(); }
  /// The ranks in increasing order.
  std::vector<int> toVector() const { return {ranks_.begin(), ranks_.end()}; }
  int first() const { return *ranks_.begin(); }

  /// `[0-3,7]`; `[]` when empty.
  std::string toString() const;

  auto begin() const { return ranks_.begin(); }
  auto end() const { return ranks_.end(); }
  bool operator==(const RankSet&) const = default;

  /// Set algebra.
  RankSet operator|(const RankSet& other) const;
  RankSet operator&(const RankSet& other) const;
  RankSet operator-(const RankSet& other) const;

 private:
  std::set<int> ranks_;
};

/// Words used for one rank or several in messages: "rank 2" / "ranks [0-1,3]".
std::string describeRanks(const RankSet& ranks);

}  // namespace mpidbg::core
