// The contiguous-slice k-ary forwarding tree (see Tree.hpp).
#include "ccs/tree/Tree.hpp"

#include <algorithm>
#include <cstdint>

namespace mpidbg::ccs {

Tree::Tree(std::size_t fanOut) : fanOut_(std::clamp<std::size_t>(fanOut, 1, kMaxFanOut)) {}

std::vector<Slice> Tree::children(Slice slice) const {
  std::vector<Slice> out;
  if (slice.size() <= 1) return out;
  std::size_t rest = slice.size() - 1;
  std::size_t count = std::min(fanOut_, rest);
  std::size_t base = rest / count;
  std::size_t extra = rest % count;  // the first `extra` children get one more
  out.reserve(count);
  std::size_t at = slice.begin + 1;
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t size = base + (i < extra ? 1 : 0);
    out.push_back(Slice{at, at + size});
    at += size;
  }
  return out;
}

std::size_t Tree::depth(std::size_t count) const {
  // The largest child slice holds ceil((n-1)/k) positions; follow it down.
  std::size_t levels = 0;
  while (count > 1) {
    count = (count - 1 + fanOut_ - 1) / fanOut_;
    ++levels;
  }
  return levels;
}

std::vector<Slice> Tree::layout(std::size_t count) const {
  std::vector<Slice> out(count);
  if (count == 0) return out;
  std::vector<Slice> pending{Slice{0, count}};
  while (!pending.empty()) {
    Slice slice = pending.back();
    pending.pop_back();
    out[slice.begin] = slice;
    for (const Slice& child : children(slice)) pending.push_back(child);
  }
  return out;
}

std::vector<std::size_t> charmMulticastChildren(std::size_t position, std::size_t count) {
  std::vector<std::size_t> out;
  if (position > (SIZE_MAX - 4) / 4) return out;  // 4i+4 would overflow: no such positions
  for (std::size_t i = 1; i <= 4; ++i) {
    std::size_t child = 4 * position + i;
    if (child >= count) break;
    out.push_back(child);
  }
  return out;
}

}  // namespace mpidbg::ccs
