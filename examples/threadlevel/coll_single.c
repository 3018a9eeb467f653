/* BenchError coll_single (mpidbg check, issue 27): the program asks
 * MPI_THREAD_SINGLE, but the master thread of an OpenMP team calls a
 * collective: needs MPI_THREAD_FUNNELED. Counterpart: coll_single_ok.c. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int provided = 0, rank = 0, sum = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2)
  {
#pragma omp master
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("coll_single: %d\n", sum);
  MPI_Finalize();
  return 0;
}
