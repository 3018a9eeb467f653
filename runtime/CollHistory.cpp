// The collective history ring (see CollHistory.hpp).
#include "CollHistory.hpp"

namespace mpidbg::rt {

std::vector<ccs::proto::CollRecord> CollHistory::snapshot() const {
  std::vector<ccs::proto::CollRecord> out;
  const std::uint64_t next = stateRoot().historyNext.load(std::memory_order_acquire);
  const std::uint64_t first = next > kCapacity ? next - kCapacity : 0;
  out.reserve(static_cast<std::size_t>(next - first));
  for (std::uint64_t index = first; index < next; ++index) {
    const CollHistoryRecord& r = records_[index % kCapacity];
    if (r.stamp.load(std::memory_order_acquire) != index + 1) continue;
    ccs::proto::CollRecord c;
    c.comm = r.comm.load(std::memory_order_relaxed);
    c.seq = r.collSeq.load(std::memory_order_relaxed);
    const auto function = static_cast<MpiFunction>(r.function.load(std::memory_order_relaxed));
    c.root = r.root.load(std::memory_order_relaxed);
    c.count = r.count.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (r.stamp.load(std::memory_order_relaxed) != index + 1) continue;
    c.function = std::string(functionName(function));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace mpidbg::rt
