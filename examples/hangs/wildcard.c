/* A wildcard receive that matches the wrong sender: rank 0 takes "the hello
 * from rank 1" with MPI_ANY_SOURCE, then waits for the data of rank 2. Rank 2
 * sends at once and rank 1 only later, so the wildcard matches rank 2's
 * message and the receive from rank 2 never completes (rank 1's message stays
 * unexpected).
 * Expected verdict: rank 0 waits in MPI_Recv(source=2) for rank 2, which is in
 * MPI_Finalize: a dead end, and rank 0's earlier wildcard receive matched
 * rank 2's message (over CCS; memory and core files do not keep matches). */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, msg = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    MPI_Recv(&msg, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* "hello from 1" */
    MPI_Recv(&msg, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);              /* "data from 2" */
  } else if (rank == 2) {
    MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  } else if (rank == 1) {
    usleep(300000);
    MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
