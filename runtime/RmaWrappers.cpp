// One-sided communication operations (MPI_Put, MPI_Get, the accumulates,
// their request-based forms) and the synchronisation calls that neither wait
// for another rank nor open an epoch (MPI_Win_flush_local*, MPI_Win_sync). Each
// is published as a call on its window, with the target rank when it has
// one, like MPI_Win_flush: `status` and `break` see it, and the verdict
// draws the same edges for it as for a flush (to the holder of a
// conflicting lock the runtime saw), or names it not followed. They are
// not counted anywhere. The requests of MPI_Rput & co. are recorded as
// pending operations on their window (MPIDBG_OP_RMA), so an MPI_Wait on one
// names it and waits, in the verdict, as a flush of its target does.
// MPI-4's large-count forms (MPI_Put_c, ...) as their int forms.
#include <mpi.h>

#include "CallScope.hpp"
#include "RequestTracking.hpp"

using mpidbg::rt::CallScope;
using mpidbg::rt::MpiFunction;

using mpidbg::rt::winKey;

namespace {

/// A request-based one-sided operation `function` on `win` to `target`, of
/// `count` origin elements (-1: not one int): published like its blocking
/// form, and its request recorded (recordOneSided) once `issue`, the PMPI
/// call, succeeded. Returns what `issue` returned.
template <typename Issue>
int requestBased(MpiFunction function, MPI_Win win, int target, int count, MPI_Datatype datatype, const void* buffer,
                 MPI_Request* request, Issue issue) noexcept {
  auto scope = CallScope::onWindow(function, winKey(win), target, count);
  const int rc = issue();
  if (scope.outermost() && rc == MPI_SUCCESS && request)
    mpidbg::rt::recordOneSided(*scope.runtime(), function, winKey(win), target, count, datatype, buffer, *request);
  return rc;
}

}  // namespace

MPIDBG_EXPORT int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                          MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::Put, winKey(win), target_rank, origin_count);
  return PMPI_Put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,
                  win);
}

MPIDBG_EXPORT int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                          MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::Get, winKey(win), target_rank, origin_count);
  return PMPI_Get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,
                  win);
}

MPIDBG_EXPORT int MPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                 int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
                                 MPI_Op op, MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::Accumulate, winKey(win), target_rank, origin_count);
  return PMPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                         target_datatype, op, win);
}

MPIDBG_EXPORT int MPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                     void* result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                                     MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::GetAccumulate, winKey(win), target_rank, origin_count);
  return PMPI_Get_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
                             target_rank, target_disp, target_count, target_datatype, op, win);
}

MPIDBG_EXPORT int MPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                                   MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::FetchAndOp, winKey(win), target_rank);
  return PMPI_Fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op, win);
}

MPIDBG_EXPORT int MPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                                       MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::CompareAndSwap, winKey(win), target_rank);
  return PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win);
}

MPIDBG_EXPORT int MPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                           MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                           MPI_Request* request) {
  return requestBased(MpiFunction::Rput, win, target_rank, origin_count, origin_datatype, origin_addr, request, [&] {
    return PMPI_Rput(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, request);
  });
}

MPIDBG_EXPORT int MPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                           MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                           MPI_Request* request) {
  return requestBased(MpiFunction::Rget, win, target_rank, origin_count, origin_datatype, origin_addr, request, [&] {
    return PMPI_Rget(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, request);
  });
}

MPIDBG_EXPORT int MPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                  int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
                                  MPI_Op op, MPI_Win win, MPI_Request* request) {
  return requestBased(MpiFunction::Raccumulate, win, target_rank, origin_count, origin_datatype, origin_addr, request,
                      [&] {
                        return PMPI_Raccumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                                                target_count, target_datatype, op, win, request);
                      });
}

MPIDBG_EXPORT int MPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                      void* result_addr, int result_count, MPI_Datatype result_datatype,
                                      int target_rank, MPI_Aint target_disp, int target_count,
                                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  return requestBased(MpiFunction::RgetAccumulate, win, target_rank, origin_count, origin_datatype, origin_addr,
                      request, [&] {
                        return PMPI_Rget_accumulate(origin_addr, origin_count, origin_datatype, result_addr,
                                                    result_count, result_datatype, target_rank, target_disp,
                                                    target_count, target_datatype, op, win, request);
                      });
}

#if MPI_VERSION >= 4
// MPI-4's large-count forms (MPICH 4): published as their int forms; the
// count a condition sees is -1 past INT_MAX.
using mpidbg::rt::smallCount;

MPIDBG_EXPORT int MPI_Put_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                            int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype,
                            MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::PutC, winKey(win), target_rank, smallCount(origin_count));
  return PMPI_Put_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,
                    win);
}

MPIDBG_EXPORT int MPI_Get_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                            MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::GetC, winKey(win), target_rank, smallCount(origin_count));
  return PMPI_Get_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,
                    win);
}

MPIDBG_EXPORT int MPI_Accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                   int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::AccumulateC, winKey(win), target_rank, smallCount(origin_count));
  return PMPI_Accumulate_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                           target_datatype, op, win);
}

MPIDBG_EXPORT int MPI_Get_accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                       void* result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
                                       int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::GetAccumulateC, winKey(win), target_rank, smallCount(origin_count));
  return PMPI_Get_accumulate_c(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
                               target_rank, target_disp, target_count, target_datatype, op, win);
}

MPIDBG_EXPORT int MPI_Rput_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                             MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  return requestBased(MpiFunction::RputC, win, target_rank, smallCount(origin_count), origin_datatype, origin_addr,
                      request, [&] {
                        return PMPI_Rput_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                                           target_count, target_datatype, win, request);
                      });
}

MPIDBG_EXPORT int MPI_Rget_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                             MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                             MPI_Request* request) {
  return requestBased(MpiFunction::RgetC, win, target_rank, smallCount(origin_count), origin_datatype, origin_addr,
                      request, [&] {
                        return PMPI_Rget_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                                           target_count, target_datatype, win, request);
                      });
}

MPIDBG_EXPORT int MPI_Raccumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                    int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  return requestBased(MpiFunction::RaccumulateC, win, target_rank, smallCount(origin_count), origin_datatype,
                      origin_addr, request, [&] {
                        return PMPI_Raccumulate_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                                                  target_count, target_datatype, op, win, request);
                      });
}

MPIDBG_EXPORT int MPI_Rget_accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                        void* result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
                                        int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  return requestBased(MpiFunction::RgetAccumulateC, win, target_rank, smallCount(origin_count), origin_datatype,
                      origin_addr, request, [&] {
                        return PMPI_Rget_accumulate_c(origin_addr, origin_count, origin_datatype, result_addr,
                                                      result_count, result_datatype, target_rank, target_disp,
                                                      target_count, target_datatype, op, win, request);
                      });
}
#endif

MPIDBG_EXPORT int MPI_Win_flush_local(int rank, MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::WinFlushLocal, winKey(win), rank);
  return PMPI_Win_flush_local(rank, win);
}

MPIDBG_EXPORT int MPI_Win_flush_local_all(MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::WinFlushLocalAll, winKey(win));
  return PMPI_Win_flush_local_all(win);
}

MPIDBG_EXPORT int MPI_Win_sync(MPI_Win win) {
  auto scope = CallScope::onWindow(MpiFunction::WinSync, winKey(win));
  return PMPI_Win_sync(win);
}
