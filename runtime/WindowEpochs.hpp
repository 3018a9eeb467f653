#pragma once

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "ccs/proto/QueueProtocol.hpp"

namespace mpidbg::rt {

/// This rank's generalized active-target (PSCW) epochs, counted per window
/// and peer (ccs::proto::WindowEpoch), for the hang verdict: an origin
/// blocked in MPI_Win_start or _complete waits for a target that has not
/// posted as many exposure epochs to it as it started access epochs; a
/// target blocked in MPI_Win_wait waits for an origin that has not completed
/// as many as the target posted. Written only by the PSCW wrappers (no fast
/// path; peers are ranks of the window's group); read by mpidbg/queues.
/// Thread-safe.
class WindowEpochs {
 public:
  /// MPI_Win_start(group of `peers`, win) entered: an access epoch opens to
  /// each of them.
  void start(std::uint64_t win, std::span<const int> peers) {
    std::lock_guard guard(mutex_);
    for (ccs::proto::WindowEpoch& e : rows_)
      if (e.win == win) e.access = false;
    for (int peer : peers)
      if (ccs::proto::WindowEpoch* e = row(win, peer)) {
        ++e->started;
        e->access = true;
      }
  }
  /// MPI_Win_complete(win) entered: the open access epoch is closed (its
  /// targets may end their exposure epochs); its group stays marked until
  /// the call returns (endAccess), since the call may wait for their posts.
  void complete(std::uint64_t win) {
    std::lock_guard guard(mutex_);
    for (ccs::proto::WindowEpoch& e : rows_)
      if (e.win == win && e.access) ++e.completed;
  }
  /// MPI_Win_complete(win) returned.
  void endAccess(std::uint64_t win) {
    std::lock_guard guard(mutex_);
    for (ccs::proto::WindowEpoch& e : rows_)
      if (e.win == win) e.access = false;
  }
  /// MPI_Win_post(group of `peers`, win) entered: an exposure epoch opens to
  /// each of them.
  void post(std::uint64_t win, std::span<const int> peers) {
    std::lock_guard guard(mutex_);
    for (ccs::proto::WindowEpoch& e : rows_)
      if (e.win == win) e.exposure = false;
    for (int peer : peers)
      if (ccs::proto::WindowEpoch* e = row(win, peer)) {
        ++e->posted;
        e->exposure = true;
      }
  }
  /// MPI_Win_wait(win) returned, or MPI_Win_test(win) returned with its flag
  /// set: the open exposure epoch ended.
  void endExposure(std::uint64_t win) {
    std::lock_guard guard(mutex_);
    for (ccs::proto::WindowEpoch& e : rows_)
      if (e.win == win && e.exposure) {
        ++e.waited;
        e.exposure = false;
      }
  }
  /// MPI_Win_free(win): its rows go.
  void forget(std::uint64_t win) {
    std::lock_guard guard(mutex_);
    std::erase_if(rows_, [win](const ccs::proto::WindowEpoch& e) { return e.win == win; });
  }
  std::vector<ccs::proto::WindowEpoch> snapshot() const {
    std::lock_guard guard(mutex_);
    return rows_;
  }

 private:
  /// The row of (`win`, `peer`), made when missing; past
  /// ccs::proto::kMaxWindowEpochs the oldest row goes. Null only when out of
  /// memory (the verdict then misses this epoch; it never throws here).
  ccs::proto::WindowEpoch* row(std::uint64_t win, int peer) noexcept {
    for (ccs::proto::WindowEpoch& e : rows_)
      if (e.win == win && e.peer == peer) return &e;
    try {
      if (rows_.size() >= ccs::proto::kMaxWindowEpochs) rows_.erase(rows_.begin());
      ccs::proto::WindowEpoch e;
      e.win = win;
      e.peer = peer;
      rows_.push_back(e);
      return &rows_.back();
    } catch (...) {
      return nullptr;
    }
  }

  mutable std::mutex mutex_;
  std::vector<ccs::proto::WindowEpoch> rows_;
};

}  // namespace mpidbg::rt
