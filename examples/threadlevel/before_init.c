/* A call before MPI_Init (issue 12, the lifecycle check): a setup routine
 * synchronizes "all ranks" with MPI_Barrier before main has initialized MPI.
 * MPICH aborts the process in that call; mpidbg's runtime says first which
 * thread called what. Usage: mpiexec.mpich -n 2 before_init */
#include <mpi.h>
#include <stdio.h>

static void setup(void) {
  /* The bug: MPI is not initialized yet. */
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  setup();
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("before_init: rank %d initialized\n", rank);
  MPI_Finalize();
  return 0;
}
