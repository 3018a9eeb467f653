/* MPI_THREAD_FUNNELED broken: a thread other than the one that called
 * MPI_Init_thread calls MPI (issue 12). Two OpenMP threads; thread 1 calls
 * MPI_Allreduce while the master thread waits at the barrier. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 1) {
      int one = 1;
      MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);  /* not the master thread */
    }
#pragma omp barrier
  }
  if (rank == 0) printf("funneled_violation: sum %d\n", sum);
  MPI_Finalize();
  return 0;
}
