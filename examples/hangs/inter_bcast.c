/* A rooted collective on an intercommunicator whose root is missing:
 * MPI_COMM_WORLD is split into its even and odd ranks, joined again by
 * MPI_Intercomm_create; the even group broadcasts from world rank 0 (its
 * local rank 0) to the odd group. World rank 2 passes MPI_PROC_NULL (it
 * takes no part; it goes on to MPI_Barrier on MPI_COMM_WORLD), the odd
 * ranks pass root 0 and wait for it, but world rank 0 first waits in
 * MPI_Recv for a message from world rank 1, which is in the broadcast.
 * Expected verdict (4 ranks): ranks 1 and 3 wait in MPI_Bcast for rank 0
 * alone (not for rank 2), rank 0 for rank 1: "Deadlock: cycle 0 -> 1 -> 0";
 * rank 2 waits in MPI_Barrier for the others. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, value = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  /* The other group's leader is its local rank 0: world rank 1 or 0. */
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
  if (rank == 0) MPI_Recv(&value, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  const int root = rank % 2 == 1 ? 0 : (rank == 0 ? MPI_ROOT : MPI_PROC_NULL);
  MPI_Bcast(&value, 1, MPI_INT, root, inter);
  if (rank == 1) MPI_Send(&value, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
