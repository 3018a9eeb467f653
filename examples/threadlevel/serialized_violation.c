/* MPI_THREAD_SERIALIZED broken: two threads inside MPI at once (issue 12).
 * Two `single nowait` regions each run a collective on its own
 * communicator. Rank 0 enters the first late, so on the other ranks the
 * first thread waits inside MPI_Allreduce when the second (after a short
 * sleep) enters its own. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0, a = 0, b = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm other;
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
#pragma omp parallel num_threads(2)
  {
#pragma omp barrier
#pragma omp single nowait
    {
      if (rank == 0) usleep(300000);
      int one = 1;
      MPI_Allreduce(&one, &a, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
#pragma omp single nowait
    {
      usleep(100000);
      int one = 1;
      MPI_Allreduce(&one, &b, 1, MPI_INT, MPI_SUM, other);
    }
  }
  if (rank == 0) printf("serialized_violation: %d %d\n", a, b);
  MPI_Comm_free(&other);
  MPI_Finalize();
  return 0;
}
