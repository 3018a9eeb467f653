#pragma once

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

#include "ccs/proto/QueueProtocol.hpp"

namespace mpidbg::rt {

/// The passive-target locks this rank holds or asks for
/// (ccs::proto::WindowLock), for the hang verdict: a rank blocked in
/// MPI_Win_lock, _unlock or _flush on a target waits for the ranks holding a
/// conflicting lock on it (any lock when it asks for an exclusive one). A
/// lock is asked for from the entry of MPI_Win_lock and held from its return
/// (an MPI that takes locks lazily has not got it yet: the verdict then sees
/// two holders and draws an edge to the other one) to the return of
/// MPI_Win_unlock. Written only by the window wrappers (no fast path); read
/// by mpidbg/queues. Thread-safe.
class WindowLocks {
 public:
  /// MPI_Win_lock(`exclusive`, `target`, win) entered: the rank asks for
  /// the lock (WindowLock::granted false) until lock() or withdraw().
  void request(std::uint64_t win, int target, bool exclusive, std::uint64_t call) {
    std::lock_guard guard(mutex_);
    add({win, target, exclusive, call, false});
  }
  /// MPI_Win_lock(`exclusive`, `target`, win) returned (`target` -1:
  /// MPI_Win_lock_all); `win` the window's handle value, `call` the rank's
  /// MPI call count: the request becomes a held lock.
  void lock(std::uint64_t win, int target, bool exclusive, std::uint64_t call) {
    std::lock_guard guard(mutex_);
    if (auto it = pending(win, target); it != locks_.end()) {
      it->granted = true;
      return;
    }
    add({win, target, exclusive, call, true});
  }
  /// MPI_Win_lock(`target`, win) failed: the request goes.
  void withdraw(std::uint64_t win, int target) {
    std::lock_guard guard(mutex_);
    if (auto it = pending(win, target); it != locks_.end()) locks_.erase(it);
  }
  /// MPI_Win_unlock(`target`, win) (-1: MPI_Win_unlock_all) returned: the
  /// oldest matching held lock goes.
  void unlock(std::uint64_t win, int target) {
    std::lock_guard guard(mutex_);
    for (auto it = locks_.begin(); it != locks_.end(); ++it)
      if (it->win == win && it->target == target && it->granted) {
        locks_.erase(it);
        return;
      }
  }
  /// MPI_Win_free(win): its locks go (an erroneous program may free a window
  /// still locked).
  void forget(std::uint64_t win) {
    std::lock_guard guard(mutex_);
    std::erase_if(locks_, [win](const ccs::proto::WindowLock& l) { return l.win == win; });
  }
  std::vector<ccs::proto::WindowLock> snapshot() const {
    std::lock_guard guard(mutex_);
    return locks_;
  }

 private:
  /// Past ccs::proto::kMaxWindowLocks the oldest goes.
  void add(const ccs::proto::WindowLock& l) {
    if (locks_.size() >= ccs::proto::kMaxWindowLocks) locks_.erase(locks_.begin());
    locks_.push_back(l);
  }
  std::vector<ccs::proto::WindowLock>::iterator pending(std::uint64_t win, int target) {
    return std::find_if(locks_.begin(), locks_.end(), [&](const ccs::proto::WindowLock& l) {
      return l.win == win && l.target == target && !l.granted;
    });
  }

  mutable std::mutex mutex_;
  std::vector<ccs::proto::WindowLock> locks_;
};

}  // namespace mpidbg::rt
