#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>

#include "CurrentCall.hpp"

namespace mpidbg::rt {

/// A rank's polling (issue 23, item 4): the same MPI_Test* call repeated on
/// the same request array, or the same MPI_Iprobe, with nothing completing
/// or matching and no other intercepted call in between. Such a rank is not
/// computing: it waits for those requests (that message) as surely as
/// MPI_Waitall (MPI_Probe) would, one test at a time. The MPI thread reports
/// each outermost test (missed, completed); the helper thread reads the
/// streak (current) and decides, with the call counter and the current-call
/// record, whether it still holds (Handlers.hpp observedCall). A mutex, not
/// a seqlock: the MPI_Test* and MPI_Iprobe wrappers are slow paths already,
/// and the reader is rare.
class PollWatch {
 public:
  /// Request handles kept per streak (handleKey values); a longer array
  /// keeps its first kMaxRequests.
  static constexpr int kMaxRequests = 16;

  /// What one test tested, and the streak of them that missed.
  struct Streak {
    /// Test, Testall, Testany, Testsome or Iprobe; None for no streak.
    MpiFunction function = MpiFunction::None;
    std::uint64_t array = 0;   ///< MPI_Test*: address of the tested request array
    std::int32_t count = 0;    ///< MPI_Test*: its length
    std::int32_t peer = 0;     ///< MPI_Iprobe: source (wire convention, CallScope.hpp wirePeer)
    std::int32_t tag = 0;      ///< MPI_Iprobe: tag (wireTag)
    std::uint64_t comm = 0;    ///< MPI_Iprobe: communicator (commKey)
    std::array<std::uint64_t, kMaxRequests> handles{};  ///< MPI_Test*: the requests, MPI_REQUEST_NULL left out
    std::int32_t handleCount = 0;
    std::int64_t firstEntryNs = 0;  ///< entry of the streak's first test, call-clock ticks
    std::int64_t lastExitNs = 0;    ///< return of its last test, call-clock ticks
    std::uint64_t lastSeq = 0;      ///< the last test's call number (MpiCallRecord::seq)
    std::uint64_t tests = 0;        ///< tests in the streak

    /// The same test: function, array and length, or probe arguments.
    bool sameTarget(const Streak& o) const noexcept {
      return function == o.function && array == o.array && count == o.count && peer == o.peer && tag == o.tag &&
             comm == o.comm;
    }
  };

  /// An outermost test, its target in `test` (function, array/count/handles
  /// or peer/tag/comm; the timing fields are ignored), call number `seq`,
  /// entered at `entryNs` and returned at `exitNs` (call-clock ticks),
  /// completed or matched nothing. It continues the streak when the
  /// streak's last test was the call just before it (seq) on the same
  /// target; otherwise it starts a new one.
  void missed(const Streak& test, std::uint64_t seq, std::int64_t entryNs, std::int64_t exitNs) noexcept;

  /// A test completed a request or matched a message (or found no active
  /// request): no streak.
  void completed() noexcept;

  /// The streak, if one was recorded since the last completion. Whether it
  /// still holds (no other call since) is the caller's to judge.
  std::optional<Streak> current() const;

 private:
  mutable std::mutex mutex_;
  Streak streak_;
};

}  // namespace mpidbg::rt
