/* Receive-receive cycle: rank 0 waits for rank 1 and rank 1 for rank 0, each
 * sending only after its receive; the other ranks finish.
 * Expected verdict: cycle 0 -> 1 -> 0 in MPI_Recv; ranks [2..] in MPI_Finalize
 * are bystanders. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, token = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 || rank == 1) {
    const int other = 1 - rank;
    MPI_Recv(&token, 1, MPI_INT, other, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&token, 1, MPI_INT, other, 7, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
