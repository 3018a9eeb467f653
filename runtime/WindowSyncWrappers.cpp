// One-sided synchronisation that is not a collective on the window: passive
// target (MPI_Win_lock, _unlock, _lock_all, _unlock_all, _flush, _flush_all)
// and generalized active target, "PSCW" (MPI_Win_post, _start, _complete,
// _wait, _test). Each is published as a call on its window (status, break),
// with the target rank when it has one. For the hang verdict the rank's
// lock table (WindowLocks: asked for from MPI_Win_lock's entry, held from
// its return to MPI_Win_unlock's) and its PSCW epochs per peer
// (WindowEpochs, the groups translated to ranks of the window's group) are
// kept here; mpidbg/queues publishes both.
#include <mpi.h>

#include <vector>

#include "CallScope.hpp"

using mpidbg::rt::CallScope;
using mpidbg::rt::MpiFunction;
using mpidbg::rt::Runtime;
using mpidbg::rt::winKey;

namespace {

/// Runs `fn` on the attached runtime. Out of memory (or a failed mutex) is
/// swallowed: the verdict then misses this lock or epoch, the call goes on.
template <typename Fn>
void noteOnRuntime(Fn fn) noexcept {
  if (Runtime* rt = Runtime::attached()) try {
      fn(*rt);
    } catch (...) {
    }
}

/// The members of `group` as ranks of `win`'s group (MPI_UNDEFINED ones
/// left out); empty when MPI refuses (an invalid group: the call itself
/// will report it).
std::vector<int> windowRanksOf(MPI_Group group, MPI_Win win) {
  int n = 0;
  if (PMPI_Group_size(group, &n) != MPI_SUCCESS || n <= 0) return {};
  MPI_Group winGroup = MPI_GROUP_NULL;
  if (PMPI_Win_get_group(win, &winGroup) != MPI_SUCCESS) return {};
  std::vector<int> ranks(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
  std::vector<int> translated(ranks.size(), MPI_UNDEFINED);
  const int rc = PMPI_Group_translate_ranks(group, n, ranks.data(), winGroup, translated.data());
  PMPI_Group_free(&winGroup);
  if (rc != MPI_SUCCESS) return {};
  std::erase(translated, MPI_UNDEFINED);
  return translated;
}

}  // namespace

MPIDBG_EXPORT int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  const std::uint64_t key = winKey(win);
  const bool exclusive = lock_type == MPI_LOCK_EXCLUSIVE;
  auto scope = CallScope::onWindow(MpiFunction::WinLock, key, rank);
  noteOnRuntime([&](Runtime& rt) { rt.windowLocks().request(key, rank, exclusive, rt.mpiCalls()); });
  const int rc = PMPI_Win_lock(lock_type, rank, assert, win);
  noteOnRuntime([&](Runtime& rt) {
    if (rc == MPI_SUCCESS) rt.windowLocks().lock(key, rank, exclusive, rt.mpiCalls());
    else rt.windowLocks().withdraw(key, rank);
  });
  return rc;
}

MPIDBG_EXPORT int MPI_Win_unlock(int rank, MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::WinUnlock, winKey(win), rank);
  const int rc = PMPI_Win_unlock(rank, win);
  if (rc == MPI_SUCCESS) noteOnRuntime([&](Runtime& rt) { rt.windowLocks().unlock(winKey(win), rank); });
  return rc;
}

MPIDBG_EXPORT int MPI_Win_lock_all(int assert, MPI_Win win) {
  const std::uint64_t key = winKey(win);
  auto scope = CallScope::onWindow(MpiFunction::WinLockAll, key);
  noteOnRuntime([&](Runtime& rt) { rt.windowLocks().request(key, -1, false, rt.mpiCalls()); });
  const int rc = PMPI_Win_lock_all(assert, win);
  noteOnRuntime([&](Runtime& rt) {
    if (rc == MPI_SUCCESS) rt.windowLocks().lock(key, -1, false, rt.mpiCalls());
    else rt.windowLocks().withdraw(key, -1);
  });
  return rc;
}

MPIDBG_EXPORT int MPI_Win_unlock_all(MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::WinUnlockAll, winKey(win));
  const int rc = PMPI_Win_unlock_all(win);
  if (rc == MPI_SUCCESS) noteOnRuntime([&](Runtime& rt) { rt.windowLocks().unlock(winKey(win), -1); });
  return rc;
}

MPIDBG_EXPORT int MPI_Win_flush(int rank, MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::WinFlush, winKey(win), rank);
  return PMPI_Win_flush(rank, win);
}

MPIDBG_EXPORT int MPI_Win_flush_all(MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::WinFlushAll, winKey(win));
  return PMPI_Win_flush_all(win);
}

// PSCW: epochs are counted on entry (the call is made: MPI_Win_start may
// already wait for the targets' posts, MPI_Win_complete tells the targets
// the access epoch is over) and ended on return.

MPIDBG_EXPORT int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::WinStart, winKey(win));
  noteOnRuntime([&](Runtime& rt) { rt.windowEpochs().start(winKey(win), windowRanksOf(group, win)); });
  return PMPI_Win_start(group, assert, win);
}

MPIDBG_EXPORT int MPI_Win_complete(MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::WinComplete, winKey(win));
  noteOnRuntime([&](Runtime& rt) { rt.windowEpochs().complete(winKey(win)); });
  const int rc = PMPI_Win_complete(win);
  noteOnRuntime([&](Runtime& rt) { rt.windowEpochs().endAccess(winKey(win)); });
  return rc;
}

MPIDBG_EXPORT int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::WinPost, winKey(win));
  noteOnRuntime([&](Runtime& rt) { rt.windowEpochs().post(winKey(win), windowRanksOf(group, win)); });
  return PMPI_Win_post(group, assert, win);
}

MPIDBG_EXPORT int MPI_Win_wait(MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::WinWait, winKey(win));
  const int rc = PMPI_Win_wait(win);
  if (rc == MPI_SUCCESS) noteOnRuntime([&](Runtime& rt) { rt.windowEpochs().endExposure(winKey(win)); });
  return rc;
}

MPIDBG_EXPORT int MPI_Win_test(MPI_Win win, int* flag) {
  auto scope = CallScope::onWindow(MpiFunction::WinTest, winKey(win));
  const int rc = PMPI_Win_test(win, flag);
  if (rc == MPI_SUCCESS && flag && *flag)
    noteOnRuntime([&](Runtime& rt) { rt.windowEpochs().endExposure(winKey(win)); });
  return rc;
}
