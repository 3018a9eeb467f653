#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <vector>

#include "ccs/proto/QueueProtocol.hpp"

namespace mpidbg::rt {

/// The last ccs::proto::kWildcardMatches receives and probes with
/// MPI_ANY_SOURCE that matched, per rank, for the hang verdict: a receive
/// left waiting for a sender whose message an earlier wildcard took
/// (examples/hangs/wildcard). Written only on the wildcard path (the plain
/// receive pays one comparison); read by mpidbg/queues. Thread-safe.
class WildcardLog {
 public:
  /// Records one match: `function` a static string ("MPI_Recv"), `comm`
  /// the communicator's handle value, `tag` the tag asked for (MPI_ANY_TAG
  /// as -1), `source`/`matchedTag` from the status, `call` the rank's MPI
  /// call count.
  void note(const char* function, std::uint64_t comm, int tag, int source, int matchedTag,
            std::uint64_t call) noexcept {
    std::lock_guard lock(mutex_);
    Entry& e = ring_[next_ % ring_.size()];
    e = Entry{function, comm, tag, source, matchedTag, call};
    ++next_;
  }

  /// The recorded matches, oldest first.
  std::vector<ccs::proto::WildcardMatch> snapshot() const {
    std::lock_guard lock(mutex_);
    std::vector<ccs::proto::WildcardMatch> out;
    const std::size_t n = std::min<std::size_t>(next_, ring_.size());
    for (std::size_t i = next_ - n; i < next_; ++i) {
      const Entry& e = ring_[i % ring_.size()];
      out.push_back({e.comm, e.function, e.tag, e.source, e.matchedTag, e.call});
    }
    return out;
  }

 private:
  struct Entry {
    const char* function = "";
    std::uint64_t comm = 0;
    int tag = 0;
    int source = 0;
    int matchedTag = 0;
    std::uint64_t call = 0;
  };
  mutable std::mutex mutex_;
  std::array<Entry, ccs::proto::kWildcardMatches> ring_{};
  std::size_t next_ = 0;
};

}  // namespace mpidbg::rt
