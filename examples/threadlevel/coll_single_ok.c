/* The correct counterpart of coll_single.c: MPI_THREAD_SINGLE, the
 * collective outside the parallel region, or inside a team of one thread. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank = 0, sum = 0, twice = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(1)
  {
#pragma omp single
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Allreduce(&sum, &twice, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("coll_single_ok: %d %d\n", sum, twice);
  MPI_Finalize();
  return 0;
}
