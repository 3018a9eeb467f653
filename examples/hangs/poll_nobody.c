/* A receive polled with MPI_Test that nobody sends: rank 0 posts
 * MPI_Irecv(source=1, tag=5) and tests it every millisecond, between two
 * tests doing nothing in MPI; every other rank goes into MPI_Barrier, which
 * rank 0 never reaches.
 * Expected verdict: rank 0 "polls MPI_Test on MPI_Irecv(source=1, tag=5,
 * count=1) for N s" (not "computing"), the others "in call 1 to MPI_Barrier
 * on MPI_COMM_WORLD", and "Deadlock: cycle 0 -> 1 -> 0". */
#include <mpi.h>
#include <time.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, token = 0, done = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    MPI_Request request;
    MPI_Irecv(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &request);
    const struct timespec pause = {0, 1000000};
    while (!done) {
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      nanosleep(&pause, NULL);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
