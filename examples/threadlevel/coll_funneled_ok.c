/* The correct counterpart of coll_funneled.c: MPI_THREAD_FUNNELED, the
 * reduction in the master thread between barriers. */
#include <mpi.h>
#include <stdio.h>

static int total(int mine) {
  int sum = 0;
  MPI_Reduce(&mine, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  return sum;
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0, sum = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2)
  {
#pragma omp barrier
#pragma omp masked
    sum = total(rank);
#pragma omp barrier
  }
  if (rank == 0) printf("coll_funneled_ok: %d\n", sum);
  MPI_Finalize();
  return 0;
}
