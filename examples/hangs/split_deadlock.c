/* A deadlock on a sub-communicator: MPI_COMM_WORLD is split into even and
 * odd ranks. On the even one, its rank 0 (world 0) enters MPI_Allreduce while
 * its rank 1 (world 2) first waits for a message from its rank 0 that is
 * sent only after the reduction. The odd ranks finish.
 * Expected verdict: cycle 0 -> 2 -> 0 on the "evens" communicator. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, sub_rank, value = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Comm_set_name(half, rank % 2 ? "odds" : "evens");
  MPI_Comm_rank(half, &sub_rank);
  if (rank % 2 == 0) {
    if (sub_rank == 1) MPI_Recv(&sum, 1, MPI_INT, 0, 5, half, MPI_STATUS_IGNORE);
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, half);
    if (sub_rank == 0) MPI_Send(&sum, 1, MPI_INT, 1, 5, half);
  }
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
