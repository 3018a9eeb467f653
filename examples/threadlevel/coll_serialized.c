/* BenchError coll_serialized (mpidbg check, issue 27): the program asks
 * MPI_THREAD_SERIALIZED, but two `single nowait` regions can call their
 * collectives at the same time in two threads: needs MPI_THREAD_MULTIPLE.
 * One run here (MPICH 4.0.2, 2 ranks of 2 threads) aborted in MPI. Counterpart:
 * coll_serialized_ok.c. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int provided = 0, rank = 0, a = 0, b = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm other;
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
#pragma omp parallel num_threads(2)
  {
#pragma omp single nowait
    MPI_Allreduce(&rank, &a, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#pragma omp single nowait
    MPI_Allreduce(&rank, &b, 1, MPI_INT, MPI_SUM, other);
  }
  if (rank == 0) printf("coll_serialized: %d %d\n", a, b);
  MPI_Comm_free(&other);
  MPI_Finalize();
  return 0;
}
