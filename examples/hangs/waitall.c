/* Nonblocking operations that never complete: rank 0 posts MPI_Irecv from
 * rank 3 and MPI_Ibarrier, then waits for both with MPI_Waitall; rank 3 first
 * waits for a message from rank 0 that rank 0 sends only after the wait; the
 * other ranks join the barrier and finish.
 * Expected verdict: rank 0's incomplete requests are the Irecv (source=3) and
 * collective #1 (MPI_Ibarrier, which rank 3 has not issued); cycle 0 -> 3 -> 0. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, in = 0, out = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int last = size - 1;
  MPI_Request reqs[2];
  MPI_Status statuses[2];
  if (rank == 0) {
    MPI_Irecv(&in, 1, MPI_INT, last, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, statuses);
    MPI_Send(&out, 1, MPI_INT, last, 2, MPI_COMM_WORLD);
  } else if (rank == last) {
    MPI_Recv(&in, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&out, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
  } else {
    MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
