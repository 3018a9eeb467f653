/* Receives on an intercommunicator: MPI_COMM_WORLD is split into its even
 * and odd ranks, joined again by MPI_Intercomm_create; each rank then waits
 * in MPI_Recv for a message from the rank of the same position in the other
 * group (a rank of the *remote* group), which waits for it in turn.
 * Expected verdict (4 ranks): rank 0 waits for rank 1 and rank 1 for rank 0,
 * rank 2 for rank 3 and rank 3 for rank 2: "Deadlock: cycle 0 -> 1 -> 0"
 * and "Deadlock: cycle 2 -> 3 -> 2". */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, value = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  /* The other group's leader is its local rank 0: world rank 1 or 0. */
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
  int local = 0;
  MPI_Comm_rank(half, &local);
  MPI_Recv(&value, 1, MPI_INT, local, 9, inter, MPI_STATUS_IGNORE);
  MPI_Send(&rank, 1, MPI_INT, local, 9, inter);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
