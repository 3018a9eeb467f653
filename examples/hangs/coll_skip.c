/* A collective skipped by one rank: every rank but the last calls
 * MPI_Allreduce; the last one goes straight on to wait for a reply from
 * rank 0 that rank 0 sends only after the reduction.
 * Expected verdict: ranks [0..n-2] are in call 1 to MPI_Allreduce and wait for
 * rank n-1, which has made 0 collective calls and waits in MPI_Recv for
 * rank 0: the cycle 0 -> n-1 -> 0. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, value = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != size - 1) {
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) MPI_Send(&sum, 1, MPI_INT, size - 1, 42, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&sum, 1, MPI_INT, 0, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
