/* MPI_THREAD_MULTIPLE, but two threads run collectives on the same
 * communicator at once (issue 12): erroneous at every level. Both threads
 * call MPI_Allreduce on one communicator; rank 0 enters late, so on the
 * other ranks thread 0 waits inside MPI_Allreduce when thread 1 enters
 * its own. The reductions are alike, so the job still finishes on MPICH. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int sums[2] = {0, 0};
#pragma omp parallel num_threads(2)
  {
    const int t = omp_get_thread_num();
#pragma omp barrier
    if (rank == 0) usleep(400000);
    if (t == 1) usleep(100000);
    int one = 1;
    /* Both threads on `comm` at once: MPI matches collectives by order. */
    if (t == 0) MPI_Allreduce(&one, &sums[0], 1, MPI_INT, MPI_SUM, comm);
    else MPI_Allreduce(&one, &sums[1], 1, MPI_INT, MPI_SUM, comm);
  }
  if (rank == 0) printf("multiple_same_comm: %d %d\n", sums[0], sums[1]);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
