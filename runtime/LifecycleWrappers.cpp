// MPI_Init / MPI_Init_thread (attach the runtime), MPI_Finalize (report it),
// MPI_Abort (report it before the job dies), and the public C entry points of
// mpidbg.h.
#include <mpi.h>

#include <cstdio>

#include "CallScope.hpp"
#include "Record.hpp"
#include "mpidbg/mpidbg.h"

using mpidbg::rt::CallScope;
using mpidbg::rt::MpiFunction;
using mpidbg::rt::Runtime;

MPIDBG_EXPORT int MPI_Init(int* argc, char*** argv) {
  __atomic_store_n(&mpidbg::rt::gMpiInitEntered, true, __ATOMIC_RELAXED);
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) {
    int provided = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&provided);
    mpidbg::rt::noteMpiInit(MPI_THREAD_SINGLE, provided);
    mpidbg::rt::startDecisions();
    Runtime::startAfterInit(provided);
  }
  return rc;
}

MPIDBG_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  __atomic_store_n(&mpidbg::rt::gMpiInitEntered, true, __ATOMIC_RELAXED);
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) {
    const int level = provided ? *provided : required;
    mpidbg::rt::noteMpiInit(required, level);
    mpidbg::rt::startDecisions();
    Runtime::startAfterInit(level);
  }
  return rc;
}

MPIDBG_EXPORT int MPI_Finalize(void) {
  if (Runtime::attached()) mpidbg::rt::setPhase(MPIDBG_PHASE_FINALIZING);
  mpidbg::rt::finishDecisions();
  int rc;
  {
    CallScope scope(MpiFunction::Finalize, MPI_COMM_WORLD);
    rc = PMPI_Finalize();
  }
  if (Runtime* rt = Runtime::attached()) {
    if (rc == MPI_SUCCESS) {
      mpidbg::rt::noteMpiFinalized();
      rt->markFinalized();
    }
    else mpidbg::rt::setPhase(MPIDBG_PHASE_RUNNING);
  }
  return rc;
}

MPIDBG_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
  mpidbg::rt::finishDecisions();
  if (Runtime* rt = Runtime::attached()) {
    try {
      char text[160];
      const std::string name = rt->comms().nameOf(mpidbg::rt::commKey(comm));
      std::snprintf(text, sizeof text, "MPI_Abort(comm=%s, errorcode=%d)", name.c_str(), errorcode);
      mpidbg::ccs::proto::Event event;
      event.kind = mpidbg::ccs::proto::Event::Kind::Abort;
      event.code = errorcode;
      event.text = text;
      rt->events().send(rt->rank(), event);
    } catch (...) {
      // Reporting is best effort; the abort itself must happen.
    }
  }
  CallScope scope(MpiFunction::Abort, comm);
  return PMPI_Abort(comm, errorcode);
}

MPIDBG_EXPORT int mpidbg_attached(void) { return Runtime::attached() ? 1 : 0; }

MPIDBG_EXPORT int mpidbg_abi_version(void) { return MPIDBG_RT_ABI_VERSION; }
