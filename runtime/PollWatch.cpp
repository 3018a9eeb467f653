#include "PollWatch.hpp"

namespace mpidbg::rt {

void PollWatch::missed(const Streak& test, std::uint64_t seq, std::int64_t entryNs, std::int64_t exitNs) noexcept {
  std::lock_guard lock(mutex_);
  if (streak_.tests == 0 || !streak_.sameTarget(test) || seq != streak_.lastSeq + 1) {
    streak_ = test;
    streak_.firstEntryNs = entryNs;
    streak_.tests = 0;
  }
  streak_.lastSeq = seq;
  streak_.lastExitNs = exitNs;
  ++streak_.tests;
}

void PollWatch::completed() noexcept {
  std::lock_guard lock(mutex_);
  streak_ = Streak{};
}

std::optional<PollWatch::Streak> PollWatch::current() const {
  std::lock_guard lock(mutex_);
  if (streak_.tests == 0) return std::nullopt;
  return streak_;
}

}  // namespace mpidbg::rt
